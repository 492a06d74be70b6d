//! Events and their entries: late entries, drops and exclusions by the tournament director.

use crate::State;
use crate::people_routes::{region_must_exist, valid_name};
use crate::schema::{entries, entry_players, events, players};
use actix_web::HttpRequest;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use catan_api::{
    BoardMode, CreateEntry, CreateEvent, DropEntry, Entry, EntryStatus, Event, EventFormat,
    PartnerSettings, PlayerPin, Problem, Role, SmallFieldRule,
};
use catan_domain::partner::ByeRule;
use catan_kit::ApiError;
use catan_kit::auth::Principal;
use catan_kit::db::{self, enum_from_text, enum_to_text};
use catan_kit::idempotency::{self, Claim, IdempotencyKey, Reply, write_once};
use catan_kit::pagination::{PageQuery, page_response};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use std::collections::HashMap;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_event)
        .service(get_event)
        .service(create_entry)
        .service(list_entries)
        .service(drop_entry);
}

pub const DEFAULT_QUALIFYING_ROUNDS: u32 = 3;
pub const MAX_ROUNDS: i64 = 15;

#[derive(Queryable, Selectable)]
#[diesel(table_name = events)]
struct EventRow {
    id: Uuid,
    name: String,
    region_id: Option<Uuid>,
    format: String,
    qualifying_rounds: i32,
    small_field_playoff: String,
    board_mode: String,
    standings_count: String,
    partner_rules: Option<serde_json::Value>,
    created_at: DateTime<Utc>,
}

fn event_from_row(row: EventRow) -> Result<Event, ApiError> {
    Ok(Event {
        id: row.id,
        name: row.name,
        region_id: row.region_id,
        format: enum_from_text::<EventFormat>(&row.format)?,
        qualifying_rounds: row.qualifying_rounds as u32,
        small_field_playoff: enum_from_text::<SmallFieldRule>(&row.small_field_playoff)?,
        board_mode: enum_from_text::<BoardMode>(&row.board_mode)?,
        standings_count: enum_from_text(&row.standings_count)?,
        partner_rules: row
            .partner_rules
            .map(serde_json::from_value::<PartnerSettings>)
            .transpose()
            .map_err(ApiError::internal)?,
        created_at: row.created_at,
    })
}

/// A number setting within `range`, named by its field.
fn setting(
    field: &str,
    value: Option<i64>,
    default: i64,
    range: std::ops::RangeInclusive<i64>,
) -> Result<i64, ApiError> {
    let value = value.unwrap_or(default);
    if range.contains(&value) {
        Ok(value)
    } else {
        Err(ApiError::field(
            field,
            "out_of_range",
            format!("{field} must be {} to {}", range.start(), range.end()),
        ))
    }
}

/// Settings that belong to the other format are refused rather than ignored.
fn refuse_foreign(fields: &[(&str, bool)], format: &str) -> Result<(), ApiError> {
    match fields.iter().find(|(_, given)| *given) {
        Some((field, _)) => Err(ApiError::field(
            field,
            "not_for_format",
            format!("{field} does not apply to {format} events"),
        )),
        None => Ok(()),
    }
}

/// The partner rules the request asks for, checked as a playable event.
fn partner_rules(body: &CreateEvent) -> Result<PartnerSettings, ApiError> {
    let defaults = PartnerSettings::default();
    let rules = PartnerSettings {
        rounds: setting(
            "swiss_rounds",
            body.swiss_rounds,
            defaults.rounds.into(),
            1..=MAX_ROUNDS,
        )? as u32,
        target_vp: setting(
            "team_target_vp",
            body.team_target_vp,
            defaults.target_vp.into(),
            5..=44,
        )? as u8,
        minutes_per_game: setting(
            "minutes_per_game",
            body.minutes_per_game,
            defaults.minutes_per_game.into(),
            1..=600,
        )? as u32,
        thinking_seconds_per_turn: setting(
            "thinking_seconds_per_turn",
            body.thinking_seconds_per_turn,
            defaults.thinking_seconds_per_turn.into(),
            0..=3600,
        )? as u32,
        time_limit_rule: body.time_limit_rule.unwrap_or(defaults.time_limit_rule),
        bye_rule: ByeRule {
            points: setting(
                "bye_points",
                body.bye_points,
                defaults.bye_rule.points.into(),
                0..=defaults.points.win.into(),
            )? as u32,
            ..defaults.bye_rule
        },
        ..defaults
    };
    rules
        .check()
        .map_err(|e| ApiError::field("team_target_vp", "unplayable", e.to_string()))?;
    Ok(rules)
}

