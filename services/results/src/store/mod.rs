//! The results schema: current results, their versions, and the change feed.

use crate::schema::results::{confirmations, disputes, result_versions, results};
use catan_api::{
    DirectorConfirmation, Dispute, OutcomeKind, ResultStatus, ScoreRecorded, Stage, TableResult,
    TeamScore,
};
use catan_kit::ApiError;
use catan_kit::audit::AuditEntry;
use catan_kit::db::{enum_from_text, enum_to_text};
use catan_kit::feed::Cursor;
use catan_kit::idempotency::{Claim, Reply};
use catan_kit::prepared::PreparedSql;
use chrono::{DateTime, SubsecRound, Utc};
use diesel::prelude::*;
use diesel::sql_types::{
    Array, BigInt, Binary, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid,
};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use uuid::Uuid;

/// The sequence that numbers the change feed.
const CHANGE_SEQUENCE: &str = "result_seq";

diesel::define_sql_function! {
    /// PostgreSQL's `nextval`: the sequence's next number.
    fn nextval(sequence: diesel::sql_types::Text) -> diesel::sql_types::BigInt;
}

/// What the sheet column holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sheet {
    pub outcome: OutcomeKind,
    pub winner_player_id: Option<Uuid>,
    #[serde(default)]
    pub winner_entry_id: Option<Uuid>,
    pub scores: Vec<ScoreRecorded>,
    #[serde(default)]
    pub teams: Vec<TeamScore>,
}

impl Sheet {
    /// The sheet a recorded result holds.
    pub fn of(result: &TableResult) -> Sheet {
        Sheet {
            outcome: result.outcome,
            winner_player_id: result.winner_player_id,
            winner_entry_id: result.winner_entry_id,
            scores: result.scores.clone(),
            teams: result.teams.clone(),
        }
    }
}

type Row = (
    Uuid,
    i32,
    i32,
    String,
    i32,
    i32,
    i64,
    serde_json::Value,
    DateTime<Utc>,
    Uuid,
    bool,
);

fn from_row(row: Row) -> Result<TableResult, ApiError> {
    let (
        event_id,
        round,
        table,
        stage,
        round_tables,
        version,
        seq,
        sheet,
        recorded_at,
        recorded_by,
        voided,
    ) = row;
    let sheet: Sheet = serde_json::from_value(sheet).map_err(ApiError::internal)?;
    let stage = enum_from_text(&stage)?;
    Ok(TableResult {
        event_id,
        round: round as u32,
        table: table as u32,
        stage,
        version: version as u32,
        seq,
        round_tables: round_tables as u32,
        outcome: sheet.outcome,
        winner_player_id: sheet.winner_player_id,
        winner_entry_id: sheet.winner_entry_id,
        scores: sheet.scores,
        teams: sheet.teams,
        // Filled in by `annotate`.
        status: ResultStatus::Posted,
        confirmed_by: Vec::new(),
        confirmed_by_director: Vec::new(),
        disputes: Vec::new(),
        recorded_at,
        recorded_by,
        voided,
    })
}

macro_rules! columns {
    ($t:ident) => {
        (
            $t::event_id,
            $t::round,
            $t::table_number,
            $t::stage,
            $t::round_tables,
            $t::version,
            $t::seq,
            $t::sheet,
            $t::recorded_at,
            $t::recorded_by,
            $t::voided,
        )
    };
}

// After `columns!`, which they use.
mod feeds;
mod firsts;
mod signatures;
pub mod venue_results;

pub use feeds::changes;
pub use firsts::{First, FirstRecorded, record_first, record_firsts};
pub use signatures::{confirm, dispute};

/// Whether any table of the event's round `round` has a result (voided ones are none): from then
/// on the round can be neither redrawn nor changed by hand.
pub fn round_has_result(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
) -> Result<bool, ApiError> {
    use crate::schema::results::results::dsl;
    let round = i32::try_from(round).map_err(|_| ApiError::NotFound("no such round".into()))?;
    Ok(diesel::select(diesel::dsl::exists(
        dsl::results
            .filter(dsl::event_id.eq(event_id))
            .filter(dsl::round.eq(round))
            .filter(dsl::voided.eq(false)),
    ))
    .get_result(conn)?)
}

/// A table's result; none when it has none (never recorded, or voided).
pub fn current(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
    table: u32,
) -> Result<Option<TableResult>, ApiError> {
    Ok(current_row(conn, (event_id, round, table), false)?.filter(|r| !r.voided))
}

/// [`current`], holding the table's row until the transaction ends: the writes of one table
/// (a correction, a confirmation) wait for each other, and no other table's do.
pub fn current_locked(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
    table: u32,
) -> Result<Option<TableResult>, ApiError> {
    Ok(latest_locked(conn, (event_id, round, table))?.filter(|r| !r.voided))
}

/// The table's latest version, voided or not, holding its row until the transaction ends.
pub fn latest_locked(
    conn: &mut PgConnection,
    table: (Uuid, u32, u32),
) -> Result<Option<TableResult>, ApiError> {
    current_row(conn, table, true)
}

