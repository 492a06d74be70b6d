//! The seasons' tables: each season's configuration, the events joined, the places declined, the
//! events' season inputs, and the marks of the seasons whose views are to be computed again.

use super::{JoinContext, NewSeason, join_refused};
use crate::pending::{Pending, ReadThrough, least_sql, raise_sql};
use crate::ratings::survivors;
use crate::schema::ranking::{
    events, players, season_declines, season_events, season_views, seasons, seasons_stale,
};
use catan_api::{Event, Season, SeasonDecline};
use catan_domain::season::{EventScope, SeasonScope, join_refusals};
use catan_kit::ApiError;
use catan_kit::conditional::etag_of;
use chrono::{DateTime, NaiveDate, SubsecRound, Utc};
use diesel::prelude::*;
use std::collections::HashMap;
use uuid::Uuid;

/// A season's row: id, name, region, days, scoring, qualification, created.
type Row = (
    Uuid,
    String,
    Option<Uuid>,
    NaiveDate,
    NaiveDate,
    serde_json::Value,
    Option<serde_json::Value>,
    DateTime<Utc>,
);

macro_rules! season_columns {
    () => {
        (
            seasons::id,
            seasons::name,
            seasons::region_id,
            seasons::starts_on,
            seasons::ends_on,
            seasons::scoring,
            seasons::qualification,
            seasons::created_at,
        )
    };
}

fn json(value: &impl serde::Serialize) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(value).map_err(ApiError::internal)
}

fn season_of(row: Row, event_ids: Vec<Uuid>) -> Result<Season, ApiError> {
    let (id, name, region_id, starts_on, ends_on, scoring, qualification, created_at) = row;
    Ok(Season {
        id,
        name,
        region_id,
        starts_on,
        ends_on,
        scoring: serde_json::from_value(scoring).map_err(ApiError::internal)?,
        qualification: qualification
            .map(serde_json::from_value)
            .transpose()
            .map_err(ApiError::internal)?,
        event_ids,
        created_at,
    })
}

/// Stores a new season, with an empty table to serve until the follower computes it.
pub fn insert(conn: &mut PgConnection, new: &NewSeason) -> Result<Season, ApiError> {
    let id = Uuid::new_v4();
    // As the database keeps it, so that the answer and later reads agree.
    let now = Utc::now().trunc_subsecs(6);
    diesel::insert_into(seasons::table)
        .values((
            seasons::id.eq(id),
            seasons::name.eq(&new.name),
            seasons::region_id.eq(new.region_id),
            seasons::starts_on.eq(new.starts_on),
            seasons::ends_on.eq(new.ends_on),
            seasons::scoring.eq(json(&new.scoring)?),
            seasons::qualification.eq(new.qualification.as_ref().map(json).transpose()?),
            seasons::created_at.eq(now),
            seasons::changed_at.eq(now),
        ))
        .execute(conn)?;
    diesel::insert_into(season_views::table)
        .values((
            season_views::season_id.eq(id),
            season_views::etag.eq(etag_of(format!("{id} {now}").as_bytes())),
            season_views::as_of.eq(now),
            season_views::qualified.eq("[]"),
        ))
        .execute(conn)?;
    find(conn, id)?.ok_or_else(|| ApiError::internal("a season vanished as it was made"))
}

/// Each season's events, in play order (first day, then id).
fn event_ids(
    conn: &mut PgConnection,
    season_ids: &[Uuid],
) -> Result<HashMap<Uuid, Vec<Uuid>>, ApiError> {
    let rows: Vec<(Uuid, Uuid)> = season_events::table
        .inner_join(events::table.on(events::id.eq(season_events::event_id)))
        .filter(season_events::season_id.eq_any(season_ids))
        .order((season_events::season_id, events::starts_on, events::id))
        .select((season_events::season_id, season_events::event_id))
        .load(conn)?;
    let mut ids: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
    for (season, event) in rows {
        ids.entry(season).or_default().push(event);
    }
    Ok(ids)
}

/// A season, with its events.
pub fn find(conn: &mut PgConnection, id: Uuid) -> Result<Option<Season>, ApiError> {
    let row: Option<Row> = seasons::table
        .find(id)
        .select(season_columns!())
        .first(conn)
        .optional()?;
    let Some(row) = row else {
        return Ok(None);
    };
    let mut ids = event_ids(conn, &[id])?;
    season_of(row, ids.remove(&id).unwrap_or_default()).map(Some)
}

