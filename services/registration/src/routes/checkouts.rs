//! Venue mode (issue 34): checking an event out to a venue, which runs it without the federation
//! and publishes it back, and releasing it. Pairing and results are told before the checkout is
//! answered (and after its release), each keeping it in its own table, so that from the answer on
//! every service refuses writes to the event.

use crate::State;
use crate::access;
use crate::store;
use crate::validate::valid_name;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use catan_api::{CheckOutEvent, Checkout, Problem, Role};
use catan_kit::audit::AuditEntry;
use catan_kit::auth::Principal;
use catan_kit::idempotency::Reply;
use catan_kit::venue_signature::parse_public_key;
use catan_kit::{ApiError, IdempotentWrite, db};
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(check_out_event)
        .service(get_checkout)
        .service(release_checkout);
}

/// Checks an event out to a venue (issue 34): the admin, an organiser of the event's region, or
/// the event's director. From the answer on, the federation refuses every write to the event
/// (409 `event_checked_out`, naming the venue) in every service, until the checkout is released
/// (a publish alone leaves it checked out). Every checkout is its own: send a new
/// Idempotency-Key for each, since a key used before answers that checkout again, released or
/// not. `public_key` is the venue's Ed25519 public key (32 bytes,
/// base64url without padding), which its publish is signed with; the venue keeps the private key.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path)),
    request_body = CheckOutEvent,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Checked out", body = Checkout),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Neither the admin, an organiser of the event's region nor the event's director", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Checked out already (the problem names the venue)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A blank or too long venue (`invalid_name`), or a public key that is not 32 bytes of base64url (`invalid_public_key`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Pairing or results could not be told", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/checkout")]
async fn check_out_event(
    state: web::Data<State>,
    write: IdempotentWrite<web::Json<CheckOutEvent>>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    access::require_event(&state, write.principal(), event_id, &[Role::Director]).await?;
    let venue = valid_name("venue", &write.body().venue)?;
    parse_public_key("public_key", &write.body().public_key)?;
    let public_key = write.body().public_key.trim().to_owned();
    // Refused before pairing and results are told, so that they never hold a second venue.
    if let Some(current) = db::run(&state.pool, move |conn| {
        store::checkouts::find(conn, event_id)
    })
    .await?
    {
        return Err(store::checkouts::already_checked_out(
            event_id,
            &current.venue,
        ));
    }
    crate::checkout_peers::tell(&state, event_id, Some(&venue)).await?;
    write
        .write(move |conn| {
            let checkout = store::checkouts::check_out(conn, event_id, &venue, &public_key)?;
            Ok(Reply::new(StatusCode::CREATED, &checkout)?.concerning_event(event_id))
        })
        .await
}

/// The event's checkout to a venue; 404 when it is not checked out.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path)),
    responses(
        (status = 200, body = Checkout),
        (status = 404, description = "No such event, or not checked out", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/checkout")]
async fn get_checkout(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<web::Json<Checkout>, ApiError> {
    let event_id = path.into_inner();
    db::run(&state.pool, move |conn| {
        store::checkouts::find(conn, event_id)
    })
    .await?
    .map(web::Json)
    .ok_or_else(|| ApiError::NotFound(format!("event {event_id} is not checked out")))
}

/// Releases the event's checkout (the admin or an organiser of its region): the federation takes
/// writes to it again. Pairing and results are told first; a release that could not reach them
/// (503) leaves the event checked out, and is the caller's to retry.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Released"),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Neither the admin nor an organiser of the event's region", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such event, or not checked out", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Pairing or results could not be told", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/events/{event_id}/checkout")]
async fn release_checkout(
    state: web::Data<State>,
    request: HttpRequest,
    principal: Principal,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    if principal.role() != Role::Organiser {
        principal.require_admin()?;
    }
    access::require_event(&state, &principal, event_id, &[]).await?;
    // Pairing and results are told even when registration holds no checkout, so that a release
    // cut off half-way is finished by the next.
    crate::checkout_peers::tell(&state, event_id, None).await?;
    let audit = AuditEntry::of(&request, &principal).concerning_events([event_id]);
    let released = db::transaction(&state.pool, move |conn| {
        let released = store::checkouts::release(conn, event_id)?;
        if released {
            audit.record(conn, StatusCode::NO_CONTENT)?;
        }
        Ok(released)
    })
    .await?;
    if !released {
        return Err(ApiError::NotFound(format!(
            "event {event_id} is not checked out"
        )));
    }
    Ok(HttpResponse::NoContent().finish())
}
