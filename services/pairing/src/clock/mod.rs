//! A round's clock (issue 32): its log of the director's actions, stored here beside the round,
//! read with the domain's `RoundClock`, announced by webhooks and streamed to screens.

pub mod hub;
pub mod notices;
pub mod store;

use catan_api::{ClockLogEntry, RoundClockReading, TableClock};
use catan_domain::clock::{ClockAction, ClockError, DirectorAction, RoundClock, UnixMillis};
use catan_kit::ApiError;
use catan_kit::problem::ErrorCode;
use std::num::NonZeroU32;
use store::instant;
use uuid::Uuid;

/// What the clock's handlers and ticker are told by the settings.
#[derive(Debug, Clone, Copy)]
pub struct ClockSettings {
    /// Minutes before a round's end that `round.ending` is due.
    pub ending_lead: NonZeroU32,
}

/// Which round a clock is of: its event, its number and its tables' numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockedRound {
    pub event_id: Uuid,
    pub number: u32,
    pub tables: Vec<u32>,
}

/// Takes the director's `action` on `round`'s clock now, in the caller's transaction: stored in
/// the log with the notices it makes due, or refused; the clock as the action left it.
pub fn take(
    conn: &mut diesel::PgConnection,
    round: &ClockedRound,
    action: DirectorAction,
    taken_by: Uuid,
    lead: NonZeroU32,
) -> Result<RoundClockReading, ApiError> {
    let (event_id, number) = (round.event_id, round.number);
    // One action at a time per event, stamped after the lock, so the log's instants keep its
    // order on every replica (and the notices' ticker sees every earlier action).
    catan_kit::db::lock_event(conn, event_id)?;
    catan_kit::checkouts::refuse_if_checked_out(conn, event_id)?;
    let mut clock = store::clock_of(conn, event_id, number)?;
    let now = chrono::Utc::now().timestamp_millis();
    let at = clock.last_action_at().map_or(now, |last| now.max(last));
    let taken = ClockAction::new(at, action);
    clock.push(taken).map_err(refused)?;
    store::append(
        conn,
        event_id,
        number,
        clock.actions().len(),
        &taken,
        taken_by,
    )?;
    notices::send_due(conn, event_id, number, &clock, lead, at)?;
    reading(round, &clock, at)
}

/// A refused action as the API answers it.
pub fn refused(error: ClockError) -> ApiError {
    match error {
        ClockError::MinutesOutOfRange { .. } => {
            ApiError::field("minutes", ErrorCode::OutOfRange, error.to_string())
        }
        // The server stamps the instants: a refusal of them is its own fault.
        ClockError::OutOfOrder { .. } | ClockError::InstantOutOfRange { .. } => {
            ApiError::internal(error.to_string())
        }
        _ => ApiError::Conflict(error.to_string()),
    }
}

/// The clock of `round` as it reads at `now`, with `tables` of it.
pub fn reading(
    round: &ClockedRound,
    clock: &RoundClock,
    now: UnixMillis,
) -> Result<RoundClockReading, ApiError> {
    let read = clock.reading_at(now, &round.tables);
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
