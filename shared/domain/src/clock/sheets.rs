//! Results that follow the clock: a game stopped at the time limit is reported only once the
//! table's time is up, unless the director says why it stopped sooner; a won game any time.

use serde::{Deserialize, Serialize};

use super::replay::{RoundClock, RoundState};
use super::{TableNumber, UnixMillis};
use crate::results::OutcomeKind;

/// The longest reason the director may give, in characters (as a dispute's).
pub const MAX_REASON_CHARS: usize = 500;

/// Why a sheet's outcome fits the table's time: what the audit trail records with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "timing", rename_all = "snake_case")]
pub enum SheetTiming {
    /// A won game, or a game stopped at the limit once the table's time was up.
    OnTime,
    /// The round's clock was never started, so the platform knows no limit to hold the sheet
    /// to: events run without the clock report as they did before it.
    WithoutClock,
    /// A game stopped at the limit before the table's time was up, which the director allowed
    /// for this reason (trimmed).
    EarlyByDirector { reason: String },
}

/// Why a sheet's outcome does not fit the table's time: a 422 on the field it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum TimingRefusal {
    /// A `time_limit` sheet while the table still has time (paused or not), and no reason from
    /// the director.
    #[error("the table's time is not up: {time_left_ms} ms left")]
    TimeNotUp {
        time_left_ms: i64,
        /// When the time will be up; none while the clock is paused.
        ends_at: Option<UnixMillis>,
    },
    /// The director's reason is blank, too long or holds control characters.
    #[error("a reason is 1 to {MAX_REASON_CHARS} characters without control characters")]
    InvalidReason,
}

impl TimingRefusal {
    /// The request field the refusal is about.
    pub fn field(&self) -> &'static str {
        match self {
            TimingRefusal::TimeNotUp { .. } => "outcome",
            TimingRefusal::InvalidReason => "reason",
        }
    }

    /// The stable code of the rule, as a problem document writes it.
    pub fn code(&self) -> &'static str {
        match self {
            TimingRefusal::TimeNotUp { .. } => "time_not_up",
            TimingRefusal::InvalidReason => "invalid_reason",
        }
    }
}

/// Whether a sheet with `outcome` for `table`, received at `at`, fits the table's time.
/// `director_reason` is the reason the tournament director gave for a game stopped early: the
/// service passes it only from the director. A reason given when none is needed is not checked.
pub fn admit_sheet(
    clock: &RoundClock,
    table: TableNumber,
    at: UnixMillis,
    outcome: OutcomeKind,
    director_reason: Option<&str>,
) -> Result<SheetTiming, TimingRefusal> {
    if outcome == OutcomeKind::Won {
        return Ok(SheetTiming::OnTime);
    }
    if clock.round_at(at).state == RoundState::NotStarted {
        return Ok(SheetTiming::WithoutClock);
    }
    let reading = clock.table_at(table, at);
    if reading.time_up {
        return Ok(SheetTiming::OnTime);
    }
    match director_reason {
        Some(reason) => Ok(SheetTiming::EarlyByDirector {
            reason: checked_reason(reason)?,
        }),
        None => Err(TimingRefusal::TimeNotUp {
            time_left_ms: reading.time_left_ms.unwrap_or(0),
            ends_at: reading.ends_at,
        }),
    }
}

fn checked_reason(text: &str) -> Result<String, TimingRefusal> {
    let reason = text.trim();
    let fits = !reason.is_empty()
        && reason.chars().count() <= MAX_REASON_CHARS
        && !reason.chars().any(char::is_control);
    if fits {
        Ok(reason.to_string())
    } else {
        Err(TimingRefusal::InvalidReason)
    }
}
