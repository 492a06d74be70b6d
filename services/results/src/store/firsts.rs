//! Tables' first sheets, recorded together in one statement with everything a write records.

use super::*;

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

/// [`record_firsts`]' statement: each sheet's result unless its table has one, its key was used
/// (at any age: an expired key is taken over by the transaction's path) or its event is checked
/// out to a venue, then, for what was
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
      -- Nothing for an event checked out to a venue (issue 34; its request is then refused in a
      -- transaction). FOR SHARE waits for a checkout being told: see catan_kit::checkouts.
      AND (SELECT 1 FROM event_checkouts checked_out
           WHERE checked_out.event_id = claim.event_id FOR SHARE) IS NULL
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
        voided: false,
    };
    result.status = status_of(&result);
    result
}
