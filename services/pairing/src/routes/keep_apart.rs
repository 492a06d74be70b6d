//! The players an event's director keeps apart.

use crate::State;
use crate::store;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, put, web};
use catan_api::{KeepApart, Problem, Role};
use catan_kit::idempotency::Reply;
use catan_kit::peer::parent_exists_if_empty;
use catan_kit::problem::ErrorCode;
use catan_kit::{ApiError, IdempotentWrite, db};
use std::collections::HashSet;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(put_keep_apart).service(get_keep_apart);
}

/// Sets the players the event's director keeps apart (same family or club), replacing the
/// earlier pairs: they never share a table in round 1, and later only when no draw avoids it.
/// Both players of a pair must be entered in the event.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path)),
    request_body = KeepApart,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The event's keep-apart pairs now", body = KeepApart),
        (status = 409, description = "The event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A pair names one player twice, or a player not entered in the event", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/events/{event_id}/keep-apart")]
async fn put_keep_apart(
    state: web::Data<State>,
    write: IdempotentWrite<web::Json<KeepApart>>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    write.require_event(event_id, &[Role::Director])?;
    let entries = state.peers.registration.entries(event_id).await?;
    let entered: HashSet<Uuid> = entries
        .iter()
        .flat_map(|e| e.player_ids.iter().copied())
        .collect();
    let pairs = checked_pairs(&write.body().pairs, &entered)?;
    write
        .write(move |conn| {
            catan_kit::checkouts::refuse_if_checked_out(conn, event_id)?;
            store::set_keep_apart(conn, event_id, &pairs)?;
            let now = store::keep_apart(conn, event_id)?;
            Reply::new(StatusCode::OK, &keep_apart(now))
        })
        .await
}

/// The pairs, each of two different players entered in the event.
fn checked_pairs(
    pairs: &[[Uuid; 2]],
    entered: &HashSet<Uuid>,
) -> Result<Vec<(Uuid, Uuid)>, ApiError> {
    for (i, [a, b]) in pairs.iter().enumerate() {
        if a == b {
            return Err(ApiError::field(
                &format!("pairs[{i}]"),
                ErrorCode::SamePlayer,
                "a pair needs two different players",
            ));
        }
        if let Some(stranger) = [a, b].into_iter().find(|p| !entered.contains(p)) {
            return Err(ApiError::field(
                &format!("pairs[{i}]"),
                ErrorCode::NotEntered,
                format!("player {stranger} is not entered in this event"),
            ));
        }
    }
    Ok(pairs.iter().map(|[a, b]| (*a, *b)).collect())
}

fn keep_apart(pairs: Vec<(Uuid, Uuid)>) -> KeepApart {
    KeepApart {
        pairs: pairs.into_iter().map(|(a, b)| [a, b]).collect(),
    }
}

/// The players the event's director keeps apart.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path)),
    responses((status = 200, description = "The event's keep-apart pairs", body = KeepApart))
)]
#[get("/v1/events/{event_id}/keep-apart")]
async fn get_keep_apart(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<web::Json<KeepApart>, ApiError> {
    let event_id = path.into_inner();
    let pairs = db::run(&state.pool, move |conn| store::keep_apart(conn, event_id)).await?;
    parent_exists_if_empty(&pairs, state.peers.registration.event(event_id)).await?;
    Ok(web::Json(keep_apart(pairs)))
}
