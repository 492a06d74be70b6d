//! The results schema: current results, their versions, and the change feed.

use crate::schema::results::{confirmations, disputes, result_versions, results};
use catan_api::{
    DirectorConfirmation, Dispute, OutcomeKind, ResultStatus, ScoreRecorded, Stage, TableResult,
    TeamScore,
};
use catan_kit::ApiError;
use catan_kit::audit::AuditEntry;
use catan_kit::db::{enum_from_text, enum_to_text};
use catan_kit::feed::{self, Cursor};
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
        confirmed_by_director: Vec::new(),
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
    current_row(conn, (event_id, round, table), false)
}

/// [`current`], holding the table's row until the transaction ends: the writes of one table
/// (a correction, a confirmation) wait for each other, and no other table's do.
pub fn current_locked(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
    table: u32,
) -> Result<Option<TableResult>, ApiError> {
    current_row(conn, (event_id, round, table), true)
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
        .order(results::table_number)
        .select(columns!(results))
        .load(conn)?;
    annotated(conn, rows)
}

/// A page of a change feed after `after`: the results of finished transactions (of one event, or
/// of every event), in the order their last change committed; the cursor of the last one; and
/// whether committed changes wait behind a transaction still in flight.
pub fn changes(
    conn: &mut PgConnection,
    event_id: Option<Uuid>,
    after: Cursor,
    limit: i64,
) -> Result<(Vec<TableResult>, Cursor, bool), ApiError> {
    conn.build_transaction()
        .repeatable_read()
        .read_only()
        .run(|conn| changes_in_one_snapshot(conn, event_id, after, limit))
}

