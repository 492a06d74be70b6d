//! A season's views brought up to date: its members and their people read, its table and
//! qualified players computed (`views`) and stored as served, its stale mark cleared.

use super::store;
use super::views::{Computed, Member, Person, ServedRow, compute};
use crate::ratings::survivors;
use crate::schema::ranking::{players, season_rows, season_views, seasons};
use catan_api::{SeasonQualification, SeasonScoring};
use catan_domain::season::validate_scoring;
use catan_kit::ApiError;
use catan_kit::conditional::etag_of;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

#[derive(QueryableByName)]
struct MemberRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    event: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    input: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    as_of: Option<DateTime<Utc>>,
}

/// A season's events in play order (first day, then id), with their season inputs.
fn members(conn: &mut PgConnection, season_id: Uuid) -> Result<Vec<Member>, ApiError> {
    let rows: Vec<MemberRow> = diesel::sql_query(
        "SELECT e.body::text AS event, i.body::text AS input, i.as_of FROM season_events se \
         JOIN events e ON e.id = se.event_id LEFT JOIN season_inputs i ON i.event_id = se.event_id \
         WHERE se.season_id = $1 ORDER BY e.starts_on, e.id",
    )
    .bind::<diesel::sql_types::Uuid, _>(season_id)
    .load(conn)?;
    rows.into_iter()
        .map(|row| {
            // Parsed once, straight from the JSON text.
            Ok(Member {
                event: serde_json::from_str(&row.event).map_err(ApiError::internal)?,
                input: row
                    .input
                    .as_deref()
                    .map(serde_json::from_str)
                    .transpose()
                    .map_err(ApiError::internal)?,
                as_of: row.as_of,
            })
        })
        .collect()
}

/// Computes a season's views and stores them, then clears its stale mark unless a change marked
/// it again meanwhile. One replica computes a season at a time.
pub fn refresh(conn: &mut PgConnection, season_id: Uuid, marked: i64) -> Result<(), ApiError> {
    catan_kit::db::commit_without_flush(conn)?;
    diesel::sql_query(
        "SELECT pg_advisory_xact_lock(hashtextextended('ranking.season ' || $1::text, 0))",
    )
    .bind::<diesel::sql_types::Uuid, _>(season_id)
    .execute(conn)?;
    // Before anything the table is computed from: all of it is at least this recent.
    let read = store::inputs_through(conn, season_id)?;
    type Config = (serde_json::Value, Option<serde_json::Value>, DateTime<Utc>);
    let config: Option<Config> = seasons::table
        .find(season_id)
        .select((
            seasons::scoring,
            seasons::qualification,
            seasons::changed_at,
        ))
        .first(conn)
        .optional()?;
    let Some((scoring, qualification, changed_at)) = config else {
        return store::unmark(conn, season_id, marked, read);
    };
    let scoring: SeasonScoring = serde_json::from_value(scoring).map_err(ApiError::internal)?;
    let scoring = validate_scoring(&scoring)
        .map_err(|broken| ApiError::internal(format!("a stored season breaks {broken:?}")))?;
    let qualification: Option<SeasonQualification> = qualification
        .map(serde_json::from_value)
        .transpose()
        .map_err(ApiError::internal)?;
    let clock = std::time::Instant::now();
    let members = members(conn, season_id)?;
    let survivor = survivors(conn)?;
    let canonical = |p: Uuid| survivor.get(&p).copied().unwrap_or(p);
    let declined: HashSet<Uuid> = store::declined(conn, season_id)?
        .into_iter()
        .map(canonical)
        .collect();
    let listed: Vec<Uuid> = members
        .iter()
        .filter_map(|m| m.input.as_ref())
        .flat_map(|i| {
            i.placements.iter().map(|(p, _)| *p).chain(
                i.games
                    .iter()
                    .flat_map(|g| g.seats.iter().map(|s| s.player)),
            )
        })
        .map(canonical)
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let people = people(conn, &listed)?;
    let loaded = clock.elapsed();
    let computed = compute(
        &scoring,
        qualification.as_ref(),
        &members,
        &survivor,
        &declined,
        &people,
    )?;
    let as_of = members
        .iter()
        .filter_map(|m| m.as_of)
        .fold(changed_at, DateTime::max);
    let computed_at = clock.elapsed();
    save(conn, season_id, &computed, as_of)?;
    tracing::debug!(
        %season_id,
        load_ms = loaded.as_millis(),
        compute_ms = (computed_at - loaded).as_millis(),
        save_ms = (clock.elapsed() - computed_at).as_millis(),
        "a season's views computed"
    );
    store::unmark(conn, season_id, marked, read)
}

