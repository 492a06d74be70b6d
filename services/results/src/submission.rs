//! A results sheet on its way to being recorded: checked against its table, then recorded as the
//! version the correction rules decide, alone or as one sheet of a batch.

use crate::store::{self, First, FirstRecorded, NewVersion, Sheet};
use crate::webhook_events;
use actix_web::http::StatusCode;
use catan_api::{Role, Round, Stage, SubmitResult, TableResult};
use catan_domain::correction::{
    Decision, Precondition, Recorded, Refusal, decide_after_void, decide_version,
};
use catan_kit::ApiError;
use catan_kit::audit::AuditEntry;
use catan_kit::auth::Principal;
use catan_kit::idempotency::{Claim, Reply};
use diesel::PgConnection;
use uuid::Uuid;

/// A checked sheet for one table, and what decides whether it may replace the table's result.
pub(crate) struct Submission {
    event_id: Uuid,
    round: u32,
    table: u32,
    stage: Stage,
    round_tables: u32,
    sheet: Sheet,
    may_correct: bool,
    precondition: Precondition,
    recorded_by: Uuid,
    checked_reason: Option<String>,
}

impl Submission {
    /// `body` for table `table` of `round`, checked (404 for a table the round lacks, 422 naming
    /// every broken rule, 403 for a sheet marked checked by anyone but the director), as sent by
    /// `principal` with `precondition`.
    pub(crate) fn checked(
        principal: &Principal,
        round: &Round,
        table: u32,
        body: &SubmitResult,
        precondition: Precondition,
    ) -> Result<Submission, ApiError> {
        let checked_reason = crate::sheet::director_check(principal, body)?;
        Ok(Submission {
            event_id: round.event_id,
            round: round.number,
            table,
            stage: round.stage,
            round_tables: u32::try_from(round.tables.len()).map_err(ApiError::internal)?,
            sheet: crate::sheet::checked(body, round, table, checked_reason.is_some())?,
            may_correct: matches!(principal.role(), Role::Director | Role::Admin),
            precondition,
            recorded_by: principal.key_id(),
            checked_reason,
        })
    }

    /// The director's reason for taking the sheet as checked, which the audit trail keeps.
    pub(crate) fn checked_reason(&self) -> Option<&str> {
        self.checked_reason.as_deref()
    }

    /// The table the sheet is for: its event, round and number.
    pub(crate) fn table_key(&self) -> (Uuid, u32, u32) {
        (self.event_id, self.round, self.table)
    }