fn changes_in_one_snapshot(
    conn: &mut PgConnection,
    event_id: Option<Uuid>,
    after: Cursor,
    limit: i64,
) -> Result<(Vec<TableResult>, Cursor, bool), ApiError> {
    let finished_below = || diesel::dsl::sql::<BigInt>(feed::FINISHED_BELOW);
    // (txid, seq) > after: the `txid >= after` half lets the index start at the cursor.
    let mut page = results::table
        .filter(results::txid.ge(after.txid))
        .filter(
            results::txid
                .gt(after.txid)
                .or(results::txid.eq(after.txid).and(results::seq.gt(after.seq))),
        )
        .filter(results::txid.lt(finished_below()))
        .order((results::txid, results::seq))
        .limit(limit)
        .select((results::txid, columns!(results)))
        .into_boxed();
    // Whether the newest change is of a transaction still in flight, by the index's last entry:
    // an `EXISTS` over `txid >= xmin` is planned as a scan of every result, found empty only at
    // its end.
    let mut newest = results::table
        .select(results::txid)
        .order(results::txid.desc())
        .into_boxed();
    if let Some(event_id) = event_id {
        page = page.filter(results::event_id.eq(event_id));
        newest = newest.filter(results::event_id.eq(event_id));
    }
    let rows: Vec<(i64, Row)> = page.load(conn)?;
    let next = rows.last().map_or(after, |(txid, row)| Cursor {
        txid: *txid,
        seq: row.6,
    });
    let newest: Option<i64> = newest.first(conn).optional()?;
    let in_flight_from: i64 = diesel::select(finished_below()).get_result(conn)?;
    let held_back = newest.is_some_and(|txid| txid >= in_flight_from);
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
/// Call it holding the table's row ([`current_locked`]) when the table has a result.
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
    let sheet = serde_json::to_value(new.sheet).map_err(ApiError::internal)?;
    let now = Utc::now();
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

/// Records a table's first result, its history row, the webhook events that announce it and the
/// request's `Idempotency-Key` (`claim`) with its answer, in one statement outside any
/// transaction, if the table has no result yet and the key was never used: the result as
/// recorded, or `None` when nothing was written (the caller then decides in a transaction).
/// `announced` are written with the result's change number in their `seq`, where they have one;
/// `reply` is the answer the key keeps, given the result.
pub fn record_first(
    conn: &mut PgConnection,
    new: NewVersion,
    claim: Option<&Claim>,
    audit: Option<&AuditEntry>,
    announced: impl Fn(&TableResult) -> Result<Vec<crate::webhook_events::Announcement>, ApiError>,
    reply: impl Fn(&TableResult) -> Result<Reply, ApiError>,
) -> Result<Option<TableResult>, ApiError> {
    #[derive(QueryableByName)]
    struct Recorded {
        #[diesel(sql_type = BigInt)]
        seq: i64,
    }
    // As PostgreSQL keeps it, so that the answer is what a read gives later.
    let recorded_at = Utc::now().trunc_subsecs(6);
    let mut result = first_version(&new, recorded_at);
    let announced = announced(&result)?;
    let kept_reply = match claim {
        Some(_) => Some(Claim::stored(&reply(&result)?)),
        None => None,
    };
    let sheet = serde_json::to_value(new.sheet).map_err(ApiError::internal)?;
    let ids: Vec<Uuid> = announced.iter().map(|_| Uuid::new_v4()).collect();
    let types: Vec<&str> = announced.iter().map(|a| a.event_type.as_str()).collect();
    let data: Vec<serde_json::Value> = announced.into_iter().map(|a| a.data).collect();
    let recorded: Option<Recorded> = PreparedSql::new(RECORD_FIRST)
        .bind::<Nullable<SqlUuid>, _>(claim.map(Claim::api_key_id))
        .bind::<Nullable<Text>, _>(claim.map(|c| c.key().to_owned()))
        .bind::<Nullable<Binary>, _>(claim.map(|c| c.request_hash().to_vec()))
        .bind::<Nullable<Jsonb>, _>(kept_reply)
        .bind::<SqlUuid, _>(new.event_id)
        .bind::<Integer, _>(new.round as i32)
        .bind::<Integer, _>(new.table as i32)
        .bind::<Text, _>(enum_to_text(&new.stage))
        .bind::<Integer, _>(new.round_tables as i32)
        .bind::<Jsonb, _>(sheet)
        .bind::<Timestamptz, _>(recorded_at)
        .bind::<SqlUuid, _>(new.recorded_by)
        .bind::<Array<SqlUuid>, _>(ids)
        .bind::<Array<Text>, _>(types)
        .bind::<Array<Jsonb>, _>(data)
        .bind::<Nullable<SqlUuid>, _>(audit.map(AuditEntry::key_id))
        .bind::<Nullable<Text>, _>(audit.map(|a| a.role().as_str()))
        .bind::<Nullable<Text>, _>(audit.map(|a| a.method().to_owned()))
        .bind::<Nullable<Text>, _>(audit.map(|a| a.route().to_owned()))
        .bind::<Nullable<Jsonb>, _>(audit.map(AuditEntry::targets))
        .bind::<Nullable<Array<SqlUuid>>, _>(audit.map(|a| a.event_ids().to_vec()))
        .bind::<Nullable<Array<SqlUuid>>, _>(audit.map(|a| a.region_ids().to_vec()))
        .get_result(conn)
        .optional()?;
    Ok(recorded.map(|recorded| {
        result.seq = recorded.seq;
        result
    }))
}

/// [`record_first`]'s statement: the result unless the table has one or the key was used (at
/// any age: an expired key is taken over by the transaction's path), then its history row, its
/// webhook events, the key's record and the audit record (when given: a write in a transaction
/// records its own) from what was inserted (nothing when nothing was).
///
/// Two requests with one key for the same table meet on the table's row: the second writes
/// nothing and is decided in a transaction, which answers the first's reply. Only a key reused at
/// the same instant for another table can record both sheets (the second without its key).
const RECORD_FIRST: &str = "\
WITH claim AS (
    SELECT $1::uuid AS api_key_id, $2::text AS key, $3::bytea AS request_hash, $4::jsonb AS reply
), recorded AS (
    INSERT INTO results (event_id, round, table_number, stage, round_tables, version, seq, sheet, recorded_at, recorded_by)
    SELECT $5, $6, $7, $8, $9, 1, nextval('result_seq'), $10, $11, $12 FROM claim
    WHERE claim.api_key_id IS NULL OR NOT EXISTS (
        SELECT 1 FROM idempotency_keys kept
        WHERE kept.api_key_id = claim.api_key_id AND kept.key = claim.key)
    ON CONFLICT (event_id, round, table_number) DO NOTHING
    RETURNING event_id, round, table_number, stage, round_tables, version, seq, sheet, recorded_at, recorded_by
), history AS (
    INSERT INTO result_versions (event_id, round, table_number, version, stage, round_tables, seq, sheet, recorded_at, recorded_by)
    SELECT event_id, round, table_number, version, stage, round_tables, seq, sheet, recorded_at, recorded_by FROM recorded
), announced AS (
    INSERT INTO outbox (id, event_type, event_id, payload)
    SELECT a.id, a.event_type, recorded.event_id,
           CASE WHEN a.payload ? 'seq' THEN jsonb_set(a.payload, '{seq}', to_jsonb(recorded.seq)) ELSE a.payload END
    FROM recorded, unnest($13::uuid[], $14::text[], $15::jsonb[]) AS a(id, event_type, payload)
), kept AS (
    INSERT INTO idempotency_keys (api_key_id, key, request_hash, status, response, created_at)
    SELECT claim.api_key_id, claim.key, claim.request_hash, 201,
           jsonb_set(claim.reply, '{body,seq}', to_jsonb(recorded.seq)), now()
    FROM claim, recorded WHERE claim.api_key_id IS NOT NULL
    ON CONFLICT (api_key_id, key) DO NOTHING
), audited AS (
    INSERT INTO audit_log (id, key_id, role, method, route, targets, event_ids, region_ids, status)
    SELECT gen_random_uuid(), $16::uuid, $17, $18, $19, $20, $21, $22, 201
    FROM recorded WHERE $16::uuid IS NOT NULL
)
SELECT seq FROM recorded";

