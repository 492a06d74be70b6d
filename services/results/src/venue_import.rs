//! A venue's results taken in (issue 34): every sheet version checked against the rules and the
//! round pairing drew, as if it were posted here; then, in one transaction, what the federation
//! lacks recorded in the order the venue made it, each step with the change-feed row and webhook
//! events an ordinary write makes, so that ranking takes them in as any other result.

use crate::drawn_rounds::DrawnRounds;
use crate::store::venue_results::{Kept, confirm_at, dispute_at};
use crate::store::{self, NewVersion, Sheet};
use crate::webhook_events::{self, enqueue_all};
use catan_api::{ApiClient, Round, TableHistoryCopy, VenueResults, VenueResultsTaken};
use catan_domain::results::{RuleCode, Violation};
use catan_domain::venue_results::{
    ConfirmationOf, DisputeOf, ResultsPlan, Step, TableHistory, VersionOf, history_faults,
    plan_results,
};
use catan_kit::ApiError;
use catan_kit::problem::FieldError;
use chrono::{DateTime, SubsecRound, Utc};
use diesel::PgConnection;
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

/// What the 409 of a part that differs calls it.
const PART: &str = "the venue's results";

type History = TableHistory<DateTime<Utc>>;

/// A venue's results, checked: each table's history with the sheets the rules made of its
/// versions, and the round each is of.
pub struct CheckedResults {
    event_id: Uuid,
    tables: Vec<(TableHistoryCopy, Vec<Sheet>)>,
    rounds: HashMap<u32, Arc<Round>>,
}

/// The results with every time as PostgreSQL keeps it (microseconds), so that what is stored
/// compares equal to what is sent when the same part comes again.
pub fn normalised(mut results: VenueResults) -> VenueResults {
    let kept = |t: &mut DateTime<Utc>| *t = t.trunc_subsecs(6);
    for table in &mut results.tables {
        table
            .versions
            .iter_mut()
            .for_each(|v| kept(&mut v.recorded_at));
        table
            .confirmations
            .iter_mut()
            .for_each(|c| kept(&mut c.confirmed_at));
        table
            .disputes
            .iter_mut()
            .for_each(|d| kept(&mut d.created_at));
    }
    results
}

/// The rounds the results are of, as pairing drew them; a round pairing lacks is a fault of the
/// part (its rounds are sent first).
pub async fn drawn_rounds(
    pairing: &ApiClient,
    pool: &catan_kit::db::PgPool,
    kept_rounds: &DrawnRounds,
    results: &VenueResults,
) -> Result<(HashMap<u32, Arc<Round>>, Vec<FieldError>), ApiError> {
    let mut numbers: Vec<u32> = results.tables.iter().map(|t| t.round).collect();
    numbers.sort_unstable();
    numbers.dedup();
    let mut rounds = HashMap::new();
    let mut missing = Vec::new();
    for number in numbers {
        match kept_rounds
            .get(pairing, pool, results.event_id, number)
            .await
        {
            Ok(round) => {
                rounds.insert(number, round);
            }
            Err(ApiError::NotFound(_)) => missing.push(FieldError {
                field: format!("rounds[{number}]"),
                code: RuleCode::OutOfRange.into(),
                message: format!("round {number} is not drawn here: send the event's rounds first"),
            }),
            Err(other) => return Err(other),
        }
    }
    Ok((rounds, missing))
}

