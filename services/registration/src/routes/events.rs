//! Events: classic or partner, with their settings and days; found by region, format, status,
//! days and name.

use crate::State;
use crate::access;
use crate::store;
use crate::store::events::{EventEdit, EventFilter, NewEvent};
use crate::validate::{
    refuse_foreign, searched_days, searched_name, setting, valid_name, valid_optional_name,
};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, patch, post, web};
use catan_api::{
    CreateEvent, EditEvent, Event, EventFormat, EventSearch, PartnerSettings, Problem, Role,
};
use catan_domain::calendar::EventDays;
use catan_domain::partner::ByeRule;
use catan_kit::db::enum_to_text;
use catan_kit::idempotency::Reply;
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::problem::ErrorCode;
use catan_kit::{ApiError, IdempotentWrite, db};
use chrono::NaiveDate;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_event)
        .service(edit_event)
        .service(list_events)
        .service(get_event);
}

const DEFAULT_QUALIFYING_ROUNDS: u32 = 3;
const MAX_ROUNDS: i64 = 15;

/// The partner rules the request asks for, checked as a playable event.
fn partner_rules(body: &CreateEvent) -> Result<PartnerSettings, ApiError> {
    let defaults = PartnerSettings::default();
    let rules = PartnerSettings {
        rounds: setting(
            "swiss_rounds",
            body.swiss_rounds,
            defaults.rounds,
            1..=MAX_ROUNDS,
        )?,
        target_vp: setting(
            "team_target_vp",
            body.team_target_vp,
            defaults.target_vp,
            5..=44,
        )?,
        minutes_per_game: setting(
            "minutes_per_game",
            body.minutes_per_game,
            defaults.minutes_per_game,
            1..=600,
        )?,
        thinking_seconds_per_turn: setting(
            "thinking_seconds_per_turn",
            body.thinking_seconds_per_turn,
            defaults.thinking_seconds_per_turn,
            0..=3600,
        )?,
        time_limit_rule: body.time_limit_rule.unwrap_or(defaults.time_limit_rule),
        bye_rule: ByeRule {
            points: setting(
                "bye_points",
                body.bye_points,
                defaults.bye_rule.points,
                0..=defaults.points.win.into(),
            )?,
            ..defaults.bye_rule
        },
        ..defaults
    };
    rules
        .check()
        .map_err(|e| ApiError::field("team_target_vp", ErrorCode::Unplayable, e.to_string()))?;
    Ok(rules)
}

/// A classic event's minutes a game, when the request sets them (1 to 600, as a partner
/// event's).
fn classic_minutes(body: &CreateEvent) -> Result<Option<i32>, ApiError> {
    match body.format {
        EventFormat::Classic if body.minutes_per_game.is_some() => {
            let minutes: u32 = setting("minutes_per_game", body.minutes_per_game, 0, 1..=600)?;
            Ok(Some(i32::try_from(minutes).map_err(ApiError::internal)?))
        }
        _ => Ok(None),
    }
}

