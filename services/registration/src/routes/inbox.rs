//! The internal inbox the other services hand their events to, for registration to fan out to
//! the webhook subscriptions and deliver.

use crate::State;
use crate::store;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use catan_kit::settings::ExposeSecret;
use catan_kit::webhooks::{self, InboxBatch};
use catan_kit::{ApiError, db};
use subtle::ConstantTimeEq;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    // Internal: not in the public contract, and the gateway does not route it.
    cfg.route(webhooks::INBOX_PATH, web::post().to(receive_events));
}

/// Whether the request's `Authorization` header is `Bearer <expected>` (the internal key),
/// compared in constant time.
fn from_a_service(authorization: Option<&str>, expected: &str) -> bool {
    let given = authorization
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    bool::from(given.trim().as_bytes().ct_eq(expected.as_bytes()))
}

/// The services' events: each stored once and fanned out to the subscriptions that want it, in one
/// transaction; a retry of the same batch adds nothing.
async fn receive_events(
    state: web::Data<State>,
    request: HttpRequest,
    body: web::Json<InboxBatch>,
) -> Result<HttpResponse, ApiError> {
    let Some(expected) = state.webhooks.internal_key.as_ref() else {
        return Err(ApiError::unavailable(
            "the internal key is not configured",
            "CATAN_INTERNAL_KEY is not set: the services' events wait in their outboxes",
        ));
    };
    let authorization = request
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if !from_a_service(authorization, expected.expose_secret()) {
        return Err(ApiError::Unauthorized(
            "this endpoint is for the services".into(),
        ));
    }
    let batch = body.into_inner();
    let fanned_out = db::transaction(&state.pool, move |conn| {
        Ok(store::inbox::fan_out(conn, &batch.events)?)
    })
    .await?;
    if fanned_out > 0 {
        state.deliveries_due.notify_one();
    }
    Ok(HttpResponse::build(StatusCode::NO_CONTENT).finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_internal_key_as_a_bearer_token_is_a_service() {
        assert!(from_a_service(Some("Bearer cik_secret"), "cik_secret"));
        assert!(from_a_service(Some("Bearer  cik_secret "), "cik_secret"));
        assert!(!from_a_service(Some("Bearer cik_other"), "cik_secret"));
        assert!(!from_a_service(Some("Bearer cik_secre"), "cik_secret"));
        assert!(!from_a_service(Some("cik_secret"), "cik_secret"));
        assert!(!from_a_service(None, "cik_secret"));
    }
}