/// The first version of a table's result as [`record_first`] records it (its `seq` still 0): no
/// one has signed or disputed it yet.
fn first_version(new: &NewVersion, recorded_at: DateTime<Utc>) -> TableResult {
    let mut result = TableResult {
        event_id: new.event_id,
        round: new.round,
        table: new.table,
        stage: new.stage,
        version: 1,
        seq: 0,
        round_tables: new.round_tables,
        outcome: new.sheet.outcome,
        winner_player_id: new.sheet.winner_player_id,
        winner_entry_id: new.sheet.winner_entry_id,
        scores: new.sheet.scores.clone(),
        teams: new.sheet.teams.clone(),
        status: ResultStatus::Posted,
        confirmed_by: Vec::new(),
        confirmed_by_director: Vec::new(),
        disputes: Vec::new(),
        recorded_at,
        recorded_by: new.recorded_by,
    };
    result.status = status_of(&result);
    result
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

/// Records `player`'s confirmation of `version` of a table's result, made by the director's API
/// key `on_behalf_by` when he made it for the player; whether it is new (a player who confirmed
/// already stays confirmed as he was).
pub fn confirm(
    conn: &mut PgConnection,
    (event_id, round, table): (Uuid, u32, u32),
    version: u32,
    player: Uuid,
    on_behalf_by: Option<Uuid>,
) -> Result<bool, ApiError> {
    let added = diesel::insert_into(confirmations::table)
        .values((
            confirmations::event_id.eq(event_id),
            confirmations::round.eq(round as i32),
            confirmations::table_number.eq(table as i32),
            confirmations::version.eq(version as i32),
            confirmations::player_id.eq(player),
            confirmations::on_behalf_by.eq(on_behalf_by),
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
