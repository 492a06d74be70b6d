//! Events and their entries: late entries, drops and exclusions by the tournament director.

use crate::State;
use crate::people_routes::{region_must_exist, valid_name};
use crate::schema::{entries, events, players};
use actix_web::{HttpResponse, get, post, web};
use catan_api::{
    CreateEntry, CreateEvent, DropEntry, Entry, EntryStatus, Event, EventFormat, Problem, Role,
    SmallFieldRule,
};
use catan_kit::ApiError;
use catan_kit::auth::Principal;
use catan_kit::db;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_event)
        .service(get_event)
        .service(create_entry)
        .service(list_entries)
        .service(drop_entry);
}

pub const DEFAULT_QUALIFYING_ROUNDS: u32 = 3;
pub const MAX_QUALIFYING_ROUNDS: i64 = 15;

/// Enums are stored as their JSON names.
fn to_text<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .expect("unit enum")
}

fn from_text<T: DeserializeOwned>(text: &str) -> Result<T, ApiError> {
    serde_json::from_value(serde_json::Value::String(text.to_string())).map_err(ApiError::internal)
}

type EventRow = (
    Uuid,
    String,
    Option<Uuid>,
    String,
    i32,
    String,
    DateTime<Utc>,
);

fn event_columns() -> (
    events::id,
    events::name,
    events::region_id,
    events::format,
    events::qualifying_rounds,
    events::small_field_playoff,
    events::created_at,
) {
    (
        events::id,
        events::name,
        events::region_id,
        events::format,
        events::qualifying_rounds,
        events::small_field_playoff,
        events::created_at,
    )
}

fn event_from_row(row: EventRow) -> Result<Event, ApiError> {
    let (id, name, region_id, format, qualifying_rounds, small_field_playoff, created_at) = row;
    Ok(Event {
        id,
        name,
        region_id,
        format: from_text::<EventFormat>(&format)?,
        qualifying_rounds: qualifying_rounds as u32,
        small_field_playoff: from_text::<SmallFieldRule>(&small_field_playoff)?,
        created_at,
    })
}

/// Creates an event (admin only).
#[utoipa::path(
    tag = "registration",
    request_body = CreateEvent,
    security(("bearer" = [])),
    responses(
        (status = 201, body = Event),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events")]
async fn create_event(
    state: web::Data<State>,
    principal: Principal,
    body: web::Json<CreateEvent>,
) -> Result<HttpResponse, ApiError> {
    principal.require_admin()?;
    let body = body.into_inner();
    let name = valid_name("name", &body.name)?;
    let rounds = body
        .qualifying_rounds
        .unwrap_or(DEFAULT_QUALIFYING_ROUNDS as i64);
    if !(1..=MAX_QUALIFYING_ROUNDS).contains(&rounds) {
        return Err(ApiError::field(
            "qualifying_rounds",
            "out_of_range",
            format!("qualifying_rounds must be 1 to {MAX_QUALIFYING_ROUNDS}"),
        ));
    }
    let format = to_text(&body.format);
    let small_field = to_text(&body.small_field_playoff.unwrap_or_default());
    let region_id = body.region_id;
    let event = db::transaction(&state.pool, move |conn| {
        region_must_exist(conn, region_id)?;
        let row: EventRow = diesel::insert_into(events::table)
            .values((
                events::id.eq(Uuid::new_v4()),
                events::name.eq(name),
                events::region_id.eq(region_id),
                events::format.eq(format),
                events::qualifying_rounds.eq(rounds as i32),
                events::small_field_playoff.eq(small_field),
            ))
            .returning(event_columns())
            .get_result(conn)?;
        event_from_row(row)
    })
    .await?;
    Ok(HttpResponse::Created().json(event))
}

fn load_event(conn: &mut PgConnection, id: Uuid) -> Result<Event, ApiError> {
    let row: Option<EventRow> = events::table
        .find(id)
        .select(event_columns())
        .first(conn)
        .optional()?;
    event_from_row(row.ok_or_else(|| ApiError::NotFound(format!("there is no event {id}")))?)
}

/// An event and its settings.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path)),
    responses((status = 200, body = Event), (status = 404, body = Problem, content_type = "application/problem+json"))
)]
#[get("/v1/events/{event_id}")]
async fn get_event(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<web::Json<Event>, ApiError> {
    let id = path.into_inner();
    Ok(web::Json(
        db::run(&state.pool, move |conn| load_event(conn, id)).await?,
    ))
}

type EntryRow = (
    Uuid,
    Uuid,
    Uuid,
    String,
    String,
    Option<String>,
    DateTime<Utc>,
);

#[diesel::dsl::auto_type]
fn entry_query() -> _ {
    entries::table.inner_join(players::table).select((
        entries::id,
        entries::event_id,
        entries::player_id,
        players::name,
        entries::status,
        entries::status_reason,
        entries::created_at,
    ))
}

fn entry_from_row(row: EntryRow) -> Result<Entry, ApiError> {
    let (id, event_id, player_id, name, status, status_reason, created_at) = row;
    Ok(Entry {
        id,
        event_id,
        player_id,
        name,
        status: from_text::<EntryStatus>(&status)?,
        status_reason,
        created_at,
    })
}

/// Enters a player into the event (the event's director). An entry made after a round was drawn
/// joins from the next round.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path)),
    request_body = CreateEntry,
    security(("bearer" = [])),
    responses(
        (status = 201, body = Entry),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The player is already entered", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/entries")]