/// Every sheet version checked as `PUT .../result` checks a sheet (against its table's seats and
/// the game's rules), and every history as the results service makes them: a 422 listing every
/// fault, each on `rounds[<round>].tables[<table>].versions[<version>]...`.
pub fn checked(
    results: VenueResults,
    rounds: HashMap<u32, Arc<Round>>,
    mut faults: Vec<FieldError>,
) -> Result<CheckedResults, ApiError> {
    let mut tables = Vec::with_capacity(results.tables.len());
    for history in results.tables {
        let Some(round) = rounds.get(&history.round) else {
            continue;
        };
        let mut sheets = Vec::with_capacity(history.versions.len());
        for version in &history.versions {
            let at = format!(
                "rounds[{}].tables[{}].versions[{}]",
                history.round, history.table, version.version
            );
            // A doubtful sheet was checked by the venue's director when it was posted there.
            match crate::sheet::checked(&version.sheet, round, history.table, true) {
                Ok(sheet) => sheets.push(sheet),
                Err(ApiError::Validation { errors, .. }) => {
                    faults.extend(errors.into_iter().map(|e| FieldError {
                        field: format!("{at}.sheet.{}", e.field),
                        message: format!("{at}: {}", e.message),
                        code: e.code,
                    }));
                }
                Err(ApiError::NotFound(message)) => faults.push(FieldError {
                    field: format!("rounds[{}].tables[{}]", history.round, history.table),
                    code: RuleCode::OutOfRange.into(),
                    message,
                }),
                Err(other) => return Err(other),
            }
        }
        tables.push((history, sheets));
    }
    let seated = |round: u32, table: u32| {
        rounds
            .get(&round)
            .and_then(|r| r.tables.iter().find(|t| t.number == table))
            .map(|t| t.seats.iter().map(|s| s.player_id).collect())
            .unwrap_or_default()
    };
    let histories: Vec<History> = tables
        .iter()
        .map(|(copy, _)| domain_history(copy, &[]))
        .collect();
    faults.extend(
        history_faults(&histories, seated)
            .into_iter()
            .map(field_error),
    );
    if !faults.is_empty() {
        let detail = format!(
            "{} fault{} in the venue's results; nothing was taken in (see errors)",
            faults.len(),
            if faults.len() == 1 { "" } else { "s" }
        );
        return Err(ApiError::Validation {
            detail,
            errors: faults,
        });
    }
    Ok(CheckedResults {
        event_id: results.event_id,
        tables,
        rounds,
    })
}

fn field_error(v: Violation) -> FieldError {
    FieldError {
        field: v.field,
        code: v.code.into(),
        message: v.message,
    }
}

/// A table's history as the rules compare it: each version's sheet written out as recorded
/// (`sheets`, in the order of the versions; none for a history not checked yet).
fn domain_history(copy: &TableHistoryCopy, sheets: &[Sheet]) -> History {
    let written = |i: usize| {
        sheets
            .get(i)
            .map(|s| serde_json::to_string(s).unwrap_or_default())
            .unwrap_or_default()
    };
    TableHistory {
        round: copy.round,
        table: copy.table,
        versions: copy
            .versions
            .iter()
            .enumerate()
            .map(|(i, v)| VersionOf {
                version: v.version,
                sheet: written(i),
                recorded_by: v.recorded_by,
                recorded_at: v.recorded_at,
            })
            .collect(),
        confirmations: copy
            .confirmations
            .iter()
            .map(|c| ConfirmationOf {
                version: c.version,
                player: c.player_id,
                confirmed_at: c.confirmed_at,
                on_behalf_by: c.on_behalf_by,
            })
            .collect(),
        disputes: copy
            .disputes
            .iter()
            .map(|d| DisputeOf {
                version: d.version,
                player: d.player_id,
                reason: d.reason.clone(),
                created_at: d.created_at,
                resolved_by_version: d.resolved_by_version,
            })
            .collect(),
    }
}

