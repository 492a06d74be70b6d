//! The events as iCalendar feeds (RFC 5545), for calendar apps to subscribe to: those a search
//! finds, and those a player is entered in.

use crate::State;
use crate::store;
use actix_web::{HttpRequest, HttpResponse, get, web};
use catan_api::{Event, EventSearch, Problem};
use catan_domain::calendar::EventDays;
use catan_domain::icalendar::{CalendarDate, CalendarEvent, UtcStamp, write_ics};
use catan_kit::client::ClientLimits;
use catan_kit::settings::PublicUrl;
use catan_kit::{ApiError, db};
use chrono::Datelike;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(events_calendar).service(player_calendar);
}

/// The most events a feed holds: a calendar app reads the feed whole.
const MOST: i64 = 1000;

/// The events a search finds (the filters of `GET /v1/events`, at most 1000), as an iCalendar
/// feed: one all-day VEVENT per event with its days, venue, its page on the dashboard and a UID
/// that stays the same on every read. Needs no token.
#[utoipa::path(
    tag = "registration",
    params(EventSearch),
    responses(
        (status = 200, description = "An iCalendar feed (RFC 5545)", body = String, content_type = "text/calendar"),
        (status = 404, description = "No such season", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events.ics")]
async fn events_calendar(
    state: web::Data<State>,
    limits: web::Data<ClientLimits>,
    request: HttpRequest,
    search: web::Query<EventSearch>,
) -> Result<HttpResponse, ApiError> {
    let search = search.into_inner();
    let season_events = match search.season_id {
        Some(season_id) => Some(state.ranking.season(season_id).await?.event_ids),
        None => None,
    };
    let filter = super::events::event_filter(search, season_events)?;
    let today = store::events::today();
    let found = db::run(&state.pool, move |conn| {
        store::events::search(conn, filter, today, MOST, 0)
    })
    .await?;
    let origin = PublicUrl::for_request(state.public_url.as_ref(), &limits.trust, &request);
    feed(&origin, &found, "Catan tournaments")
}

/// The events a player is entered in, as an iCalendar feed (as `GET /v1/events.ics`); 404 for a
/// player registration does not know. Needs no token.
#[utoipa::path(
    tag = "registration",
    params(("player_id" = Uuid, Path)),
    responses(
        (status = 200, description = "An iCalendar feed (RFC 5545)", body = String, content_type = "text/calendar"),
        (status = 404, description = "No such player", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/{player_id}/events.ics")]
async fn player_calendar(
    state: web::Data<State>,
    limits: web::Data<ClientLimits>,
    request: HttpRequest,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let player_id = path.into_inner();
    let today = store::events::today();
    let (player, found) = db::run(&state.pool, move |conn| {
        let player = store::people::find_player(conn, player_id)?
            .ok_or_else(|| ApiError::NotFound(format!("there is no player {player_id}")))?;
        Ok((player, store::events::of_player(conn, player_id, today)?))
    })
    .await?;
    let origin = PublicUrl::for_request(state.public_url.as_ref(), &limits.trust, &request);
    feed(
        &origin,
        &found,
        &format!("{}: Catan tournaments", player.name),
    )
}

/// `events` as a feed named `name`, each linking its page on the dashboard at the suite's public
/// address `origin`.
fn feed(origin: &PublicUrl, events: &[Event], name: &str) -> Result<HttpResponse, ApiError> {
    let calendar: Vec<CalendarEvent> = events
        .iter()
        .filter_map(|event| {
            let date = |d: chrono::NaiveDate| CalendarDate::new(d.year(), d.month(), d.day());
            let days = EventDays::new(date(event.starts_on)?, Some(date(event.ends_on)?)).ok()?;
            Some(CalendarEvent {
                id: event.id,
                name: event.name.clone(),
                days,
                venue: event.venue.clone(),
                url: Some(format!("{origin}/events/{}", event.id)),
            })
        })
        .collect();
    let stamp = UtcStamp::from_unix_seconds(chrono::Utc::now().timestamp())
        .ok_or_else(|| ApiError::internal("today is outside the calendar's years"))?;
    Ok(HttpResponse::Ok()
        .content_type("text/calendar; charset=utf-8")
        .body(write_ics(&calendar, stamp, Some(name))))
}
