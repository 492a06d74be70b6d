//! The standings a draw pairs by, computed here from the results service itself rather than read
//! from ranking's read model, which may be a moment behind the last result posted.

use crate::State;
use catan_api::standings::EventRecord;
use catan_api::{Entry, Event, Round, StandingsCount};
use catan_kit::ApiError;

/// The event's record as the results service has it now: its standings count what it says.
/// Refused (409) unless they count a result for every table drawn so far, so that no draw pairs
/// by standings that miss a game (in an event that counts only confirmed results, a posted sheet
/// not yet confirmed).
pub async fn event_record(
    state: &State,
    event: &Event,
    entries: &[Entry],
    drawn: &[Round],
) -> Result<EventRecord, ApiError> {
    let results = state.peers.results.event_results(event.id).await?;
    let byes = drawn.iter().flat_map(|r| r.byes.iter().copied()).collect();
    let record = EventRecord::new(
        event.clone(),
        entries.to_vec(),
        results,
        byes,
        chrono::Utc::now(),
    );
    ensure_every_table_counted(&record, drawn)?;
    Ok(record)
}

fn ensure_every_table_counted(record: &EventRecord, drawn: &[Round]) -> Result<(), ApiError> {
    let uncounted: Vec<String> = drawn
        .iter()
        .flat_map(|round| round.tables.iter().map(move |t| (round.number, t.number)))
        .filter(|&(round, table)| {
            !record
                .results
                .iter()
                .any(|r| r.round == round && r.table == table)
        })
        .map(|(round, table)| format!("round {round} table {table}"))
        .collect();
    if uncounted.is_empty() {
        return Ok(());
    }
    let why = if record.event.standings_count == StandingsCount::Confirmed {
        "the event counts only confirmed results, and these are not confirmed yet"
    } else {
        "these have no result yet"
    };
    Err(ApiError::Conflict(format!(
        "the standings this draw pairs by do not count every result of the rounds drawn: {why}: {}",
        uncounted.join(", ")
    )))
}