    fn new_version(&self, version: u32) -> NewVersion<'_> {
        NewVersion {
            event_id: self.event_id,
            round: self.round,
            table: self.table,
            stage: self.stage,
            round_tables: self.round_tables,
            version,
            sheet: &self.sheet,
            recorded_by: self.recorded_by,
        }
    }

    /// The sheet as its table's first result, with the request's key (`claim`) and its audit
    /// record (`audit`, for a write outside a transaction), when the rules make it version 1.
    pub(crate) fn first<'a>(
        &'a self,
        claim: Option<&'a Claim>,
        audit: Option<&'a AuditEntry>,
    ) -> Option<First<'a>> {
        let first_sheet = decide_version(None, self.may_correct, self.precondition);
        (first_sheet == Ok(Decision::Record(1))).then(|| First {
            new: self.new_version(1),
            claim,
            audit,
        })
    }

    /// Records the sheet as its table's first result (see [`Submission::first`]), with its
    /// `result.posted` event, in one statement outside any transaction, when the rules make it
    /// version 1 and the table has none and the key is new: the result, or `None` when nothing
    /// was written.
    pub(crate) fn record_first(
        &self,
        conn: &mut PgConnection,
        claim: Option<&Claim>,
        audit: Option<&AuditEntry>,
    ) -> Result<Option<FirstRecorded>, ApiError> {
        match self.first(claim, audit) {
            Some(first) => store::record_first(conn, first, webhook_events::of_posted, first_reply),
            None => Ok(None),
        }
    }

    /// Records the sheet as the version the rules decide, with its `result.posted` event. A
    /// table's first sheet is one statement; a table that has a result is decided holding its
    /// row, so only writes of the same table wait for each other.
    pub(crate) fn persist(
        &self,
        conn: &mut PgConnection,
    ) -> Result<(StatusCode, TableResult), ApiError> {
        let first = self.record_first(conn, None, None)?;
        let (result, status) = match first {
            Some(first) => (first.result, StatusCode::CREATED),
            None => match self.decide(conn)? {
                Ok(recorded) => recorded,
                Err(unchanged) => return Ok((StatusCode::OK, unchanged)),
            },
        };
        tracing::info!(event_id = %self.event_id, round = self.round, table = self.table, version = result.version, "result recorded");
        Ok((status, result))
    }

    /// [`Submission::persist`] for a sheet reported by `player`, seated at its table: their sheet
    /// is their signature, so a first result is recorded with their confirmation (and its
    /// `result.confirmed` event), in the same transaction.
    pub(crate) fn persist_reported_by(
        &self,
        conn: &mut PgConnection,
        player: Uuid,
    ) -> Result<(StatusCode, TableResult), ApiError> {
        let (status, result) = self.persist(conn)?;
        if status != StatusCode::CREATED {
            return Ok((status, result));
        }
        store::confirm(conn, self.table_key(), result.version, player, None)?;
        let signed = store::current(conn, self.event_id, self.round, self.table)?
            .ok_or_else(|| ApiError::internal("result vanished"))?;
        webhook_events::enqueue_all(conn, &signed, webhook_events::of_confirmed(&signed)?)?;
        Ok((status, signed))
    }

    /// The version the rules decide for a table that may have a result, under its row's lock:
    /// recorded, with its status; or the current result when the sheet changes nothing.
    fn decide(
        &self,
        conn: &mut PgConnection,
    ) -> Result<Result<(TableResult, StatusCode), TableResult>, ApiError> {
        catan_kit::checkouts::refuse_if_checked_out(conn, self.event_id)?;
        let latest = store::latest_locked(conn, self.table_key())?;
        // A voided result is none: the sheet is decided as a table's first.
        let voided = latest.as_ref().filter(|r| r.voided).map(|r| r.version);
        let existing = latest.filter(|r| !r.voided);
        let recorded = existing.as_ref().map(|current| Recorded {
            version: current.version,
            same_sheet: Sheet::of(current) == self.sheet,
        });
        let decision = match voided {
            Some(voided) => decide_after_void(voided, self.may_correct, self.precondition),
            None => decide_version(recorded, self.may_correct, self.precondition),
        };
        let version = match decision {
            Ok(Decision::Record(version)) => version,
            Ok(Decision::Unchanged) => {
                return existing
                    .ok_or_else(|| ApiError::internal("result vanished"))
                    .map(Err);
            }
            Err(refusal) => return Err(self.refused(refusal)),
        };
        let result = store::record(conn, self.new_version(version))?;
        webhook_events::enqueue_all(conn, &result, webhook_events::of_posted(&result)?)?;
        let status = if recorded.is_none() {
            StatusCode::CREATED
        } else {
            StatusCode::OK
        };
        Ok(Ok((result, status)))
    }

    fn refused(&self, refusal: Refusal) -> ApiError {
        let (round, table) = (self.round, self.table);
        match refusal {
            Refusal::OnlyTheDirectorCorrects => ApiError::Conflict(format!(
                "table {table} of round {round} already has a result; only the tournament director can correct it"
            )),
            Refusal::PreconditionRequired => ApiError::PreconditionRequired(
                "a correction must carry If-Match with the ETag of the result it corrects".into(),
            ),
            Refusal::Stale { current } => ApiError::PreconditionFailed(format!(
                "the result changed meanwhile: it is now \"v{current}\""
            )),
            Refusal::NothingToMatch => {
                ApiError::PreconditionFailed("there is no result to match If-Match".into())
            }
        }
    }
}

/// The answer a table's first sheet keeps with its key.
pub(crate) fn first_reply(result: &TableResult) -> Result<Reply, ApiError> {
    reply(StatusCode::CREATED, result)
}

/// The answer to a sheet: the result, with its version's entity tag.
pub(crate) fn reply(status: StatusCode, result: &TableResult) -> Result<Reply, ApiError> {
    Reply::new(status, result).map(|r| r.with_etag(etag(result)))
}

/// A result version's entity tag.
pub(crate) fn etag(result: &TableResult) -> String {
    format!("\"v{}\"", result.version)
}
