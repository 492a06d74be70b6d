//! Every PIN of an event reissued in one action, e.g. for slips lost or never printed, or at a
//! venue whose copy of the event carries no PINs.

use crate::State;
use crate::access;
use crate::store;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, post, web};
use catan_api::{PlayerPin, Problem, Role};
use catan_kit::idempotency::Reply;
use catan_kit::{ApiError, IdempotentWrite};
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(reissue_all_pins);
}

/// What a retry of the reissue with its `Idempotency-Key` is told: the PINs are not kept.
const PINS_SHOWN_ONCE: &str = "every PIN of this event was already reissued with this \
                               Idempotency-Key, and they were shown once; reissue again (with \
                               another key) for new ones";

/// Gives every player entered in the event a new PIN at once (the event's director, the organiser
/// of its region, or the admin), in the order the entries were made: every old PIN stops working
/// at once. The answer shows the PINs once; a retry with the same `Idempotency-Key` is 409
/// (`shown_once`), as the PINs are not kept for replays.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Every entered player's new PIN, shown only now", body = Vec<PlayerPin>),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the event's director, its region's organiser or the admin", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "This Idempotency-Key reissued the PINs before (`shown_once`: they were shown once); or the event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/pins")]
async fn reissue_all_pins(
    state: web::Data<State>,
    write: IdempotentWrite<()>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    access::require_event(&state, write.principal(), event_id, &[Role::Director]).await?;
    let key = state.pin_key.clone();
    write
        .write(move |conn| {
            store::events::load(conn, event_id)?;
            store::checkouts::refuse_if_checked_out(conn, event_id)?;
            let pins = store::pins::reissue_all(conn, &key, event_id)?;
            tracing::info!(event = %event_id, players = pins.len(), "every PIN reissued");
            Ok(Reply::new(StatusCode::OK, &pins)?.shown_once(PINS_SHOWN_ONCE))
        })
        .await
}