/// Voids version `version` of a table's result, which the caller holds ([`latest_locked`]): the
/// table has no result from now on; the version stays in the history, marked, and the change
/// feed carries the void. The voided result.
pub fn void(
    conn: &mut PgConnection,
    (event_id, round, table): (Uuid, u32, u32),
    version: u32,
) -> Result<TableResult, ApiError> {
    let key = (event_id, round as i32, table as i32);
    diesel::update(results::table.find(key))
        .set((
            results::voided.eq(true),
            results::seq.eq(nextval(CHANGE_SEQUENCE)),
        ))
        .execute(conn)?;
    diesel::update(result_versions::table.find((key.0, key.1, key.2, version as i32)))
        .set(result_versions::voided.eq(true))
        .execute(conn)?;
    current_row(conn, (event_id, round, table), false)?
        .ok_or_else(|| ApiError::internal("result vanished"))
}

fn current_row(
    conn: &mut PgConnection,
    (event_id, round, table): (Uuid, u32, u32),
    locked: bool,
) -> Result<Option<TableResult>, ApiError> {
    let query = results::table
        .find((event_id, round as i32, table as i32))
        .select(columns!(results));
    let row: Option<Row> = if locked {
        query.for_update().first(conn).optional()?
    } else {
        query.first(conn).optional()?
    };
    Ok(annotated(conn, row.into_iter().collect())?.pop())
}

/// The results the rows hold, with their confirmations and disputes.
fn annotated(conn: &mut PgConnection, rows: Vec<Row>) -> Result<Vec<TableResult>, ApiError> {
    let results = rows
        .into_iter()
        .map(from_row)
        .collect::<Result<Vec<_>, _>>()?;
    annotate(conn, results)
}

pub fn of_round(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
) -> Result<Vec<TableResult>, ApiError> {
    let rows: Vec<Row> = results::table
        .filter(results::event_id.eq(event_id))
        .filter(results::round.eq(round as i32))
        .filter(results::voided.eq(false))
        .order(results::table_number)
        .select(columns!(results))
        .load(conn)?;
    annotated(conn, rows)
}

pub fn history(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
    table: u32,
) -> Result<Vec<TableResult>, ApiError> {
    let rows: Vec<Row> = result_versions::table
        .filter(result_versions::event_id.eq(event_id))
        .filter(result_versions::round.eq(round as i32))
        .filter(result_versions::table_number.eq(table as i32))
        .order(result_versions::version)
        .select(columns!(result_versions))
        .load(conn)?;
    annotated(conn, rows)
}

pub struct NewVersion<'a> {
    pub event_id: Uuid,
    pub round: u32,
    pub table: u32,
    pub stage: Stage,
    pub round_tables: u32,
    pub version: u32,
    pub sheet: &'a Sheet,
    pub recorded_by: Uuid,
}

/// Records a version: the current result and its history row, with the next change number.
/// Call it holding the table's row ([`current_locked`]) when the table has a result.
pub fn record(conn: &mut PgConnection, new: NewVersion) -> Result<TableResult, ApiError> {
    record_at(conn, new, Utc::now())
}

/// [`record`], of a version recorded at `now` (a venue's, taken in with its time).
pub fn record_at(
    conn: &mut PgConnection,
    new: NewVersion,
    now: DateTime<Utc>,
) -> Result<TableResult, ApiError> {
    // A director's correction resolves the table's open disputes.
    diesel::update(
        disputes::table
            .filter(disputes::event_id.eq(new.event_id))
            .filter(disputes::round.eq(new.round as i32))
            .filter(disputes::table_number.eq(new.table as i32))
            .filter(disputes::resolved_by_version.is_null()),
    )
    .set(disputes::resolved_by_version.eq(new.version as i32))
    .execute(conn)?;
    let sheet = serde_json::to_value(new.sheet).map_err(ApiError::internal)?;
    let row = (
        results::event_id.eq(new.event_id),
        results::round.eq(new.round as i32),
        results::table_number.eq(new.table as i32),
        results::stage.eq(enum_to_text(&new.stage)),
        results::round_tables.eq(new.round_tables as i32),
        results::version.eq(new.version as i32),
        results::sheet.eq(&sheet),
        results::recorded_at.eq(now),
        results::recorded_by.eq(new.recorded_by),
        results::voided.eq(false),
    );
    let seq: i64 = diesel::insert_into(results::table)
        .values((row.clone(), results::seq.eq(nextval(CHANGE_SEQUENCE))))
        .on_conflict((results::event_id, results::round, results::table_number))
        .do_update()
        .set((row, results::seq.eq(nextval(CHANGE_SEQUENCE))))
        .returning(results::seq)
        .get_result(conn)?;
    diesel::insert_into(result_versions::table)
        .values((
            result_versions::event_id.eq(new.event_id),
            result_versions::round.eq(new.round as i32),
            result_versions::table_number.eq(new.table as i32),
            result_versions::version.eq(new.version as i32),
            result_versions::stage.eq(enum_to_text(&new.stage)),
            result_versions::round_tables.eq(new.round_tables as i32),
            result_versions::seq.eq(seq),
            result_versions::sheet.eq(&sheet),
            result_versions::recorded_at.eq(now),
            result_versions::recorded_by.eq(new.recorded_by),
        ))
        .execute(conn)?;
    current(conn, new.event_id, new.round, new.table)?
        .ok_or_else(|| ApiError::internal("result vanished"))
}