/// A page of the seasons (of one region, if given), by first day, then name, then id.
pub fn list(
    conn: &mut PgConnection,
    region: Option<Uuid>,
    (limit, offset): (i64, i64),
) -> Result<Vec<Season>, ApiError> {
    let mut query = seasons::table.select(season_columns!()).into_boxed();
    if let Some(region) = region {
        query = query.filter(seasons::region_id.eq(region));
    }
    let rows: Vec<Row> = query
        .order((seasons::starts_on, seasons::name, seasons::id))
        .limit(limit)
        .offset(offset)
        .load(conn)?;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.0).collect();
    let mut events = event_ids(conn, &ids)?;
    rows.into_iter()
        .map(|row| {
            let joined = events.remove(&row.0).unwrap_or_default();
            season_of(row, joined)
        })
        .collect()
}

/// A season's days and region, its row locked for the rest of the transaction; 404 if unknown.
fn lock(conn: &mut PgConnection, id: Uuid) -> Result<SeasonScope<NaiveDate>, ApiError> {
    let row: Option<(NaiveDate, NaiveDate, Option<Uuid>)> = seasons::table
        .find(id)
        .select((seasons::starts_on, seasons::ends_on, seasons::region_id))
        .for_update()
        .first(conn)
        .optional()?;
    let (starts_on, ends_on, region) =
        row.ok_or_else(|| ApiError::NotFound(format!("no season {id}")))?;
    Ok(SeasonScope {
        starts_on,
        ends_on,
        region,
    })
}

/// Records a change of the season itself and asks for its views again, as waiting for this
/// write.
fn touch(conn: &mut PgConnection, id: Uuid) -> Result<(), ApiError> {
    diesel::update(seasons::table.find(id))
        .set(seasons::changed_at.eq(Utc::now()))
        .execute(conn)?;
    let pending = Pending::own_write(conn)?;
    mark(conn, &[id], pending)
}