/// Takes the checked results in, in the caller's transaction: what the federation lacks is
/// recorded (unless `dry_run`); a difference refuses the whole part (409 listing every one).
pub fn take_in(
    conn: &mut PgConnection,
    checked: &CheckedResults,
    dry_run: bool,
) -> Result<VenueResultsTaken, ApiError> {
    let event_id = checked.event_id;
    store::venue_results::lock_imports(conn, event_id)?;
    let ours: Vec<History> = store::venue_results::kept(conn, event_id)?
        .iter()
        .map(|Kept { copy, sheets }| domain_history(copy, sheets))
        .collect();
    let theirs: Vec<History> = checked
        .tables
        .iter()
        .map(|(copy, sheets)| domain_history(copy, sheets))
        .collect();
    let (tables, unchanged) = match plan_results(&ours, &theirs) {
        ResultsPlan::Apply { tables, unchanged } => (tables, unchanged),
        ResultsPlan::Refuse(differences) => {
            return Err(catan_kit::venue_signed::contradicts(PART, differences));
        }
    };
    let added: usize = tables.iter().map(|(_, _, steps)| steps.len()).sum();
    if !dry_run {
        for (round, table, steps) in &tables {
            let (copy, sheets) = checked
                .tables
                .iter()
                .find(|(c, _)| (c.round, c.table) == (*round, *table))
                .ok_or_else(|| ApiError::internal("a planned table is not in the part"))?;
            replay(conn, checked, (copy, sheets), steps)?;
        }
    }
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Ok(VenueResultsTaken {
        event_id,
        dry_run,
        added: count(added),
        unchanged: count(unchanged),
    })
}

/// Records a table's new steps in order, each as the ordinary write would: a version with its
/// `result.posted` events (resolving the disputes open before it), a confirmation with its
/// `result.confirmed`, a dispute with its `result.disputed`; each moves the table up the feed.
fn replay(
    conn: &mut PgConnection,
    checked: &CheckedResults,
    (copy, sheets): (&TableHistoryCopy, &[Sheet]),
    steps: &[Step],
) -> Result<(), ApiError> {
    let at = (checked.event_id, copy.round, copy.table);
    let round = checked
        .rounds
        .get(&copy.round)
        .ok_or_else(|| ApiError::internal("a checked table's round is gone"))?;
    // Holds the table's row: an ordinary write to it waits for the import.
    store::current_locked(conn, at.0, at.1, at.2)?;
    for step in steps {
        match *step {
            Step::Version(number) => {
                let index = copy
                    .versions
                    .iter()
                    .position(|v| v.version == number)
                    .ok_or_else(|| ApiError::internal("a planned version is not in the part"))?;
                let version = &copy.versions[index];
                let new = NewVersion {
                    event_id: at.0,
                    round: at.1,
                    table: at.2,
                    stage: round.stage,
                    round_tables: u32::try_from(round.tables.len()).map_err(ApiError::internal)?,
                    version: number,
                    sheet: &sheets[index],
                    recorded_by: version.recorded_by,
                };
                let result = store::record_at(conn, new, version.recorded_at)?;
                enqueue_all(conn, &result, webhook_events::of_posted(&result)?)?;
            }
            Step::Confirmation { version, player } => {
                let confirmation = copy
                    .confirmations
                    .iter()
                    .find(|c| (c.version, c.player_id) == (version, player))
                    .ok_or_else(|| ApiError::internal("a planned confirmation is gone"))?;
                confirm_at(conn, at, confirmation)?;
                let result = touched(conn, at)?;
                enqueue_all(conn, &result, webhook_events::of_confirmed(&result)?)?;
            }
            Step::Dispute { version, player } => {
                let dispute = copy
                    .disputes
                    .iter()
                    .find(|d| (d.version, d.player_id) == (version, player))
                    .ok_or_else(|| ApiError::internal("a planned dispute is gone"))?;
                dispute_at(conn, at, dispute)?;
                let result = touched(conn, at)?;
                enqueue_all(conn, &result, webhook_events::of_disputed(&result)?)?;
            }
        }
    }
    Ok(())
}

/// The table's result, given the next change number.
fn touched(
    conn: &mut PgConnection,
    (event_id, round, table): (Uuid, u32, u32),
) -> Result<catan_api::TableResult, ApiError> {
    store::touch(conn, event_id, round, table)?;
    store::current(conn, event_id, round, table)?
        .ok_or_else(|| ApiError::internal("result vanished"))
}
