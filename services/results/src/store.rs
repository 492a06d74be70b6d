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
/// A page of a results feed, as its routes answer it.
pub struct FeedPage {
    pub items: Vec<TableResult>,
    pub next: Cursor,
    pub held_back: bool,
    /// The last transaction the page completes ([`feed::read_through`]).
    pub read_through: u64,
}

impl FeedPage {
    pub fn answer(self) -> catan_api::ResultChanges {
        catan_api::ResultChanges {
            items: self.items,
            next: self.next.to_string(),
            held_back: self.held_back,
            position: catan_api::Position::of(catan_api::Producer::Results, self.read_through)
                .to_string(),
        }
    }
}

pub fn changes(
    conn: &mut PgConnection,
    event_id: Option<Uuid>,
    after: Cursor,
    limit: i64,
) -> Result<FeedPage, ApiError> {
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
) -> Result<FeedPage, ApiError> {
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
    let full = i64::try_from(rows.len()).is_ok_and(|n| n >= limit);
    let txid = |t: i64| u64::try_from(t).unwrap_or_default();
    let read_through = feed::read_through(
        full,
        rows.last().map(|(last, _)| txid(*last)),
        txid(in_flight_from),
    );
    let items = annotated(conn, rows.into_iter().map(|(_, row)| row).collect())?;
    Ok(FeedPage {
        items,
        next,
        held_back,
        read_through,
    })
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

/// A table's first sheet as [`record_firsts`] takes it: its version 1, the request's
/// `Idempotency-Key` (`claim`) and its audit record (`audit`, for a write outside a transaction).
pub struct First<'a> {
    pub new: NewVersion<'a>,
    pub claim: Option<&'a Claim>,
    pub audit: Option<&'a AuditEntry>,
}