/// The current names and regions of `ids`, read as two fields of each stored player.
fn people(conn: &mut PgConnection, ids: &[Uuid]) -> Result<HashMap<Uuid, Person>, ApiError> {
    use diesel::dsl::sql;
    use diesel::sql_types::{Nullable, Text};
    let mut people = HashMap::new();
    for chunk in ids.chunks(5000) {
        let rows: Vec<(Uuid, String, Option<String>)> = players::table
            .filter(players::id.eq_any(chunk))
            .select((
                players::id,
                sql::<Text>("body->>'name'"),
                sql::<Nullable<Text>>("body->>'region_id'"),
            ))
            .load(conn)?;
        for (id, name, region) in rows {
            let region_id = region
                .map(|r| r.parse::<Uuid>())
                .transpose()
                .map_err(ApiError::internal)?;
            people.insert(id, Person { name, region_id });
        }
    }
    Ok(people)
}

/// Replaces a season's stored views: the rows of the players whose own figures changed (found by
/// their digests), and the table's order. A result moves a few players, and shifts every row
/// between their old and new places; a row is stored without its rank, so that a shift writes
/// nothing but the order.
fn save(
    conn: &mut PgConnection,
    season_id: Uuid,
    computed: &Computed,
    as_of: DateTime<Utc>,
) -> Result<(), ApiError> {
    let mut stored: HashMap<Uuid, i64> = season_rows::table
        .filter(season_rows::season_id.eq(season_id))
        .select((season_rows::player_id, season_rows::digest))
        .load::<(Uuid, i64)>(conn)?
        .into_iter()
        .collect();
    let unranked: Vec<Unranked> = computed
        .rows
        .iter()
        .map(Unranked::of)
        .collect::<Result<_, _>>()?;
    let etag = version(&unranked, computed, as_of);
    let mut changed = RowColumns::default();
    for row in unranked {
        if stored.remove(&row.player) != Some(row.digest) {
            changed.push(row);
        }
    }
    changed.upsert(conn, season_id)?;
    // Players no longer in the table (merged into another).
    let gone: Vec<Uuid> = stored.into_keys().collect();
    if !gone.is_empty() {
        diesel::delete(
            season_rows::table
                .filter(season_rows::season_id.eq(season_id))
                .filter(season_rows::player_id.eq_any(&gone)),
        )
        .execute(conn)?;
    }
    let players: Vec<Uuid> = computed.rows.iter().map(|r| r.player).collect();
    let ranks: Vec<i32> = computed
        .rows
        .iter()
        .map(|r| i32::try_from(r.rank).map_err(ApiError::internal))
        .collect::<Result<_, _>>()?;
    let view = (
        season_views::etag.eq(&etag),
        season_views::as_of.eq(as_of),
        season_views::qualified.eq(&computed.qualified),
        season_views::players.eq(&players),
        season_views::ranks.eq(&ranks),
    );
    diesel::insert_into(season_views::table)
        .values((season_views::season_id.eq(season_id), view))
        .on_conflict(season_views::season_id)
        .do_update()
        .set(view)
        .execute(conn)?;
    Ok(())
}