async fn create_entry(
    state: web::Data<State>,
    principal: Principal,
    path: web::Path<Uuid>,
    body: web::Json<CreateEntry>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    principal.require_event(event_id, &[Role::Director])?;
    let player_id = body.player_id;
    let entry = db::transaction(&state.pool, move |conn| {
        load_event(conn, event_id)?;
        let player: i64 = players::table
            .filter(players::id.eq(player_id))
            .count()
            .get_result(conn)?;
        if player == 0 {
            return Err(ApiError::field(
                "player_id",
                "unknown_player",
                format!("there is no player {player_id}"),
            ));
        }
        let id = Uuid::new_v4();
        let inserted = diesel::insert_into(entries::table)
            .values((
                entries::id.eq(id),
                entries::event_id.eq(event_id),
                entries::player_id.eq(player_id),
            ))
            .on_conflict((entries::event_id, entries::player_id))
            .do_nothing()
            .execute(conn)?;
        if inserted == 0 {
            return Err(ApiError::Conflict(format!(
                "player {player_id} is already entered in this event"
            )));
        }
        entry_from_row(entry_query().filter(entries::id.eq(id)).first(conn)?)
    })
    .await?;
    Ok(HttpResponse::Created().json(entry))
}

/// The event's entries, in the order they were made.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path)),
    responses((status = 200, body = Vec<Entry>), (status = 404, body = Problem, content_type = "application/problem+json"))
)]
#[get("/v1/events/{event_id}/entries")]
async fn list_entries(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<web::Json<Vec<Entry>>, ApiError> {
    let event_id = path.into_inner();
    let rows: Vec<EntryRow> = db::run(&state.pool, move |conn| {
        load_event(conn, event_id)?;
        Ok(entry_query()
            .filter(entries::event_id.eq(event_id))
            .order((entries::created_at, entries::id))
            .load(conn)?)
    })
    .await?;
    Ok(web::Json(
        rows.into_iter()
            .map(entry_from_row)
            .collect::<Result<_, _>>()?,
    ))
}

/// Drops a player from the event, or excludes him (the event's director). He is not seated in
/// later rounds; the games he played stay.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path), ("entry_id" = Uuid, Path)),
    request_body = DropEntry,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Entry),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already dropped or excluded", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/entries/{entry_id}/drop")]
async fn drop_entry(
    state: web::Data<State>,
    principal: Principal,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<DropEntry>,
) -> Result<web::Json<Entry>, ApiError> {
    let (event_id, entry_id) = path.into_inner();
    principal.require_event(event_id, &[Role::Director])?;
    let reason = valid_name("reason", &body.reason)?;
    let status = if body.exclude {
        EntryStatus::Excluded
    } else {
        EntryStatus::Dropped
    };
    let entry = db::transaction(&state.pool, move |conn| {
        let changed = diesel::update(
            entries::table
                .filter(entries::id.eq(entry_id))
                .filter(entries::event_id.eq(event_id)),
        )
        .filter(entries::status.eq("active"))
        .set((
            entries::status.eq(to_text(&status)),
            entries::status_reason.eq(reason),
        ))
        .execute(conn)?;
        let row: Option<EntryRow> = entry_query()
            .filter(entries::id.eq(entry_id))
            .filter(entries::event_id.eq(event_id))
            .first(conn)
            .optional()?;
        let entry = entry_from_row(row.ok_or_else(|| {
            ApiError::NotFound(format!("there is no entry {entry_id} in this event"))
        })?)?;
        if changed == 0 {
            return Err(ApiError::Conflict(
                format!("entry {entry_id} is already {:?}", entry.status).to_lowercase(),
            ));
        }
        Ok(entry)
    })
    .await?;
    Ok(web::Json(entry))
}
