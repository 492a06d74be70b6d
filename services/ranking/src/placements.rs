//! An event's final placements, by the domain's playoff rules or, for partner events, its final
//! standings.

use crate::State;
use crate::standings::partner_standings_of;
use crate::view::{EventView, complete_rounds};
use catan_api::{Entry, EventFormat, PlacementRow, Placements, Stage};
use catan_domain::playoffs::{PlayoffPlan, placements, playoff_plan};
use catan_kit::ApiError;
use std::collections::HashMap;
use uuid::Uuid;

/// A place: (place, entry, the stage it reached).
type Placed = (u32, Uuid, Stage);

/// The event's placements, once they are known.
pub(crate) async fn placements_of(state: &State, view: &EventView) -> Result<Placements, ApiError> {
    let placed = match view.event.format {
        EventFormat::Classic => classic_placements(view)?,
        EventFormat::Partner => partner_placements(state, view).await?,
    };
    let entry: HashMap<Uuid, &Entry> = view.entries.iter().map(|e| (e.id, e)).collect();
    let rows: Vec<PlacementRow> = placed
        .unwrap_or_default()
        .into_iter()
        .map(|(place, entry_id, stage)| PlacementRow {
            place,
            entry_id,
            player_id: entry[&entry_id].player_id,
            player_ids: entry[&entry_id].player_ids.clone(),
            name: entry[&entry_id].name.clone(),
            stage,
        })
        .collect();
    Ok(Placements {
        event_id: view.event.id,
        complete: !rows.is_empty(),
        rows,
    })
}

/// A classic event's places, once they are known.
fn classic_placements(view: &EventView) -> Result<Option<Vec<Placed>>, ApiError> {
    let event = &view.event;
    let rows = view.classic_rows();
    let entry_of = view.entry_of_player();
    let placed: Vec<(u32, Uuid, Stage)> =
        match view.results.iter().find(|r| r.stage == Stage::Final) {
            Some(final_result) => {
                let semis: Vec<_> = view
                    .results
                    .iter()
                    .filter(|r| r.stage == Stage::Semifinal)
                    .map(|r| r.to_domain())
                    .collect();
                placements(&rows, &semis, &final_result.to_domain())
                    .map_err(ApiError::internal)?
                    .into_iter()
                    .map(|p| (p.place, p.player, p.stage))
                    .collect()
            }
            None => {
                let no_playoff =
                    playoff_plan(rows.len(), event.small_field_playoff) == PlayoffPlan::None;
                if !(no_playoff
                    && complete_rounds(&view.results, Stage::Qualifying) >= event.qualifying_rounds)
                {
                    return Ok(None);
                }
                // Without a playoff the qualifying standings are the placements.
                rows.iter()
                    .zip(1..)
                    .map(|(r, place)| (place, r.player, Stage::Qualifying))
                    .collect()
            }
        };
    Ok(Some(
        placed
            .into_iter()
            .map(|(place, player, stage)| (place, entry_of[&player].id, stage))
            .collect(),
    ))
}

/// A partner event is placed by its final standings, once every Swiss round has its results.
async fn partner_placements(
    state: &State,
    view: &EventView,
) -> Result<Option<Vec<Placed>>, ApiError> {
    let table = partner_standings_of(state, view).await?;
    let rounds = view.event.partner_rules.map_or(0, |rules| rules.rounds);
    if table.after_round < rounds {
        return Ok(None);
    }
    Ok(Some(
        table
            .rows
            .iter()
            .zip(1..)
            .map(|(row, place)| (place, row.entry_id, Stage::Swiss))
            .collect(),
    ))
}
