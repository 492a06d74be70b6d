//! The seasons' tables: each season's configuration, the events joined, the places declined, the
//! events' season inputs, and the marks of the seasons whose views are to be computed again.

use super::{JoinContext, NewSeason, join_refused};
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

/// Records a change of the season itself and asks for its views again.
fn touch(conn: &mut PgConnection, id: Uuid) -> Result<(), ApiError> {
    diesel::update(seasons::table.find(id))
        .set(seasons::changed_at.eq(Utc::now()))
        .execute(conn)?;
    mark(conn, &[id])
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

/// Marks seasons for new views.
fn mark_query(select: &str) -> String {
    format!(
        "INSERT INTO seasons_stale (season_id) {select} \
         ON CONFLICT (season_id) DO UPDATE SET marked = nextval('seasons_stale_marked_seq')"
    )
}

/// Asks for new views of `season_ids`.
pub fn mark(conn: &mut PgConnection, season_ids: &[Uuid]) -> Result<(), ApiError> {
    diesel::sql_query(mark_query("SELECT DISTINCT unnest($1::uuid[])"))
        .bind::<diesel::sql_types::Array<diesel::sql_types::Uuid>, _>(season_ids)
        .execute(conn)?;
    Ok(())
}

/// Asks for new views of every season (a merge moves a player's history onto another).
pub fn mark_all(conn: &mut PgConnection) -> Result<(), ApiError> {
    diesel::sql_query(mark_query("SELECT id FROM seasons")).execute(conn)?;
    Ok(())
}

/// Asks for new views of the seasons whose table lists `player` (his name or region changed).
pub fn mark_for_player(conn: &mut PgConnection, player: Uuid) -> Result<(), ApiError> {
    diesel::sql_query(mark_query(
        "SELECT DISTINCT season_id FROM season_rows WHERE player_id = $1",
    ))
    .bind::<diesel::sql_types::Uuid, _>(player)
    .execute(conn)?;
    Ok(())
}

/// Asks for new views of the seasons that hold `event_id` (its name or days changed).
pub fn mark_for_event(conn: &mut PgConnection, event_id: Uuid) -> Result<(), ApiError> {
    diesel::sql_query(mark_query(
        "SELECT season_id FROM season_events WHERE event_id = $1",
    ))
    .bind::<diesel::sql_types::Uuid, _>(event_id)
    .execute(conn)?;
    Ok(())
}

/// Stores what the seasons need of an event, computed with its views; when it changed, asks for
/// new views of the seasons that hold the event.
pub fn store_input(
    conn: &mut PgConnection,
    event_id: Uuid,
    input: &str,
    as_of: DateTime<Utc>,
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
        mark_for_event(conn, event_id)?;
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

/// Clears a season's stale mark unless a change marked it again meanwhile.
pub fn unmark(conn: &mut PgConnection, season_id: Uuid, marked: i64) -> Result<(), ApiError> {
    diesel::delete(
        seasons_stale::table
            .find(season_id)
            .filter(seasons_stale::marked.eq(marked)),
    )
    .execute(conn)?;
    Ok(())
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