/// The rounds and the partner rules of the event the request asks for: the settings of its
/// format, with those of the other format refused.
fn format_settings(body: &CreateEvent) -> Result<(u32, Option<PartnerSettings>), ApiError> {
    match body.format {
        EventFormat::Classic => {
            refuse_foreign(
                &[
                    ("swiss_rounds", body.swiss_rounds.is_some()),
                    ("team_target_vp", body.team_target_vp.is_some()),
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
                DEFAULT_QUALIFYING_ROUNDS,
                1..=MAX_ROUNDS,
            )?;
            Ok((rounds, None))
        }
        EventFormat::Partner => {
            refuse_foreign(
                &[
                    ("qualifying_rounds", body.qualifying_rounds.is_some()),
                    ("small_field_playoff", body.small_field_playoff.is_some()),
                ],
                "partner",
            )?;
            let rules = partner_rules(body)?;
            Ok((rules.rounds, Some(rules)))
        }
    }
}

/// The days the request asks for: from `starts_on` (`today` when absent) through `ends_on` (the
/// first day when absent).
fn event_days(body: &CreateEvent, today: NaiveDate) -> Result<EventDays<NaiveDate>, ApiError> {
    EventDays::new(body.starts_on.unwrap_or(today), body.ends_on).map_err(|_| {
        ApiError::field(
            "ends_on",
            ErrorCode::EndsBeforeStart,
            "ends_on must not be before starts_on",
        )
    })
}

/// The event the request asks for on `today`, checked, as it is stored.
fn new_event(body: &CreateEvent, today: NaiveDate) -> Result<NewEvent, ApiError> {
    let name = valid_name("name", &body.name)?;
    let days = event_days(body, today)?;
    let venue = valid_optional_name("venue", body.venue.as_deref())?;
    let (rounds, partner) = format_settings(body)?;
    Ok(NewEvent {
        name,
        region_id: body.region_id,
        format: enum_to_text(&body.format),
        days,
        venue,
        qualifying_rounds: i32::try_from(rounds).map_err(ApiError::internal)?,
        small_field_playoff: enum_to_text(&body.small_field_playoff.unwrap_or_default()),
        board_mode: enum_to_text(&body.board_mode.unwrap_or_default()),
        standings_count: enum_to_text(&body.standings_count.unwrap_or_default()),
        partner_rules: partner
            .map(serde_json::to_value)
            .transpose()
            .map_err(ApiError::internal)?,
        practice: body.practice.unwrap_or(false),
        minutes_per_game: classic_minutes(body)?,
        language: enum_to_text(&body.language.unwrap_or_default()),
        player_reporting: enum_to_text(&body.player_reporting.unwrap_or_default()),
        players_may_drop: body.players_may_drop.unwrap_or(false),
    })
}

/// Creates an event (the admin, or an organiser in one of its regions): `classic` (qualifying rounds, semi-finals, final) or `partner`
/// (teams of two, Swiss rounds), held from `starts_on` (today, UTC, when absent) through
/// `ends_on` (the first day when absent). Settings of the other format are refused.
#[utoipa::path(
    tag = "registration",
    request_body = CreateEvent,
    security(("bearer" = [])),
    responses(
        (status = 201, body = Event),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Neither the admin nor an organiser of the event's region", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events")]
async fn create_event(
    write: IdempotentWrite<web::Json<CreateEvent>>,
) -> Result<HttpResponse, ApiError> {
    write.principal().require_region(write.body().region_id)?;
    let event = new_event(write.body(), store::events::today())?;
    write
        .write(move |conn| {
            store::people::region_must_exist(conn, event.region_id)?;
            let event = store::events::insert(conn, event)?;
            Ok(Reply::new(StatusCode::CREATED, &event)?.concerning_event(event.id))
        })
        .await
}

/// Changes an event's name, venue, `player_reporting` or `players_may_drop`, each when given
/// (the admin, or the organiser of its region). Its format, days and rules stay as created;
/// rounds already drawn keep the `player_reporting` they were drawn with.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path)),
    request_body = EditEvent,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The event as edited", body = Event),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Neither the admin nor the organiser of the event's region", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A blank or too long name or venue", body = Problem, content_type = "application/problem+json"),
    )
)]
#[patch("/v1/events/{event_id}")]
async fn edit_event(
    state: web::Data<State>,
    write: IdempotentWrite<web::Json<EditEvent>>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    // No event key edits its event: directors run it as the admin or its organiser set it up.
    let principal = write.principal();
    if principal.role() != Role::Organiser {
        principal.require_admin()?;
    }
    access::require_event(&state, principal, event_id, &[]).await?;
    let body = write.body();
    let edit = EventEdit {
        name: valid_optional_name("name", body.name.as_deref())?,
        venue: valid_optional_name("venue", body.venue.as_deref())?,
        player_reporting: body.player_reporting.as_ref().map(enum_to_text),
        players_may_drop: body.players_may_drop,
    };
    write
        .write(move |conn| {
            store::checkouts::refuse_if_checked_out_before_changing_it(conn, event_id)?;
            let event = store::events::edit(conn, event_id, edit)?;
            Reply::new(StatusCode::OK, &event)
        })
        .await
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
        db::run(&state.pool, move |conn| store::events::load(conn, id)).await?,
    ))
}

/// What an event search keeps, checked; `season_events` are the events of the season searched.
pub(super) fn event_filter(
    search: EventSearch,
    season_events: Option<Vec<Uuid>>,
) -> Result<EventFilter, ApiError> {
    let (from, to) = searched_days(search.from, search.to)?;
    Ok(EventFilter {
        region_id: search.region_id,
        ids: season_events,
        format: search.format.as_ref().map(enum_to_text),
        status: search.status,
        from,
        to,
        name: searched_name(search.q.as_deref())?,
    })
}