/// A row as stored: its texts without the rank that leads them, and their digest.
struct Unranked<'a> {
    player: Uuid,
    region: Option<Uuid>,
    body: &'a str,
    summary: &'a str,
    csv: &'a str,
    digest: i64,
}

impl<'a> Unranked<'a> {
    fn of(row: &'a ServedRow) -> Result<Self, ApiError> {
        let json_lead = format!("{{\"rank\":{},", row.rank);
        let csv_lead = format!("{},", row.rank);
        let tail = |text: &'a str, lead: &str| {
            text.strip_prefix(lead)
                .ok_or_else(|| ApiError::internal("a season row does not begin with its rank"))
        };
        let (body, summary, csv) = (
            tail(&row.body, &json_lead)?,
            tail(&row.summary, &json_lead)?,
            tail(&row.csv, &csv_lead)?,
        );
        Ok(Unranked {
            player: row.player,
            region: row.region,
            body,
            summary,
            csv,
            digest: digest_of(row.player, row.region, [body, summary, csv]),
        })
    }
}

/// A stored row's digest: equal rows, equal digests. (Were it to differ between two builds of
/// the service, a row would only be written once more.)
fn digest_of(player: Uuid, region: Option<Uuid>, texts: [&str; 3]) -> i64 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    (player, region, texts).hash(&mut hasher);
    i64::from_ne_bytes(hasher.finish().to_ne_bytes())
}

/// Season rows to write, column by column.
#[derive(Default)]
struct RowColumns<'a> {
    players: Vec<Uuid>,
    regions: Vec<Option<Uuid>>,
    bodies: Vec<&'a str>,
    summaries: Vec<&'a str>,
    csv_lines: Vec<&'a str>,
    digests: Vec<i64>,
}

impl<'a> RowColumns<'a> {
    fn push(&mut self, row: Unranked<'a>) {
        self.players.push(row.player);
        self.regions.push(row.region);
        self.bodies.push(row.body);
        self.summaries.push(row.summary);
        self.csv_lines.push(row.csv);
        self.digests.push(row.digest);
    }

    fn upsert(&self, conn: &mut PgConnection, season_id: Uuid) -> Result<(), ApiError> {
        use diesel::sql_types::{Array, BigInt, Nullable, Text, Uuid as SqlUuid};
        if self.players.is_empty() {
            return Ok(());
        }
        diesel::sql_query(
            "INSERT INTO season_rows (season_id, player_id, region_id, body, summary, csv, digest) \
             SELECT $1, * FROM unnest($2, $3, $4, $5, $6, $7) \
             ON CONFLICT (season_id, player_id) DO UPDATE SET region_id = excluded.region_id, \
                body = excluded.body, summary = excluded.summary, csv = excluded.csv, \
                digest = excluded.digest",
        )
        .bind::<SqlUuid, _>(season_id)
        .bind::<Array<SqlUuid>, _>(&self.players)
        .bind::<Array<Nullable<SqlUuid>>, _>(&self.regions)
        .bind::<Array<Text>, _>(&self.bodies)
        .bind::<Array<Text>, _>(&self.summaries)
        .bind::<Array<Text>, _>(&self.csv_lines)
        .bind::<Array<BigInt>, _>(&self.digests)
        .execute(conn)?;
        Ok(())
    }
}

/// The views' validator: a digest of everything served.
fn version(rows: &[Unranked], computed: &Computed, as_of: DateTime<Utc>) -> String {
    // Each row's digest stands for its texts, and its place and rank for the rest of it.
    let mut all = as_of.to_rfc3339().into_bytes();
    for (row, ranked) in rows.iter().zip(&computed.rows) {
        all.extend_from_slice(&row.digest.to_le_bytes());
        all.extend_from_slice(&ranked.rank.to_le_bytes());
    }
    all.extend_from_slice(computed.qualified.as_bytes());
    etag_of(&all)
}
