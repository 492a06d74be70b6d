//! The standings a draw pairs by, computed here from the results service itself rather than read
//! from ranking's read model, which may be a moment behind the last result posted.

use crate::State;
use catan_api::standings::EventRecord;
use catan_api::{Entry, Event, Round};
use catan_kit::ApiError;

/// The event's record as the results service has it now: its standings count what it says.
pub async fn event_record(
    state: &State,
    event: &Event,
    entries: &[Entry],
    drawn: &[Round],
) -> Result<EventRecord, ApiError> {
    let results = state.peers.results.event_results(event.id).await?;
    let byes = drawn.iter().flat_map(|r| r.byes.iter().copied()).collect();
    Ok(EventRecord::new(
        event.clone(),
        entries.to_vec(),
        results,
        byes,
        chrono::Utc::now(),
    ))
}