/// Finds events by region, season, format, status today (UTC), days (those held on any day from
/// `from` through `to`) and name (case and accents aside), by first day, then name. Needs no
/// token. Seasons are ranking's: a season search asks ranking for the season's events, and
/// answers 404 for a season ranking does not know, 503 while ranking cannot be reached.
#[utoipa::path(
    tag = "registration",
    params(EventSearch, PageQuery),
    responses(
        (status = 200, description = "A page of the events found, by first day, then name", body = Vec<Event>),
        (status = 404, description = "No such season", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events")]
async fn list_events(
    state: web::Data<State>,
    search: web::Query<EventSearch>,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    let search = search.into_inner();
    let season_events = match search.season_id {
        Some(season_id) => Some(state.ranking.season(season_id).await?.event_ids),
        None => None,
    };
    let filter = event_filter(search, season_events)?;
    let (query, today) = (page.query(), store::events::today());
    let found = db::run(&state.pool, move |conn| {
        store::events::search(conn, filter, today, query.limit(), query.offset())
    })
    .await?;
    Ok(page.respond(&found))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::tests::field_and_code;

    fn day(month: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, month, day).unwrap()
    }

    fn new_event(body: &CreateEvent) -> Result<NewEvent, ApiError> {
        super::new_event(body, day(4, 18))
    }

    #[test]
    fn an_event_without_days_is_held_today_and_one_without_an_end_lasts_one_day() {
        let today = new_event(&CreateEvent::classic("x")).unwrap();
        assert_eq!(today.days, EventDays::new(day(4, 18), None).unwrap());
        let body = CreateEvent {
            starts_on: Some(day(5, 2)),
            ..CreateEvent::classic("x")
        };
        let one_day = new_event(&body).unwrap();
        assert_eq!(
            (one_day.days.starts_on(), one_day.days.ends_on()),
            (day(5, 2), day(5, 2))
        );
        let weekend = CreateEvent {
            ends_on: Some(day(5, 3)),
            venue: Some("  Casal de Gràcia ".into()),
            ..body
        };
        let weekend = new_event(&weekend).unwrap();
        assert_eq!(weekend.days.ends_on(), day(5, 3));
        assert_eq!(weekend.venue.as_deref(), Some("Casal de Gràcia"));
    }

    #[test]
    fn a_search_from_after_to_is_refused() {
        let search = EventSearch {
            from: Some(day(5, 2)),
            to: Some(day(5, 1)),
            ..EventSearch::default()
        };
        let (field, code) = field_and_code(event_filter(search, None).unwrap_err());
        assert_eq!((field.as_str(), code), ("to", ErrorCode::EndsBeforeStart));
    }

    #[test]
    fn a_classic_event_defaults_to_three_qualifying_rounds() {
        let event = new_event(&CreateEvent::classic("  Spring open ")).unwrap();
        assert_eq!(event.name, "Spring open");
        assert_eq!(event.format, "classic");
        assert_eq!(event.qualifying_rounds, 3);
        assert_eq!(event.small_field_playoff, "final_of_top4");
        assert_eq!(event.board_mode, "each_table");
        assert_eq!(event.standings_count, "posted");
        assert!(event.partner_rules.is_none());
        assert_eq!(
            event.player_reporting, "confirm",
            "players confirm, as before"
        );
        assert!(!event.players_may_drop);
    }

    #[test]
    fn an_event_stores_the_players_options_it_is_made_with() {
        let body = CreateEvent {
            player_reporting: Some(catan_api::PlayerReporting::Report),
            players_may_drop: Some(true),
            ..CreateEvent::partner("Pairs")
        };
        let event = new_event(&body).unwrap();
        assert_eq!(event.player_reporting, "report");
        assert!(event.players_may_drop);
    }

    #[test]
    fn a_partner_event_stores_its_rules_and_rounds() {
        let body = CreateEvent {
            swiss_rounds: Some(6),
            bye_points: Some(0),
            ..CreateEvent::partner("Pairs")
        };
        let event = new_event(&body).unwrap();
        assert_eq!(event.qualifying_rounds, 6);
        let rules: PartnerSettings = serde_json::from_value(event.partner_rules.unwrap()).unwrap();
        assert_eq!(rules.rounds, 6);
        assert_eq!(rules.bye_rule.points, 0);
        assert_eq!(rules.target_vp, PartnerSettings::default().target_vp);
    }

    #[test]
    fn settings_of_the_other_format_and_numbers_out_of_range_are_refused() {
        let with = |mut body: CreateEvent, change: fn(&mut CreateEvent)| {
            change(&mut body);
            body
        };
        let classic = |change| with(CreateEvent::classic("x"), change);
        let partner = |change| with(CreateEvent::partner("x"), change);
        use ErrorCode::{EndsBeforeStart, InvalidName, NotForFormat, OutOfRange};
        for (body, field, code) in [
            (
                classic(|b| b.team_target_vp = Some(20)),
                "team_target_vp",
                NotForFormat,
            ),
            (
                partner(|b| b.qualifying_rounds = Some(3)),
                "qualifying_rounds",
                NotForFormat,
            ),
            (
                classic(|b| b.qualifying_rounds = Some(16)),
                "qualifying_rounds",
                OutOfRange,
            ),
            (
                partner(|b| b.bye_points = Some(4)),
                "bye_points",
                OutOfRange,
            ),
            (
                classic(|b| (b.starts_on, b.ends_on) = (Some(day(5, 2)), Some(day(5, 1)))),
                "ends_on",
                EndsBeforeStart,
            ),
            // Today is the first day when none is given: an end before it is refused too.
            (
                classic(|b| b.ends_on = Some(day(4, 17))),
                "ends_on",
                EndsBeforeStart,
            ),
            (
                classic(|b| b.venue = Some(" ".into())),
                "venue",
                InvalidName,
            ),
            // The name is checked before the settings.
            (
                classic(|b| (b.name, b.qualifying_rounds) = (" ".into(), Some(0))),
                "name",
                InvalidName,
            ),
        ] {
            assert_eq!(
                field_and_code(new_event(&body).unwrap_err()),
                (field.to_string(), code)
            );
        }
    }
}
