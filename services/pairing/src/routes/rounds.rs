//! An event's rounds: drawing the next one, listing them, reading one.

use crate::State;
use crate::draw::{MAX_SEED, draw_next_round};
use crate::store;
use actix_web::{HttpResponse, get, post, web};
use catan_api::{DrawRound, Problem, Role, Round};
use catan_kit::optional_body::OptionalBody;
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::path::Ordinal;
use catan_kit::peer::parent_exists_if_empty;
use catan_kit::problem::ErrorCode;
use catan_kit::{ApiError, IdempotentWrite, db};
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(draw_round)
        .service(list_rounds)
        .service(get_round);
}

/// Draws the event's next round (the event's director): the qualifying rounds, then the
/// semi-finals (the top 16 drawn at random into 4 tables), then the final of the semi winners.
/// The previous round must have every table's result. The body is optional.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path)),
    request_body(content = Option<DrawRound>, description = "Optional: the seed to draw from"),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The round drawn", body = Round),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The previous round is incomplete, the standings it pairs by miss a result (one not yet confirmed, in an event that counts only confirmed results), the field cannot be seated, or the event is complete; or the event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "A peer service is unavailable; nothing was drawn", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/rounds")]
async fn draw_round(
    state: web::Data<State>,
    write: IdempotentWrite<OptionalBody<DrawRound>>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    write.require_event(event_id, &[Role::Director])?;
    let seed = write.body().0.seed;
    if seed.is_some_and(|s| s > MAX_SEED) {
        return Err(ApiError::field(
            "seed",
            ErrorCode::OutOfRange,
            format!("seed must be 0 to {MAX_SEED}"),
        ));
    }
    // Refused at once rather than after the draw's work; the draw's transaction checks again.
    db::run(&state.pool, move |conn| {
        catan_kit::checkouts::refuse_if_checked_out(conn, event_id)
    })
    .await?;
    draw_next_round(&state, event_id, seed, write).await
}

/// Every round of the event drawn so far.
#[utoipa::path(tag = "pairing", params(("event_id" = Uuid, Path), PageQuery), responses((status = 200, description = "A page of the event's rounds, oldest first", body = Vec<Round>)))]
#[get("/v1/events/{event_id}/rounds")]
async fn list_rounds(
    state: web::Data<State>,
    path: web::Path<Uuid>,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    let rounds = db::run(&state.pool, move |conn| store::rounds_of(conn, event_id)).await?;
    // No round yet, or no such event: registration knows which.
    parent_exists_if_empty(&rounds, state.peers.registration.event(event_id)).await?;
    Ok(page.respond(&page.slice(rounds)))
}

/// One round: its stage, seed, the engine's figures, and its tables with seats in play order and
/// why each table was formed.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path), ("number" = u32, Path)),
    responses((status = 200, body = Round), (status = 404, description = "Not drawn", body = Problem, content_type = "application/problem+json"))
)]
#[get("/v1/events/{event_id}/rounds/{number}")]
async fn get_round(
    state: web::Data<State>,
    path: web::Path<(Uuid, Ordinal)>,
) -> Result<web::Json<Round>, ApiError> {
    let (event_id, Ordinal(number)) = path.into_inner();
    round_of(&state, event_id, number).await.map(web::Json)
}

/// Round `number` of the event, or 404.
pub(super) async fn round_of(
    state: &State,
    event_id: Uuid,
    number: u32,
) -> Result<Round, ApiError> {
    db::run(&state.pool, move |conn| {
        store::round_of(conn, event_id, number)
    })
    .await?
    .ok_or_else(|| {
        ApiError::NotFound(format!(
            "round {number} of event {event_id} has not been drawn"
        ))
    })
}
