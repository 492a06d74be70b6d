//! The director's actions on a round's clock, and why one is refused.

use serde::{Deserialize, Serialize};

use super::{LATEST_INSTANT, MAX_MINUTES, TableNumber, UnixMillis};

/// What the director does to a round's clock. Minutes are whole numbers, taken as `i64` so that a
/// negative number reaches the check and is refused by name rather than by the parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum DirectorAction {
    /// Starts the round with its minutes (the event's `minutes_per_game`).
    Start { minutes: i64 },
    /// Stops every table's time.
    Pause,
    /// Starts every table's time again where it stopped.
    Resume,
    /// Gives the whole round, so every table, more minutes.
    ExtendRound { minutes: i64 },
    /// Gives one table more minutes than the round, e.g. one that started late.
    ExtendTable { table: TableNumber, minutes: i64 },
    /// Ends the round now, every table with it, whatever time they had left.
    EndEarly,
}

impl DirectorAction {
    /// The minutes the action gives, if it gives any.
    pub fn minutes(&self) -> Option<i64> {
        match *self {
            DirectorAction::Start { minutes }
            | DirectorAction::ExtendRound { minutes }
            | DirectorAction::ExtendTable { minutes, .. } => Some(minutes),
            DirectorAction::Pause | DirectorAction::Resume | DirectorAction::EndEarly => None,
        }
    }
}

/// One entry of a round's clock log: an action and the instant it was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ClockAction {
    /// Milliseconds since the Unix epoch.
    pub at: UnixMillis,
    pub action: DirectorAction,
}

impl ClockAction {
    pub fn new(at: UnixMillis, action: DirectorAction) -> Self {
        ClockAction { at, action }
    }
}

/// Why the clock refuses an action. [`ClockError::MinutesOutOfRange`] is the request's fault (a
/// 422 on `minutes`); [`ClockError::OutOfOrder`] and [`ClockError::InstantOutOfRange`] are the
/// service's (it stamps the instants); every other one says the clock is not in a state that
/// allows the action (a 409).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum ClockError {
    #[error("the round's clock has started already")]
    AlreadyStarted,
    #[error("the round's clock has not started")]
    NotStarted,
    #[error("only a running clock can be paused")]
    NotRunning,
    #[error("only a paused clock can be resumed")]
    NotPaused,
    #[error("the round has ended")]
    Ended,
    #[error("the round's time is up: give the tables still playing extra minutes instead")]
    RoundTimeUp,
    #[error("table {table}'s time is up")]
    TableTimeUp { table: TableNumber },
    #[error("minutes must be 1 to {MAX_MINUTES}, not {minutes}")]
    MinutesOutOfRange { minutes: i64 },
    #[error("an action at {at} cannot follow one at {previous}")]
    OutOfOrder {
        at: UnixMillis,
        previous: UnixMillis,
    },
    #[error("{at} is not an instant from the Unix epoch through the year 9999")]
    InstantOutOfRange { at: UnixMillis },
}

/// A stored log that the clock refuses: the first action refused, by its index, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("action {index} of the clock's log is refused: {error}")]
pub struct InvalidLog {
    pub index: usize,
    pub error: ClockError,
}

/// The checks of an action that do not depend on the clock's state.
pub(super) fn check_input(
    action: &ClockAction,
    previous: Option<UnixMillis>,
) -> Result<(), ClockError> {
    if !(0..=LATEST_INSTANT).contains(&action.at) {
        return Err(ClockError::InstantOutOfRange { at: action.at });
    }
    if let Some(previous) = previous.filter(|&previous| action.at < previous) {
        return Err(ClockError::OutOfOrder {
            at: action.at,
            previous,
        });
    }
    match action.action.minutes() {
        Some(minutes) if !(1..=MAX_MINUTES).contains(&minutes) => {
            Err(ClockError::MinutesOutOfRange { minutes })
        }
        _ => Ok(()),
    }
}