/// Fills in who confirmed each result's version, the table's disputes, and so its status. The
/// results may be of several events (a page of the federation's feed).
pub fn annotate(
    conn: &mut PgConnection,
    mut results: Vec<TableResult>,
) -> Result<Vec<TableResult>, ApiError> {
    if results.is_empty() {
        return Ok(results);
    }
    let mut events: Vec<Uuid> = results.iter().map(|r| r.event_id).collect();
    events.sort_unstable();
    events.dedup();
    let mut rounds: Vec<i32> = results.iter().map(|r| r.round as i32).collect();
    rounds.sort_unstable();
    rounds.dedup();
    type Table = (Uuid, i32, i32);
    type ConfirmationRow = (Uuid, i32, i32, i32, Uuid, DateTime<Utc>, Option<Uuid>);
    let confirmed: Vec<ConfirmationRow> = confirmations::table
        .filter(confirmations::event_id.eq_any(&events))
        .filter(confirmations::round.eq_any(&rounds))
        .select((
            confirmations::event_id,
            confirmations::round,
            confirmations::table_number,
            confirmations::version,
            confirmations::player_id,
            confirmations::confirmed_at,
            confirmations::on_behalf_by,
        ))
        .order(confirmations::confirmed_at)
        .load(conn)?;
    let mut confirmed_by: HashMap<(Table, i32), Vec<Uuid>> = HashMap::new();
    let mut by_director: HashMap<(Table, i32), Vec<DirectorConfirmation>> = HashMap::new();
    for (event, round, table, version, player, confirmed_at, on_behalf_by) in confirmed {
        let at = ((event, round, table), version);
        confirmed_by.entry(at).or_default().push(player);
        if let Some(by) = on_behalf_by {
            by_director
                .entry(at)
                .or_default()
                .push(DirectorConfirmation {
                    player_id: player,
                    by,
                    confirmed_at,
                });
        }
    }
    type DisputeRow = (
        Uuid,
        i32,
        i32,
        i32,
        Uuid,
        String,
        DateTime<Utc>,
        Option<i32>,
    );
    let disputed: Vec<DisputeRow> = disputes::table
        .filter(disputes::event_id.eq_any(&events))
        .filter(disputes::round.eq_any(&rounds))
        .select((
            disputes::event_id,
            disputes::round,
            disputes::table_number,
            disputes::version,
            disputes::player_id,
            disputes::reason,
            disputes::created_at,
            disputes::resolved_by_version,
        ))
        .order(disputes::created_at)
        .load(conn)?;
    let mut disputes_of: HashMap<Table, Vec<Dispute>> = HashMap::new();
    for (event, round, table, version, player_id, reason, created_at, resolved_by) in disputed {
        disputes_of
            .entry((event, round, table))
            .or_default()
            .push(Dispute {
                player_id,
                reason,
                version: version as u32,
                created_at,
                resolved_by_version: resolved_by.map(|v| v as u32),
            });
    }
    for result in &mut results {
        let table = (result.event_id, result.round as i32, result.table as i32);
        result.confirmed_by = confirmed_by
            .remove(&(table, result.version as i32))
            .unwrap_or_default();
        result.confirmed_by_director = by_director
            .remove(&(table, result.version as i32))
            .unwrap_or_default();
        result.disputes = disputes_of.get(&table).cloned().unwrap_or_default();
        result.status = status_of(result);
    }
    Ok(results)
}

/// An open dispute outweighs everything; then every seated player's confirmation; then the
/// director's correction of a dispute.
fn status_of(result: &TableResult) -> ResultStatus {
    if result
        .disputes
        .iter()
        .any(|d| d.resolved_by_version.is_none())
    {
        ResultStatus::Disputed
    } else if result
        .scores
        .iter()
        .all(|s| result.confirmed_by.contains(&s.player_id))
    {
        ResultStatus::Confirmed
    } else if result
        .disputes
        .iter()
        .any(|d| d.resolved_by_version == Some(result.version))
    {
        ResultStatus::Resolved
    } else {
        ResultStatus::Posted
    }
}

/// Gives a table's result the next change number, so that readers of the feed see its new
/// status. Call it holding the table's row ([`current_locked`]).
pub fn touch(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
    table: u32,
) -> Result<(), ApiError> {
    diesel::update(results::table.find((event_id, round as i32, table as i32)))
        .set(results::seq.eq(nextval(CHANGE_SEQUENCE)))
        .execute(conn)?;
    Ok(())
}
