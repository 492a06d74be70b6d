//! Results that follow the round's clock (issue 32): a `time_limit` sheet is taken only once its
//! table's time is up, unless the tournament director says why the game stopped sooner; a `won`
//! sheet any time, and every sheet of a round whose clock never started.
//!
//! A sheet is still posted as a `KeyFoundByTheWrite`, whose checks must pass again on a retry:
//! they do, as a table's time once up stays up and a reason once valid stays valid, so a sheet the
//! clock let through is let through again.

use catan_api::{ApiClient, OutcomeKind, Role, SubmitResult};
use catan_domain::clock::{ClockAction, RoundClock, SheetTiming, TimingRefusal, admit_sheet};
use catan_kit::ApiError;
use catan_kit::auth::Principal;
use catan_kit::problem::ErrorCode;
use uuid::Uuid;

/// The round's clock as pairing has it now, fetched only when a sheet needs it (a `time_limit`
/// one): the clock changes while the round plays, so it is never kept.
pub(crate) struct Clock {
    clock: Option<RoundClock>,
}

impl Clock {
    /// The clock of round `round` if any of `sheets` (table, sheet) stops at the time limit. The
    /// replay needs only the log: one table's reading (the first such) is asked for, not every
    /// table's.
    pub(crate) async fn for_sheets<'a>(
        pairing: &ApiClient,
        event_id: Uuid,
        round: u32,
        mut sheets: impl Iterator<Item = (u32, &'a SubmitResult)>,
    ) -> Result<Clock, ApiError> {
        let Some((table, _)) = sheets.find(|(_, s)| s.outcome == OutcomeKind::TimeLimit) else {
            return Ok(Clock { clock: None });
        };
        let reading = pairing.table_clock(event_id, round, table).await?;
        let actions: Vec<ClockAction> = reading
            .actions
            .iter()
            .map(|a| ClockAction::new(a.at.timestamp_millis(), a.action))
            .collect();
        let clock = RoundClock::from_log(&actions).map_err(ApiError::internal)?;
        Ok(Clock { clock: Some(clock) })
    }

    /// Whether `sheet` for table `table` fits its time now: the director's reason the audit trail
    /// must keep when the sheet is taken early, or a 422 on the field at fault.
    pub(crate) fn admit(
        &self,
        principal: &Principal,
        table: u32,
        sheet: &SubmitResult,
    ) -> Result<Option<String>, ApiError> {
        let Some(clock) = &self.clock else {
            return Ok(None);
        };
        // Only the director may stop a game before its time; anyone else's reason is ignored.
        let reason = sheet
            .early_reason
            .as_deref()
            .filter(|_| matches!(principal.role(), Role::Director | Role::Admin));
        let now = chrono::Utc::now().timestamp_millis();
        match admit_sheet(clock, table, now, sheet.outcome, reason) {
            Ok(SheetTiming::EarlyByDirector { reason }) => Ok(Some(reason)),
            Ok(SheetTiming::OnTime | SheetTiming::WithoutClock) => Ok(None),
            Err(refusal) => Err(refused(table, refusal)),
        }
    }
}

fn refused(table: u32, refusal: TimingRefusal) -> ApiError {
    match refusal {
        TimingRefusal::TimeNotUp {
            time_left_ms,
            ends_at,
        } => {
            let when = match ends_at.and_then(chrono::DateTime::from_timestamp_millis) {
                Some(end) => format!("it ends at {}", end.to_rfc3339()),
                None => "the clock is paused".into(),
            };
            ApiError::field(
                "outcome",
                ErrorCode::TimeNotUp,
                format!(
                    "table {table}'s time is not up ({} s left, {when}): a game stops at the time limit only when its time is up, unless the tournament director gives an early_reason",
                    (time_left_ms + 999) / 1000
                ),
            )
        }
        TimingRefusal::InvalidReason => ApiError::field(
            "early_reason",
            ErrorCode::InvalidReason,
            refusal.to_string(),
        ),
    }
}
