//! An event as ranking reads it: its entries and the results its standings count, from ranking's
//! own copy brought up to date from the results service.

use crate::State;
use crate::feed;
use catan_api::{Entry, ResultStatus, Stage, StandingsCount, TableResult};
use catan_domain::standings::{ClassicRow, Game, classic_standings};
use catan_kit::ApiError;
use std::collections::{BTreeMap, HashMap};
use uuid::Uuid;

/// An event's results as ranking knows them, with its entries.
pub(crate) struct EventView {
    pub event: catan_api::Event,
    pub entries: Vec<Entry>,
    pub results: Vec<TableResult>,
    /// Whether the copy of the results could be brought up to date.
    pub up_to_date: bool,
}

/// The event's entries and the results its standings count: every posted result, or, when the
/// event says so, only those every player confirmed or the director resolved.
pub(crate) async fn load(state: &State, event_id: Uuid) -> Result<EventView, ApiError> {
    let event = state.peers.registration.event(event_id).await?;
    let up_to_date = feed::catch_up(&state.pool, &state.peers.results, event_id).await?;
    let entries = state.peers.registration.entries(event_id).await?;
    let mut results = feed::known(&state.pool, event_id).await?;
    if event.standings_count == StandingsCount::Confirmed {
        results.retain(|r| matches!(r.status, ResultStatus::Confirmed | ResultStatus::Resolved));
    }
    Ok(EventView {
        event,
        entries,
        results,
        up_to_date,
    })
}

impl EventView {
    pub fn classic_rows(&self) -> Vec<ClassicRow> {
        let games: Vec<Game> = self
            .results
            .iter()
            .filter(|r| r.stage == Stage::Qualifying)
            .map(|r| Game::from_result(&r.to_domain()))
            .collect();
        let players: Vec<Uuid> = self.entries.iter().filter_map(|e| e.player_id).collect();
        classic_standings(&players, &games)
    }

    pub fn entry_of_player(&self) -> HashMap<Uuid, &Entry> {
        self.entries
            .iter()
            .filter_map(|e| Some((e.player_id?, e)))
            .collect()
    }

    pub fn counted(&self, stage: Stage) -> u32 {
        let counted = self.results.iter().filter(|r| r.stage == stage).count();
        u32::try_from(counted).unwrap_or(u32::MAX)
    }
}

/// The last round of `stage` whose every table has a result, counting from the first.
pub(crate) fn complete_rounds(results: &[TableResult], stage: Stage) -> u32 {
    let mut per_round: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    for r in results.iter().filter(|r| r.stage == stage) {
        per_round.entry(r.round).or_insert((0, r.round_tables)).0 += 1;
    }
    let mut complete = 0;
    for (round, (reported, tables)) in per_round {
        if round != complete + 1 || reported < tables {
            break;
        }
        complete = round;
    }
    complete
}