/// Records tables' first results, each with its history row, the webhook events that announce it,
/// its request's key with its answer and its audit record, in one statement outside any
/// transaction: each sheet whose table has no result yet and whose key was never used. For each
/// sheet, in order: the result as recorded, or `None` when nothing was written for it (the caller
/// then decides in a transaction). `announced` are written with the result's change number in
/// their `seq`, where they have one; `reply` is the answer the key keeps, given the result.
///
/// The sheets must be of distinct tables and carry distinct keys: the statement checks each
/// against what was committed before it, not against the other sheets it holds.
pub fn record_firsts(
    conn: &mut PgConnection,
    firsts: &[First<'_>],
    announced: impl Fn(&TableResult) -> Result<Vec<crate::webhook_events::Announcement>, ApiError>,
    reply: impl Fn(&TableResult) -> Result<Reply, ApiError>,
) -> Result<Vec<Option<FirstRecorded>>, ApiError> {
    #[derive(QueryableByName)]
    struct Recorded {
        #[diesel(sql_type = BigInt)]
        n: i64,
        #[diesel(sql_type = BigInt)]
        seq: i64,
        #[diesel(sql_type = BigInt)]
        txid: i64,
    }
    let mut sheets = FirstColumns::default();
    let mut announcements = AnnouncementColumns::default();
    let mut audits = AuditColumns::default();
    let mut results = Vec::with_capacity(firsts.len());
    for (n, first) in (1_i64..).zip(firsts) {
        // As PostgreSQL keeps it, so that the answer is what a read gives later.
        let recorded_at = Utc::now().trunc_subsecs(6);
        let result = first_version(&first.new, recorded_at);
        for announcement in announced(&result)? {
            announcements.push(n, announcement);
        }
        let kept_reply = match first.claim {
            Some(_) => Some(Claim::stored(&reply(&result)?)),
            None => None,
        };
        sheets.push(first, kept_reply, recorded_at)?;
        audits.push(first.audit)?;
        results.push(result);
    }
    let recorded: Vec<Recorded> = PreparedSql::new(RECORD_FIRSTS)
        .bind::<Array<Nullable<SqlUuid>>, _>(sheets.api_key_id)
        .bind::<Array<Nullable<Text>>, _>(sheets.key)
        .bind::<Array<Nullable<Binary>>, _>(sheets.request_hash)
        .bind::<Array<Nullable<Jsonb>>, _>(sheets.reply)
        .bind::<Array<SqlUuid>, _>(sheets.event_id)
        .bind::<Array<Integer>, _>(sheets.round)
        .bind::<Array<Integer>, _>(sheets.table)
        .bind::<Array<Text>, _>(sheets.stage)
        .bind::<Array<Integer>, _>(sheets.round_tables)
        .bind::<Array<Jsonb>, _>(sheets.sheet)
        .bind::<Array<Timestamptz>, _>(sheets.recorded_at)
        .bind::<Array<SqlUuid>, _>(sheets.recorded_by)
        .bind::<Array<BigInt>, _>(announcements.n)
        .bind::<Array<SqlUuid>, _>(announcements.id)
        .bind::<Array<Text>, _>(announcements.event_type)
        .bind::<Array<Jsonb>, _>(announcements.data)
        .bind::<Array<Nullable<SqlUuid>>, _>(audits.key_id)
        .bind::<Array<Nullable<Text>>, _>(audits.role)
        .bind::<Array<Nullable<Text>>, _>(audits.method)
        .bind::<Array<Nullable<Text>>, _>(audits.route)
        .bind::<Array<Nullable<Jsonb>>, _>(audits.targets)
        .bind::<Array<Nullable<Jsonb>>, _>(audits.event_ids)
        .bind::<Array<Nullable<Jsonb>>, _>(audits.region_ids)
        .load(conn)?;
    let mut seqs: HashMap<i64, (i64, i64)> = recorded
        .into_iter()
        .map(|r| (r.n, (r.seq, r.txid)))
        .collect();
    Ok((1_i64..)
        .zip(results)
        .map(|(n, mut result)| {
            seqs.remove(&n).map(|(seq, txid)| {
                result.seq = seq;
                FirstRecorded {
                    result,
                    txid: u64::try_from(txid).unwrap_or_default(),
                }
            })
        })
        .collect())
}

/// A table's first result as its statement recorded it, with the statement's transaction (the
/// write's `Catan-Position`).
#[derive(Debug, Clone)]
pub struct FirstRecorded {
    pub result: TableResult,
    pub txid: u64,
}

/// A table's first result as [`record_firsts`] records it, alone.
pub fn record_first(
    conn: &mut PgConnection,
    first: First<'_>,
    announced: impl Fn(&TableResult) -> Result<Vec<crate::webhook_events::Announcement>, ApiError>,
    reply: impl Fn(&TableResult) -> Result<Reply, ApiError>,
) -> Result<Option<FirstRecorded>, ApiError> {
    let mut recorded = record_firsts(conn, &[first], announced, reply)?;
    Ok(recorded.pop().flatten())
}

/// [`record_firsts`]' sheets, a column each, as its statement takes them.
#[derive(Default)]
struct FirstColumns {
    api_key_id: Vec<Option<Uuid>>,
    key: Vec<Option<String>>,
    request_hash: Vec<Option<Vec<u8>>>,
    reply: Vec<Option<serde_json::Value>>,
    event_id: Vec<Uuid>,
    round: Vec<i32>,
    table: Vec<i32>,
    stage: Vec<String>,
    round_tables: Vec<i32>,
    sheet: Vec<serde_json::Value>,
    recorded_at: Vec<DateTime<Utc>>,
    recorded_by: Vec<Uuid>,
}

impl FirstColumns {
    fn push(
        &mut self,
        first: &First<'_>,
        reply: Option<serde_json::Value>,
        recorded_at: DateTime<Utc>,
    ) -> Result<(), ApiError> {
        let (new, claim) = (&first.new, first.claim);
        self.api_key_id.push(claim.map(Claim::api_key_id));
        self.key.push(claim.map(|c| c.key().to_owned()));
        self.request_hash
            .push(claim.map(|c| c.request_hash().to_vec()));
        self.reply.push(reply);
        self.event_id.push(new.event_id);
        self.round
            .push(i32::try_from(new.round).map_err(ApiError::internal)?);
        self.table
            .push(i32::try_from(new.table).map_err(ApiError::internal)?);
        self.stage.push(enum_to_text(&new.stage));
        self.round_tables
            .push(i32::try_from(new.round_tables).map_err(ApiError::internal)?);
        self.sheet
            .push(serde_json::to_value(new.sheet).map_err(ApiError::internal)?);
        self.recorded_at.push(recorded_at);
        self.recorded_by.push(new.recorded_by);
        Ok(())
    }
}

/// [`record_firsts`]' webhook events, each with the number of its sheet.
#[derive(Default)]
struct AnnouncementColumns {
    n: Vec<i64>,
    id: Vec<Uuid>,
    event_type: Vec<&'static str>,
    data: Vec<serde_json::Value>,
}

impl AnnouncementColumns {
    fn push(&mut self, n: i64, announcement: crate::webhook_events::Announcement) {
        self.n.push(n);
        self.id.push(Uuid::new_v4());
        self.event_type.push(announcement.event_type.as_str());
        self.data.push(announcement.data);
    }
}

/// [`record_firsts`]' audit records, one per sheet (none for a sheet without one).
#[derive(Default)]
struct AuditColumns {
    key_id: Vec<Option<Uuid>>,
    role: Vec<Option<&'static str>>,
    method: Vec<Option<String>>,
    route: Vec<Option<String>>,
    targets: Vec<Option<serde_json::Value>>,
    event_ids: Vec<Option<serde_json::Value>>,
    region_ids: Vec<Option<serde_json::Value>>,
}

impl AuditColumns {
    fn push(&mut self, audit: Option<&AuditEntry>) -> Result<(), ApiError> {
        let ids = |ids: &[Uuid]| serde_json::to_value(ids).map_err(ApiError::internal);
        self.key_id.push(audit.map(AuditEntry::key_id));
        self.role.push(audit.map(|a| a.role().as_str()));
        self.method.push(audit.map(|a| a.method().to_owned()));
        self.route.push(audit.map(|a| a.route().to_owned()));
        self.targets.push(audit.map(AuditEntry::targets));
        self.event_ids
            .push(audit.map(|a| ids(a.event_ids())).transpose()?);
        self.region_ids
            .push(audit.map(|a| ids(a.region_ids())).transpose()?);
        Ok(())
    }
}

/// [`record_firsts`]' statement: each sheet's result unless its table has one or its key was used
/// (at any age: an expired key is taken over by the transaction's path), then, for what was
/// inserted, its history row, its webhook events, its key's record and its audit record. `n`
/// numbers the sheets from 1, in the order of the arrays.
///
/// Two requests with one key for the same table meet on the table's row: the second writes
/// nothing and is decided in a transaction, which answers the first's reply. Only a key reused at
/// the same instant for another table can record both sheets (the second without its key).
const RECORD_FIRSTS: &str = "\
WITH claim AS (
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::bytea[], $4::jsonb[], $5::uuid[], $6::int[],
                         $7::int[], $8::text[], $9::int[], $10::jsonb[], $11::timestamptz[], $12::uuid[])
        WITH ORDINALITY AS c(api_key_id, key, request_hash, reply, event_id, round, table_number,
                             stage, round_tables, sheet, recorded_at, recorded_by, n)
), recorded AS (
    INSERT INTO results (event_id, round, table_number, stage, round_tables, version, seq, sheet, recorded_at, recorded_by)
    SELECT event_id, round, table_number, stage, round_tables, 1, nextval('result_seq'), sheet, recorded_at, recorded_by
    FROM claim
    -- A scalar subquery: one index probe per sheet, where EXISTS may be planned as a hash of
    -- every key kept.
    WHERE (SELECT 1 FROM idempotency_keys kept
           WHERE kept.api_key_id = claim.api_key_id AND kept.key = claim.key LIMIT 1) IS NULL
    ON CONFLICT (event_id, round, table_number) DO NOTHING
    RETURNING event_id, round, table_number, stage, round_tables, version, seq, sheet, recorded_at, recorded_by
), mine AS (
    SELECT claim.n, claim.api_key_id, claim.key, claim.request_hash, claim.reply, recorded.event_id, recorded.seq
    FROM recorded JOIN claim USING (event_id, round, table_number)
), history AS (
    INSERT INTO result_versions (event_id, round, table_number, version, stage, round_tables, seq, sheet, recorded_at, recorded_by)
    SELECT event_id, round, table_number, version, stage, round_tables, seq, sheet, recorded_at, recorded_by FROM recorded
), announced AS (
    INSERT INTO outbox (id, event_type, event_id, payload)
    SELECT a.id, a.event_type, mine.event_id,
           CASE WHEN a.payload ? 'seq' THEN jsonb_set(a.payload, '{seq}', to_jsonb(mine.seq)) ELSE a.payload END
    FROM unnest($13::bigint[], $14::uuid[], $15::text[], $16::jsonb[]) AS a(n, id, event_type, payload)
    JOIN mine USING (n)
), kept AS (
    INSERT INTO idempotency_keys (api_key_id, key, request_hash, status, response, created_at)
    SELECT api_key_id, key, request_hash, 201,
           jsonb_set(jsonb_set(reply, '{body,seq}', to_jsonb(seq)), '{txid}',
                     to_jsonb(pg_current_xact_id()::text::bigint)),
           now()
    FROM mine WHERE api_key_id IS NOT NULL
    ON CONFLICT (api_key_id, key) DO NOTHING
), audited AS (
    INSERT INTO audit_log (id, key_id, role, method, route, targets, event_ids, region_ids, status)
    SELECT gen_random_uuid(), a.key_id, a.role, a.method, a.route, a.targets,
           ARRAY(SELECT jsonb_array_elements_text(a.event_ids)::uuid),
           ARRAY(SELECT jsonb_array_elements_text(a.region_ids)::uuid), 201
    FROM unnest($17::uuid[], $18::text[], $19::text[], $20::text[], $21::jsonb[], $22::jsonb[], $23::jsonb[])
        WITH ORDINALITY AS a(key_id, role, method, route, targets, event_ids, region_ids, n)
    JOIN mine USING (n)
    WHERE a.key_id IS NOT NULL
)
SELECT n, seq, pg_current_xact_id()::text::bigint AS txid FROM mine";

/// The first version of a table's result as [`record_firsts`] records it (its `seq` still 0): no
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
