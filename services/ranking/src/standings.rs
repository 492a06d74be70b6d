//! An event's standings, computed by the domain's rules from what ranking knows.

use crate::State;
use crate::view::{EventView, complete_rounds, load};
use catan_api::{
    AnyStandings, Entry, EventFormat, PartnerStandingRow, PartnerStandings, Stage, StandingRow,
    Standings,
};
use catan_domain::partner::{PartnerGame, partner_standings_with_drops};
use catan_domain::standings::format_percent;
use catan_kit::ApiError;
use std::collections::HashMap;
use uuid::Uuid;

/// The event's standings now, and whether they are up to date with the results service.
pub(crate) async fn current_standings(
    state: &State,
    event_id: Uuid,
) -> Result<(AnyStandings, bool), ApiError> {
    let view = load(state, event_id).await?;
    let body = match view.event.format {
        EventFormat::Classic => AnyStandings::Classic(classic_standings_of(&view)),
        EventFormat::Partner => AnyStandings::Partner(partner_standings_of(state, &view).await?),
    };
    Ok((body, view.up_to_date))
}

fn classic_standings_of(view: &EventView) -> Standings {
    let entry_of = view.entry_of_player();
    let rows = view
        .classic_rows()
        .iter()
        .map(|row| {
            let entry = entry_of[&row.player];
            StandingRow {
                rank: row.rank,
                entry_id: entry.id,
                player_id: row.player,
                name: entry.name.clone(),
                status: entry.status,
                vp: row.vp,
                vp_share: format_percent(&row.vp_share),
                vp_share_exact: format!("{}/{}", row.vp_share.numer(), row.vp_share.denom()),
                games: row.games,
                wins: row.wins,
                three_player_games: row.three_player_games,
            }
        })
        .collect();
    Standings {
        format: EventFormat::Classic,
        event_id: view.event.id,
        after_round: complete_rounds(&view.results, Stage::Qualifying),
        results_counted: view.counted(Stage::Qualifying),
        rows,
    }
}

pub(crate) async fn partner_standings_of(
    state: &State,
    view: &EventView,
) -> Result<PartnerStandings, ApiError> {
    let event = &view.event;
    let rules = event
        .partner_rules
        .ok_or_else(|| ApiError::internal(format!("partner event {} has no rules", event.id)))?;
    // Byes are the pairing's: a round's bye is known once the round is drawn.
    let rounds = state.peers.pairing.rounds(event.id).await?;
    let byes: Vec<Uuid> = rounds.iter().flat_map(|r| r.byes.iter().copied()).collect();
    let games: Vec<PartnerGame> = view
        .results
        .iter()
        .filter(|r| r.stage == Stage::Swiss)
        .map(|r| {
            r.to_partner_game().ok_or_else(|| {
                ApiError::internal(format!("partner result of table {} has no teams", r.table))
            })
        })
        .collect::<Result<_, _>>()?;
    let teams: Vec<Uuid> = view.entries.iter().map(|e| e.id).collect();
    let dropped: Vec<Uuid> = view
        .entries
        .iter()
        .filter(|e| e.status != catan_api::EntryStatus::Active)
        .map(|e| e.id)
        .collect();
    let entry: HashMap<Uuid, &Entry> = view.entries.iter().map(|e| (e.id, e)).collect();
    let rows = partner_standings_with_drops(&teams, &games, &byes, &dropped, &rules)
        .into_iter()
        .map(|row| {
            let team = entry[&row.team];
            PartnerStandingRow {
                rank: row.rank,
                entry_id: row.team,
                team_name: team.name.clone(),
                player_ids: team.player_ids.clone(),
                status: team.status,
                points: row.points,
                vp: row.vp,
                vp_against: row.vp_against,
                games: row.games,
                byes: row.byes,
                prize: row.prize,
            }
        })
        .collect();
    Ok(PartnerStandings {
        format: EventFormat::Partner,
        event_id: event.id,
        after_round: complete_rounds(&view.results, Stage::Swiss),
        results_counted: view.counted(Stage::Swiss),
        rows,
    })
}
