//! Voiding a table's result: the director undoes a posted sheet before the next round is drawn.

use crate::State;
use crate::store;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, delete, web};
use catan_api::{ClientError, Problem, Role, TableResult};
use catan_domain::correction::{Standing, VoidRefusal, may_void};
use catan_kit::ApiError;
use catan_kit::auth::Principal;
use catan_kit::idempotency::{IdempotentWrite, Reply};
use catan_kit::path::Ordinal;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(void_result);
}

/// Voids a table's result (the event's director or its region's organiser, or the admin), while
/// the next round is not drawn: the table then has no result (`GET .../result` is 404) and a new
/// sheet may be recorded, as the version after the voided one. The voided version stays in the
/// history, marked `voided`, the audit trail keeps who voided it, and the change feed carries the
/// void, so that the standings leave the game out. Safe to retry with an `Idempotency-Key`.
#[utoipa::path(
    tag = "results",
    params(("event_id" = Uuid, Path), ("round" = u32, Path), ("table" = u32, Path)),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Voided: the result as it was, marked `voided`", body = TableResult),
        (status = 403, description = "Not the event's director, its region's organiser or the admin", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such round, or the table has no result to void", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The next round is drawn: the result can only be corrected; or the event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/events/{event_id}/rounds/{round}/tables/{table}/result")]
async fn void_result(
    state: web::Data<State>,
    write: IdempotentWrite<()>,
    path: web::Path<(Uuid, Ordinal, Ordinal)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(round), Ordinal(table)) = path.into_inner();
    may_void_results(&state, write.principal(), event_id).await?;
    // The round must exist (404 otherwise); the next one must not be drawn.
    state.peers.pairing.round(event_id, round).await?;
    let next_drawn = match state.peers.pairing.round(event_id, round + 1).await {
        Ok(_) => true,
        Err(ClientError::Problem { problem }) if problem.status == 404 => false,
        Err(other) => return Err(other.into()),
    };
    write
        .write(move |conn| {
            catan_kit::checkouts::refuse_if_checked_out(conn, event_id)?;
            let key = (event_id, round, table);
            let standing = match store::latest_locked(conn, key)? {
                None => Standing::None,
                Some(latest) if latest.voided => Standing::Voided(latest.version),
                Some(latest) => Standing::Current(latest.version),
            };
            let version =
                may_void(standing, round, next_drawn).map_err(|refusal| match refusal {
                    VoidRefusal::NoResult => ApiError::NotFound(format!(
                        "table {table} of round {round} has no result to void"
                    )),
                    VoidRefusal::NextRoundDrawn { .. } => ApiError::Conflict(format!(
                        "the result of table {table} of round {round} cannot be voided: {refusal}"
                    )),
                })?;
            let voided = store::void(conn, key, version)?;
            tracing::info!(%event_id, round, table, version, "result voided");
            Reply::new(StatusCode::OK, &voided)
        })
        .await
}

/// The event's director, the organiser of its region (asked of registration), or the admin.
async fn may_void_results(
    state: &State,
    principal: &Principal,
    event_id: Uuid,
) -> Result<(), ApiError> {
    let region = if principal.role() == Role::Organiser {
        state.peers.registration.event(event_id).await?.region_id
    } else {
        None
    };
    principal.require_event_in_region(event_id, region, &[Role::Director])
}