/// Creates an event (admin only): `classic` (qualifying rounds, semi-finals, final) or `partner`
/// (teams of two, Swiss rounds). Settings of the other format are refused.
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
    idempotency: IdempotencyKey,
    body: web::Json<CreateEvent>,
) -> Result<HttpResponse, ApiError> {
    principal.require_admin()?;
    let body = body.into_inner();
    let claim = Claim::of(&principal, &idempotency, "POST /v1/events", &body);
    if let Some(replay) = idempotency::replay(&state.pool, &claim).await? {
        return Ok(replay);
    }
    let name = valid_name("name", &body.name)?;
    let (rounds, partner) = match body.format {
        EventFormat::Classic => {
            refuse_foreign(
                &[
                    ("swiss_rounds", body.swiss_rounds.is_some()),
                    ("team_target_vp", body.team_target_vp.is_some()),
                    ("minutes_per_game", body.minutes_per_game.is_some()),
                    (
                        "thinking_seconds_per_turn",
                        body.thinking_seconds_per_turn.is_some(),
                    ),
                    ("time_limit_rule", body.time_limit_rule.is_some()),
                    ("bye_points", body.bye_points.is_some()),
                ],
                "classic",
            )?;
            let rounds = setting(
                "qualifying_rounds",
                body.qualifying_rounds,
                DEFAULT_QUALIFYING_ROUNDS.into(),
                1..=MAX_ROUNDS,
            )?;
            (rounds, None)
        }
        EventFormat::Partner => {
            refuse_foreign(
                &[
                    ("qualifying_rounds", body.qualifying_rounds.is_some()),
                    ("small_field_playoff", body.small_field_playoff.is_some()),
                ],
                "partner",
            )?;
            let rules = partner_rules(&body)?;
            (
                rules.rounds.into(),
                Some(serde_json::to_value(rules).map_err(ApiError::internal)?),
            )
        }
    };
    let format = enum_to_text(&body.format);
    let small_field = enum_to_text(&body.small_field_playoff.unwrap_or_default());
    let board_mode = enum_to_text(&body.board_mode.unwrap_or_default());
    let standings_count = enum_to_text(&body.standings_count.unwrap_or_default());
    let region_id = body.region_id;
    write_once(&state.pool, claim, move |conn| {
        region_must_exist(conn, region_id)?;
        let row: EventRow = diesel::insert_into(events::table)
            .values((
                events::id.eq(Uuid::new_v4()),
                events::name.eq(name),
                events::region_id.eq(region_id),
                events::format.eq(format),
                events::qualifying_rounds.eq(rounds as i32),
                events::small_field_playoff.eq(small_field),
                events::board_mode.eq(board_mode),
                events::standings_count.eq(standings_count),
                events::partner_rules.eq(partner),
            ))
            .returning(EventRow::as_returning())
            .get_result(conn)?;
        Reply::new(StatusCode::CREATED, &event_from_row(row)?)
    })
    .await
}

