//! A round's clock: the director starts, pauses, resumes, extends and ends it; anyone reads it.

use crate::State;
use crate::clock::{self, ClockSettings, ClockedRound, store as clock_store};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use catan_api::{ClockActionKind, ClockChange, Problem, Role, Round, RoundClockReading};
use catan_domain::clock::{DirectorAction, default_minutes_per_game};
use catan_kit::idempotency::Reply;
use catan_kit::path::Ordinal;
use catan_kit::problem::ErrorCode;
use catan_kit::{ApiError, IdempotentWrite, db};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(change_clock).service(read_clock);
}

/// Acts on the round's clock (the event's director): `start` (with `minutes`, else the event's
/// minutes per game), `pause`, `resume`, `extend_round` by `minutes`, `extend_table` (one
/// `table`'s extra `minutes`, e.g. one that started late), `end_early`. The server stamps the
/// action with its time. `round.started` goes out on start; `round.ending` and `round.ended` as
/// the clock reaches them.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path), ("number" = u32, Path)),
    request_body = ClockChange,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The clock after the action", body = RoundClockReading),
        (status = 404, description = "No such round", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The clock is not in a state for the action: started already, not started, not running, not paused, ended, or the time to extend is up; or the event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`minutes` missing or outside 1 to 1440, `table` missing or not a table of the round", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/rounds/{number}/clock")]
async fn change_clock(
    state: web::Data<State>,
    settings: web::Data<ClockSettings>,
    write: IdempotentWrite<web::Json<ClockChange>>,
    path: web::Path<(Uuid, Ordinal)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(number)) = path.into_inner();
    write.require_event(event_id, &[Role::Director])?;
    let round = super::rounds::round_of(&state, event_id, number).await?;
    let change = write.body();
    // The event's minutes a game are asked for only when the director gives none.
    let event_minutes = match (change.action, change.minutes) {
        (ClockActionKind::Start, None) => {
            let event = state.peers.registration.event(event_id).await?;
            minutes_per_game(&round, event.minutes_per_game)
        }
        _ => None,
    };
    let action = director_action(&round, change, event_minutes)?;
    let clocked = ClockedRound {
        event_id,
        number,
        tables: round.tables.iter().map(|t| t.number).collect(),
    };
    let taken_by = write.principal().key_id();
    let lead = settings.ending_lead;
    write
        .write(move |conn| {
            let reading = clock::take(conn, &clocked, action, taken_by, lead)?;
            Reply::new(StatusCode::OK, &reading)
        })
        .await
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ClockQuery {
    /// Only this table (a table's console, the results service): 404 when the round lacks it.
    #[param(nullable = false, minimum = 1)]
    table: Option<u32>,
}

/// The round's clock now: its state, the round's and each table's (or only `table`'s) time left
/// and end, the director's actions, and the server's time, by which a client corrects its own
/// clock.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path), ("number" = u32, Path), ClockQuery),
    responses(
        (status = 200, body = RoundClockReading),
        (status = 404, description = "No such round, or no such table of it", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/rounds/{number}/clock")]
async fn read_clock(
    state: web::Data<State>,
    path: web::Path<(Uuid, Ordinal)>,
    query: web::Query<ClockQuery>,
) -> Result<web::Json<RoundClockReading>, ApiError> {
    let (event_id, Ordinal(number)) = path.into_inner();
    let only = query.table;
    let reading = db::run(&state.pool, move |conn| {
        let round = match only {
            Some(table) => clock_store::clocked_table(conn, event_id, number, table)?,
            None => clock_store::clocked(conn, event_id, number)?,
        };
        let clock = clock_store::clock_of(conn, event_id, number)?;
        clock::reading(&round, &clock, chrono::Utc::now().timestamp_millis())
    })
    .await?;
    Ok(web::Json(reading))
}

pub(crate) fn not_drawn(event_id: Uuid, number: u32) -> ApiError {
    ApiError::NotFound(format!(
        "round {number} of event {event_id} has not been drawn"
    ))
}

/// The domain's action for `change`, its fields checked against the round; a start without
/// minutes takes `event_minutes`.
fn director_action(
    round: &Round,
    change: &ClockChange,
    event_minutes: Option<i64>,
) -> Result<DirectorAction, ApiError> {
    let minutes = || {
        change
            .minutes
            .ok_or_else(|| ApiError::field("minutes", ErrorCode::Required, "minutes is required"))
    };
    Ok(match change.action {
        ClockActionKind::Start => DirectorAction::Start {
            minutes: match change.minutes {
                Some(minutes) => minutes,
                None => event_minutes.ok_or_else(|| {
                    ApiError::field(
                        "minutes",
                        ErrorCode::Required,
                        "the final is played until won: give the minutes to start its clock",
                    )
                })?,
            },
        },
        ClockActionKind::Pause => DirectorAction::Pause,
        ClockActionKind::Resume => DirectorAction::Resume,
        ClockActionKind::ExtendRound => DirectorAction::ExtendRound {
            minutes: minutes()?,
        },
        ClockActionKind::ExtendTable => {
            let table = change.table.ok_or_else(|| {
                ApiError::field("table", ErrorCode::Required, "table is required")
            })?;
            if !round.tables.iter().any(|t| t.number == table) {
                return Err(ApiError::field(
                    "table",
                    ErrorCode::OutOfRange,
                    format!("round {} has no table {table}", round.number),
                ));
            }
            DirectorAction::ExtendTable {
                table,
                minutes: minutes()?,
            }
        }
        ClockActionKind::EndEarly => DirectorAction::EndEarly,
    })
}

/// A game's minutes when the director gives none: the event's (`event_minutes`, which
/// registration fills from the partner rules or the rules' default), else what the rules suggest
/// for the round's stage; none for the final, played until won.
fn minutes_per_game(round: &Round, event_minutes: Option<u32>) -> Option<i64> {
    let by_rules = default_minutes_per_game(round.stage)?;
    Some(i64::from(event_minutes.unwrap_or(by_rules)))
}

#[cfg(test)]
#[path = "clock_tests.rs"]
mod tests;