/// Joins an event ranking knows to a season, when all its days fall within the season's and,
/// for a regional season, it is of the season's region; joining again changes nothing.
pub fn join(conn: &mut PgConnection, season_id: Uuid, event_id: Uuid) -> Result<Season, ApiError> {
    let season = lock(conn, season_id)?;
    let body: serde_json::Value = events::table
        .find(event_id)
        .select(events::body)
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::NotFound(format!("no event {event_id} is known to ranking")))?;
    let event: Event = serde_json::from_value(body).map_err(ApiError::internal)?;
    let scope = EventScope {
        starts_on: event.starts_on,
        ends_on: event.ends_on,
        region: event.region_id,
    };
    join_refused(
        &join_refusals(&season, &scope),
        &JoinContext {
            season_starts_on: season.starts_on,
            season_ends_on: season.ends_on,
            season_region: season.region,
            event_starts_on: scope.starts_on,
            event_ends_on: scope.ends_on,
            event_region: scope.region,
        },
    )?;
    let added = diesel::insert_into(season_events::table)
        .values((
            season_events::season_id.eq(season_id),
            season_events::event_id.eq(event_id),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    if added > 0 {
        touch(conn, season_id)?;
    }
    find(conn, season_id)?.ok_or_else(|| ApiError::internal("a season vanished"))
}

/// Takes an event out of a season; taking out one that is not in it changes nothing.
pub fn leave(conn: &mut PgConnection, season_id: Uuid, event_id: Uuid) -> Result<Season, ApiError> {
    lock(conn, season_id)?;
    let removed = diesel::delete(season_events::table.find((season_id, event_id))).execute(conn)?;
    if removed > 0 {
        touch(conn, season_id)?;
    }
    find(conn, season_id)?.ok_or_else(|| ApiError::internal("a season vanished"))
}

/// Records that a player (a merged identity: his survivor) declines his place in a season, so
/// that it passes down; declining again changes nothing.
pub fn decline(
    conn: &mut PgConnection,
    season_id: Uuid,
    player_id: Uuid,
) -> Result<SeasonDecline, ApiError> {
    lock(conn, season_id)?;
    let known: Option<Uuid> = players::table
        .find(player_id)
        .select(players::id)
        .first(conn)
        .optional()?;
    if known.is_none() {
        return Err(ApiError::NotFound(format!(
            "no player {player_id} is known to ranking"
        )));
    }
    let player = survivors(conn)?
        .get(&player_id)
        .copied()
        .unwrap_or(player_id);
    let added = diesel::insert_into(season_declines::table)
        .values((
            season_declines::season_id.eq(season_id),
            season_declines::player_id.eq(player),
            season_declines::declined_at.eq(Utc::now()),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    if added > 0 {
        touch(conn, season_id)?;
    }
    let declined_at: DateTime<Utc> = season_declines::table
        .find((season_id, player))
        .select(season_declines::declined_at)
        .first(conn)?;
    Ok(SeasonDecline {
        season_id,
        player_id: player,
        declined_at,
    })
}

/// The players who declined a place in a season.
pub fn declined(conn: &mut PgConnection, season_id: Uuid) -> Result<Vec<Uuid>, ApiError> {
    Ok(season_declines::table
        .filter(season_declines::season_id.eq(season_id))
        .select(season_declines::player_id)
        .load(conn)?)
}

/// Marks the seasons `select` finds (its first column, its parameter `$4` if any) for new views,
/// as waiting for `pending` (`$1` to `$3`).
fn mark_seasons(
    conn: &mut PgConnection,
    select: &str,
    pending: Pending,
    id: Option<Uuid>,
    ids: &[Uuid],
) -> Result<(), ApiError> {
    use diesel::sql_types::{Array, BigInt, Nullable, Uuid as SqlUuid};
    diesel::sql_query(format!(
        "INSERT INTO seasons_stale \
            (season_id, pending_registration, pending_results, pending_ranking) \
         SELECT s.id, $1, $2, $3 FROM ({select}) AS s(id) \
         ON CONFLICT (season_id) DO UPDATE SET marked = nextval('seasons_stale_marked_seq'), {}",
        least_sql("seasons_stale", &["registration", "results", "ranking"])
    ))
    .bind::<Nullable<BigInt>, _>(pending.registration)
    .bind::<Nullable<BigInt>, _>(pending.results)
    .bind::<Nullable<BigInt>, _>(pending.ranking)
    .bind::<Nullable<SqlUuid>, _>(id)
    .bind::<Array<SqlUuid>, _>(ids)
    .execute(conn)?;
    Ok(())
}

/// Asks for new views of `season_ids`.
pub fn mark(
    conn: &mut PgConnection,
    season_ids: &[Uuid],
    pending: Pending,
) -> Result<(), ApiError> {
    mark_seasons(
        conn,
        "SELECT DISTINCT unnest($5::uuid[])",
        pending,
        None,
        season_ids,
    )
}

/// Asks for new views of every season (a merge moves a player's history onto another).
pub fn mark_all(conn: &mut PgConnection, pending: Pending) -> Result<(), ApiError> {
    mark_seasons(conn, "SELECT id FROM seasons", pending, None, &[])
}

/// Asks for new views of the seasons whose table lists `player` (his name or region changed).
pub fn mark_for_player(
    conn: &mut PgConnection,
    player: Uuid,
    pending: Pending,
) -> Result<(), ApiError> {
    mark_seasons(
        conn,
        "SELECT DISTINCT season_id FROM season_rows WHERE player_id = $4",
        pending,
        Some(player),
        &[],
    )
}

/// Asks for new views of the seasons that hold `event_id` (its name or days, or its results).
pub fn mark_for_event(
    conn: &mut PgConnection,
    event_id: Uuid,
    pending: Pending,
) -> Result<(), ApiError> {
    mark_seasons(
        conn,
        "SELECT season_id FROM season_events WHERE event_id = $4",
        pending,
        Some(event_id),
        &[],
    )
}

/// Stores what the seasons need of an event, computed with its views; when it changed, asks for
/// new views of the seasons that hold the event, as waiting for what the event's views waited
/// for (`pending`).
pub fn store_input(
    conn: &mut PgConnection,
    event_id: Uuid,
    input: &str,
    as_of: DateTime<Utc>,
    pending: Pending,
) -> Result<(), ApiError> {
    // Raw SQL: diesel's upsert cannot put a WHERE on its DO UPDATE.
    let changed = diesel::sql_query(
        "INSERT INTO season_inputs (event_id, body, as_of) VALUES ($1, $2, $3) \
         ON CONFLICT (event_id) DO UPDATE SET body = excluded.body, as_of = excluded.as_of \
         WHERE season_inputs.body <> excluded.body",
    )
    .bind::<diesel::sql_types::Uuid, _>(event_id)
    .bind::<diesel::sql_types::Text, _>(input)
    .bind::<diesel::sql_types::Timestamptz, _>(as_of)
    .execute(conn)?;
    if changed > 0 {
        mark_for_event(conn, event_id, pending)?;
    }
    Ok(())
}

/// Whether a season's table waits to be computed again.
pub fn pending(conn: &mut PgConnection) -> Result<bool, ApiError> {
    Ok(diesel::select(diesel::dsl::exists(
        seasons_stale::table.select(seasons_stale::season_id),
    ))
    .get_result(conn)?)
}

/// Up to `limit` stale seasons, each with the mark that asked for it.
pub fn stale(conn: &mut PgConnection, limit: i64) -> Result<Vec<(Uuid, i64)>, ApiError> {
    Ok(seasons_stale::table
        .order(seasons_stale::marked)
        .limit(limit)
        .select((seasons_stale::season_id, seasons_stale::marked))
        .load(conn)?)
}

/// How far what a season's table is computed from reaches, read before it is: for each producer
/// ranking follows, the last transaction whose changes are all in its events' season inputs
/// (copied, and in the views of those events, whose marks wait for nothing before it); for
/// ranking's own writes, the last transaction before the oldest still in flight.
pub fn inputs_through(conn: &mut PgConnection, season_id: Uuid) -> Result<ReadThrough, ApiError> {
    #[derive(QueryableByName)]
    struct Through {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        registration: i64,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        results: i64,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        ranking: i64,
    }
    let through: Through = diesel::sql_query(
        "WITH marks AS ( \
            SELECT min(pending_registration) - 1 AS registration, min(pending_results) - 1 AS results \
            FROM stale_views WHERE event_id IN (SELECT event_id FROM season_events WHERE season_id = $1)) \
         SELECT least((SELECT read_through FROM feeds WHERE name = 'registration'), marks.registration) AS registration, \
                least((SELECT read_through FROM feeds WHERE name = 'results'), marks.results) AS results, \
                pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1 AS ranking \
         FROM marks",
    )
    .bind::<diesel::sql_types::Uuid, _>(season_id)
    .get_result(conn)?;
    Ok(ReadThrough {
        registration: through.registration,
        results: through.results,
        ranking: through.ranking,
    })
}

/// Clears a season's stale mark unless a change marked it again meanwhile: then the mark waits
/// only for what came past `read` (what the table was computed from).
pub fn unmark(
    conn: &mut PgConnection,
    season_id: Uuid,
    marked: i64,
    read: ReadThrough,
) -> Result<(), ApiError> {
    let cleared = diesel::delete(
        seasons_stale::table
            .find(season_id)
            .filter(seasons_stale::marked.eq(marked)),
    )
    .execute(conn)?;
    if cleared == 0 {
        diesel::sql_query(format!(
            "UPDATE seasons_stale SET {} WHERE season_id = $1",
            raise_sql(&["registration", "results", "ranking"], 2)
        ))
        .bind::<diesel::sql_types::Uuid, _>(season_id)
        .bind::<diesel::sql_types::BigInt, _>(read.registration)
        .bind::<diesel::sql_types::BigInt, _>(read.results)
        .bind::<diesel::sql_types::BigInt, _>(read.ranking)
        .execute(conn)?;
    }
    Ok(())
}

/// Whether ranking knows the player `player_id` (yet).
pub fn knows_player(conn: &mut PgConnection, player_id: Uuid) -> Result<Option<()>, ApiError> {
    Ok(players::table
        .find(player_id)
        .select(players::id)
        .first::<Uuid>(conn)
        .optional()?
        .map(|_| ()))
}

/// The region of the event `event_id` as ranking knows it (`Some(None)`: of no region), or
/// `None` when ranking does not know it (yet).
pub fn event_region(
    conn: &mut PgConnection,
    event_id: Uuid,
) -> Result<Option<Option<Uuid>>, ApiError> {
    let body: Option<serde_json::Value> = events::table
        .find(event_id)
        .select(events::body)
        .first(conn)
        .optional()?;
    body.map(|body| {
        serde_json::from_value::<Event>(body)
            .map(|event| event.region_id)
            .map_err(ApiError::internal)
    })
    .transpose()
}