fn load_event(conn: &mut PgConnection, id: Uuid) -> Result<Event, ApiError> {
    let row: Option<EventRow> = events::table
        .find(id)
        .select(EventRow::as_select())
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

#[derive(Queryable, Selectable)]
#[diesel(table_name = entries)]
struct EntryRow {
    id: Uuid,
    event_id: Uuid,
    player_id: Option<Uuid>,
    team_name: Option<String>,
    status: String,
    status_reason: Option<String>,
    created_at: DateTime<Utc>,
}

/// The entries `rows` with their players, in the order given.
fn with_players(conn: &mut PgConnection, rows: Vec<EntryRow>) -> Result<Vec<Entry>, ApiError> {
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let members: Vec<(Uuid, Uuid, String)> = entry_players::table
        .inner_join(players::table)
        .filter(entry_players::entry_id.eq_any(&ids))
        .order((entry_players::entry_id, entry_players::position))
        .select((entry_players::entry_id, players::id, players::name))
        .load(conn)?;
    let mut by_entry: HashMap<Uuid, Vec<(Uuid, String)>> = HashMap::new();
    for (entry, player, name) in members {
        by_entry.entry(entry).or_default().push((player, name));
    }
    rows.into_iter()
        .map(|row| {
            let players = by_entry.remove(&row.id).unwrap_or_default();
            let name = match (&row.team_name, players.first()) {
                (Some(team), _) => team.clone(),
                (None, Some((_, player))) => player.clone(),
                (None, None) => {
                    return Err(ApiError::internal(format!(
                        "entry {} has no players",
                        row.id
                    )));
                }
            };
            Ok(Entry {
                id: row.id,
                event_id: row.event_id,
                player_id: row.player_id,
                team_name: row.team_name,
                player_ids: players.into_iter().map(|(id, _)| id).collect(),
                name,
                status: enum_from_text::<EntryStatus>(&row.status)?,
                status_reason: row.status_reason,
                created_at: row.created_at,
                pins: None,
            })
        })
        .collect()
}

fn load_entry(conn: &mut PgConnection, event_id: Uuid, entry_id: Uuid) -> Result<Entry, ApiError> {
    let row: Option<EntryRow> = entries::table
        .filter(entries::id.eq(entry_id))
        .filter(entries::event_id.eq(event_id))
        .select(EntryRow::as_select())
        .first(conn)
        .optional()?;
    let row = row
        .ok_or_else(|| ApiError::NotFound(format!("there is no entry {entry_id} in this event")))?;
    with_players(conn, vec![row])?
        .pop()
        .ok_or_else(|| ApiError::internal("entry vanished"))
}

/// Who an entry request enters: (team name, players), checked against the event's format.
fn entrants(
    format: EventFormat,
    body: &CreateEntry,
) -> Result<(Option<String>, Vec<Uuid>), ApiError> {
    match format {
        EventFormat::Classic => {
            refuse_foreign(
                &[
                    ("team_name", body.team_name.is_some()),
                    ("player_ids", body.player_ids.is_some()),
                ],
                "classic",
            )?;
            let player = body.player_id.ok_or_else(|| {
                ApiError::field("player_id", "required", "a classic entry names its player")
            })?;
            Ok((None, vec![player]))
        }
        EventFormat::Partner => {
            refuse_foreign(&[("player_id", body.player_id.is_some())], "partner")?;
            let name = valid_name("team_name", body.team_name.as_deref().unwrap_or_default())?;
            let players = body.player_ids.clone().unwrap_or_default();
            if players.len() != 2 {
                return Err(ApiError::field(
                    "player_ids",
                    "team_of_two",
                    "a team has exactly two players",
                ));
            }
            if players[0] == players[1] {
                return Err(ApiError::field(
                    "player_ids[1]",
                    "duplicate_player",
                    "a team has two different players",
                ));
            }
            Ok((Some(name), players))
        }
    }
}

/// Enters a player (classic) or a team of two (partner) into the event (the event's director).
/// An entry made after a round was drawn joins from the next round. A player plays for one
/// entry of an event.
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
        (status = 409, description = "A player is already entered in this event", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/entries")]
async fn create_entry(
    state: web::Data<State>,
    principal: Principal,
    idempotency: IdempotencyKey,
    path: web::Path<Uuid>,
    body: web::Json<CreateEntry>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    principal.require_event(event_id, &[Role::Director])?;
    let body = body.into_inner();
    let claim = Claim::of(
        &principal,
        &idempotency,
        &format!("POST /v1/events/{event_id}/entries"),
        &body,
    );
    if let Some(replay) = idempotency::replay(&state.pool, &claim).await? {
        return Ok(replay);
    }
    write_once(&state.pool, claim, move |conn| {
        let event = load_event(conn, event_id)?;
        let (team_name, members) = entrants(event.format, &body)?;
        let known: Vec<Uuid> = players::table
            .filter(players::id.eq_any(&members))
            .select(players::id)
            .load(conn)?;
        if let Some(i) = members.iter().position(|p| !known.contains(p)) {
            let field = if team_name.is_some() {
                format!("player_ids[{i}]")
            } else {
                "player_id".to_string()
            };
            return Err(ApiError::field(
                &field,
                "unknown_player",
                format!("there is no player {}", members[i]),
            ));
        }
        let entered: Vec<Uuid> = entry_players::table
            .filter(entry_players::event_id.eq(event_id))
            .filter(entry_players::player_id.eq_any(&members))
            .select(entry_players::player_id)
            .load(conn)?;
        if let Some(player) = entered.first() {
            return Err(ApiError::Conflict(format!(
                "player {player} is already entered in this event"
            )));
        }
        let id = Uuid::new_v4();
        diesel::insert_into(entries::table)
            .values((
                entries::id.eq(id),
                entries::event_id.eq(event_id),
                entries::player_id.eq(if team_name.is_none() {
                    members.first().copied()
                } else {
                    None
                }),
                entries::team_name.eq(&team_name),
            ))
            .execute(conn)?;
        let mut pins = Vec::with_capacity(members.len());
        for (position, player) in members.iter().enumerate() {
            let pin = crate::keys::new_pin();
            diesel::insert_into(entry_players::table)
                .values((
                    entry_players::event_id.eq(event_id),
                    entry_players::entry_id.eq(id),
                    entry_players::player_id.eq(player),
                    entry_players::position.eq(position as i32),
                    entry_players::pin_sha256.eq(crate::keys::pin_digest(event_id, *player, &pin)),
                ))
                .execute(conn)?;
            pins.push(PlayerPin {
                player_id: *player,
                pin,
            });
        }
        let entry = Entry {
            pins: Some(pins),
            ..load_entry(conn, event_id, id)?
        };
        Reply::new(StatusCode::CREATED, &entry)
    })
    .await
}

/// The event's entries, in the order they were made.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path), PageQuery),
    responses((status = 200, body = Vec<Entry>), (status = 404, body = Problem, content_type = "application/problem+json"))
)]
#[get("/v1/events/{event_id}/entries")]
async fn list_entries(
    state: web::Data<State>,
    request: HttpRequest,
    path: web::Path<Uuid>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    let page = page.into_inner();
    let entries = db::run(&state.pool, move |conn| {
        load_event(conn, event_id)?;
        let rows: Vec<EntryRow> = entries::table
            .filter(entries::event_id.eq(event_id))
            .order((entries::created_at, entries::id))
            .limit(page.limit())
            .offset(page.offset())
            .select(EntryRow::as_select())
            .load(conn)?;
        with_players(conn, rows)
    })
    .await?;
    Ok(page_response(&request, &page, &entries))
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
    idempotency: IdempotencyKey,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<DropEntry>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, entry_id) = path.into_inner();
    principal.require_event(event_id, &[Role::Director])?;
    let claim = Claim::of(
        &principal,
        &idempotency,
        &format!("POST /v1/events/{event_id}/entries/{entry_id}/drop"),
        &*body,
    );
    if let Some(replay) = idempotency::replay(&state.pool, &claim).await? {
        return Ok(replay);
    }
    let reason = valid_name("reason", &body.reason)?;
    let status = if body.exclude {
        EntryStatus::Excluded
    } else {
        EntryStatus::Dropped
    };
    write_once(&state.pool, claim, move |conn| {
        let changed = diesel::update(
            entries::table
                .filter(entries::id.eq(entry_id))
                .filter(entries::event_id.eq(event_id)),
        )
        .filter(entries::status.eq("active"))
        .set((
            entries::status.eq(enum_to_text(&status)),
            entries::status_reason.eq(reason),
        ))
        .execute(conn)?;
        let entry = load_entry(conn, event_id, entry_id)?;
        if changed == 0 {
            return Err(ApiError::Conflict(
                format!("entry {entry_id} is already {:?}", entry.status).to_lowercase(),
            ));
        }
        Reply::new(StatusCode::OK, &entry)
    })
    .await
}
