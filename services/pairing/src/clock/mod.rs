//! A round's clock (issue 32): its log of the director's actions, stored here beside the round,
//! read with the domain's `RoundClock`, announced by webhooks and streamed to screens.

pub mod hub;
pub mod notices;
pub mod store;

use catan_api::{ClockLogEntry, Round, RoundClockReading, TableClock};
use catan_domain::clock::{RoundClock, UnixMillis};
use catan_kit::ApiError;
use std::num::NonZeroU32;
use store::instant;

/// What the clock's handlers and ticker are told by the settings.
#[derive(Debug, Clone, Copy)]
pub struct ClockSettings {
    /// Minutes before a round's end that `round.ending` is due.
    pub ending_lead: NonZeroU32,
}

/// The clock of `round` as it reads at `now`, with every table of the round.
pub fn reading(
    round: &Round,
    clock: &RoundClock,
    now: UnixMillis,
) -> Result<RoundClockReading, ApiError> {
    let numbers: Vec<u32> = round.tables.iter().map(|t| t.number).collect();
    let read = clock.reading_at(now, &numbers);
    let optional = |at: Option<UnixMillis>| at.map(instant).transpose();
    Ok(RoundClockReading {
        event_id: round.event_id,
        round: round.number,
        server_time: instant(now)?,
        state: read.round.state,
        time_left_ms: read.round.time_left_ms,
        ends_at: optional(read.round.ends_at)?,
        tables: read
            .tables
            .iter()
            .map(|t| {
                Ok(TableClock {
                    table: t.table,
                    extra_minutes: t.extra_minutes,
                    time_left_ms: t.time_left_ms,
                    ends_at: optional(t.ends_at)?,
                    time_up: t.time_up,
                })
            })
            .collect::<Result<_, ApiError>>()?,
        actions: clock
            .actions()
            .iter()
            .map(|a| {
                Ok(ClockLogEntry {
                    at: instant(a.at)?,
                    action: a.action,
                })
            })
            .collect::<Result<_, ApiError>>()?,
    })
}
