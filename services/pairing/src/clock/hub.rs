//! The live clocks of watched rounds, for the clock stream.
//!
//! Replicas keep no state, so a change made on another replica must reach this one's streams: one
//! poller per watched round and replica (`catan_kit::live`) reads the round's log every `POLL` (a
//! few rows) while anyone watches, and every watcher gets each new reading. A reading is new when
//! the log grew or the clock's state changed as time passed (the round's time up, every table's
//! time up).

use super::ClockedRound;
use super::store as clock_store;
use actix_web::web::Bytes;
use catan_api::RoundState;
use catan_kit::live::{Hub, Live};
use std::time::Duration;
use uuid::Uuid;

/// How often a watched round's log is read: a change reaches the screens at most this late.
pub(crate) const POLL: Duration = Duration::from_millis(250);

/// A reading of a round's clock as an SSE event, and what tells it from the next: the log's
/// length and the state.
#[derive(Debug, Clone)]
pub(crate) struct ClockReadingEvent {
    signature: (usize, RoundState),
    event: Bytes,
}

impl Live for ClockReadingEvent {
    type Key = (usize, RoundState);

    fn key(&self) -> (usize, RoundState) {
        self.signature
    }

    fn event(&self) -> Bytes {
        self.event.clone()
    }
}

/// The rounds being watched (event, round number), each with its poller's latest reading.
pub(crate) type ClockHub = Hub<(Uuid, u32), ClockReadingEvent>;

/// The round's clock now as an SSE event.
pub(crate) fn reading_event(
    conn: &mut diesel::PgConnection,
    round: &ClockedRound,
) -> Result<ClockReadingEvent, catan_kit::ApiError> {
    let clock = clock_store::clock_of(conn, round.event_id, round.number)?;
    let reading = super::reading(round, &clock, chrono::Utc::now().timestamp_millis())?;
    let json = serde_json::to_string(&reading).map_err(catan_kit::ApiError::internal)?;
    Ok(ClockReadingEvent {
        signature: (reading.actions.len(), reading.state),
        event: Bytes::from(format!("event: clock\ndata: {json}\n\n")),
    })
}
