//! The results schema: current results, their versions, and the change feed.

use crate::schema::results::{confirmations, disputes, result_versions, results};
use catan_api::{Dispute, OutcomeKind, ResultStatus, ScoreRecorded, Stage, TableResult, TeamScore};
use catan_kit::ApiError;
use catan_kit::db::{enum_from_text, enum_to_text};
use catan_kit::feed::{self, Cursor};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use serde::{Deserialize, Serialize};
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
        disputes: Vec::new(),
        recorded_at,
        recorded_by,
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
        )
    };
}

pub fn current(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
    table: u32,
) -> Result<Option<TableResult>, ApiError> {
    let row: Option<Row> = results::table
        .find((event_id, round as i32, table as i32))
        .select(columns!(results))
        .first(conn)
        .optional()?;
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
        .order(results::table_number)
        .select(columns!(results))
        .load(conn)?;
    annotated(conn, rows)
}

pub fn changes(
    conn: &mut PgConnection,
    event_id: Uuid,
    after_seq: i64,
    limit: i64,
) -> Result<Vec<TableResult>, ApiError> {
    let rows: Vec<Row> = results::table
        .filter(results::event_id.eq(event_id))
        .filter(results::seq.gt(after_seq))
        .order(results::seq)
        .limit(limit)
        .select(columns!(results))
        .load(conn)?;
    annotated(conn, rows)
}

/// A page of the federation-wide feed after `after`: the results of finished transactions, in the
/// order their last change committed, and the cursor of the last one.
pub fn federation_changes(
    conn: &mut PgConnection,
    after: Cursor,
    limit: i64,
) -> Result<(Vec<TableResult>, Cursor, bool), ApiError> {
    conn.build_transaction()
        .repeatable_read()
        .read_only()
        .run(|conn| federation_page(conn, after, limit))
}

/// [`federation_changes`] in one snapshot: the page, and whether committed changes wait behind a
/// transaction still in flight.
fn federation_page(
    conn: &mut PgConnection,
    after: Cursor,
    limit: i64,
) -> Result<(Vec<TableResult>, Cursor, bool), ApiError> {
    let rows: Vec<(i64, Row)> = results::table
        .filter(
            results::txid
                .gt(after.txid)
                .or(results::txid.eq(after.txid).and(results::seq.gt(after.seq))),
        )
        .filter(results::txid.lt(diesel::dsl::sql::<BigInt>(feed::FINISHED_BELOW)))
        .order((results::txid, results::seq))
        .limit(limit)
        .select((results::txid, columns!(results)))
        .load(conn)?;
    let next = rows.last().map_or(after, |(txid, row)| Cursor {
        txid: *txid,
        seq: row.6,
    });
    let held_back = diesel::select(diesel::dsl::exists(
        results::table.filter(results::txid.ge(diesel::dsl::sql::<BigInt>(feed::FINISHED_BELOW))),
    ))
    .get_result(conn)?;
    let results = annotated(conn, rows.into_iter().map(|(_, row)| row).collect())?;
    Ok((results, next, held_back))
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
pub fn record(conn: &mut PgConnection, new: NewVersion) -> Result<TableResult, ApiError> {
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
    let seq: i64 = diesel::select(nextval(CHANGE_SEQUENCE)).get_result(conn)?;
    let sheet = serde_json::to_value(new.sheet).map_err(ApiError::internal)?;
    let now = Utc::now();
    let row = (
        results::event_id.eq(new.event_id),
        results::round.eq(new.round as i32),
        results::table_number.eq(new.table as i32),
        results::stage.eq(enum_to_text(&new.stage)),
        results::round_tables.eq(new.round_tables as i32),
        results::version.eq(new.version as i32),
        results::seq.eq(seq),
        results::sheet.eq(&sheet),
        results::recorded_at.eq(now),
        results::recorded_by.eq(new.recorded_by),
    );
    diesel::insert_into(results::table)
        .values(row.clone())
        .on_conflict((results::event_id, results::round, results::table_number))
        .do_update()
        .set(row)
        .execute(conn)?;
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

/// Fills in who confirmed each result's version, the table's disputes, and so its status.
pub fn annotate(
    conn: &mut PgConnection,
    mut results: Vec<TableResult>,
) -> Result<Vec<TableResult>, ApiError> {
    let Some(event_id) = results.first().map(|r| r.event_id) else {
        return Ok(results);
    };
    let rounds: Vec<i32> = results.iter().map(|r| r.round as i32).collect();
    let confirmed: Vec<(i32, i32, i32, Uuid)> = confirmations::table
        .filter(confirmations::event_id.eq(event_id))
        .filter(confirmations::round.eq_any(&rounds))
        .select((
            confirmations::round,
            confirmations::table_number,
            confirmations::version,
            confirmations::player_id,
        ))
        .order(confirmations::confirmed_at)
        .load(conn)?;
    type DisputeRow = (i32, i32, i32, Uuid, String, DateTime<Utc>, Option<i32>);
    let disputed: Vec<DisputeRow> = disputes::table
        .filter(disputes::event_id.eq(event_id))
        .filter(disputes::round.eq_any(&rounds))
        .select((
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
    for result in &mut results {
        let (round, table) = (result.round as i32, result.table as i32);
        result.confirmed_by = confirmed
            .iter()
            .filter(|c| (c.0, c.1, c.2) == (round, table, result.version as i32))
            .map(|c| c.3)
            .collect();
        result.disputes = disputed
            .iter()
            .filter(|d| (d.0, d.1) == (round, table))
            .map(|d| Dispute {
                player_id: d.3,
                reason: d.4.clone(),
                version: d.2 as u32,
                created_at: d.5,
                resolved_by_version: d.6.map(|v| v as u32),
            })
            .collect();
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
/// status. Call it under the event's lock.
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

/// Records `player`'s confirmation of `version` of a table's result; whether it is new.
pub fn confirm(
    conn: &mut PgConnection,
    (event_id, round, table): (Uuid, u32, u32),
    version: u32,
    player: Uuid,
) -> Result<bool, ApiError> {
    let added = diesel::insert_into(confirmations::table)
        .values((
            confirmations::event_id.eq(event_id),
            confirmations::round.eq(round as i32),
            confirmations::table_number.eq(table as i32),
            confirmations::version.eq(version as i32),
            confirmations::player_id.eq(player),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(added > 0)
}

/// Records `player`'s dispute of `version` of a table's result; whether it is new (a player
/// disputes a version once).
pub fn dispute(
    conn: &mut PgConnection,
    (event_id, round, table): (Uuid, u32, u32),
    version: u32,
    player: Uuid,
    reason: &str,
) -> Result<bool, ApiError> {
    let added = diesel::insert_into(disputes::table)
        .values((
            disputes::event_id.eq(event_id),
            disputes::round.eq(round as i32),
            disputes::table_number.eq(table as i32),
            disputes::version.eq(version as i32),
            disputes::player_id.eq(player),
            disputes::reason.eq(reason),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(added > 0)
}
