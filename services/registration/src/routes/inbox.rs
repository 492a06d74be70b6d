//! The internal inbox the other services hand their events to, for registration to fan out to
//! the webhook subscriptions and deliver.

use crate::State;
use crate::store;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use catan_api::WebhookEventType;
use catan_kit::webhooks::{self, INBOX_BODY_LIMIT_BYTES, InboxBatch, require_internal_key};
use catan_kit::{ApiError, db};

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    // Internal: not in the public contract, and the gateway does not route it. Its body limit is
    // its own, larger than any batch the relay sends (a large round is one event).
    cfg.map(|cfg| {
        cfg.service(
            web::resource(webhooks::INBOX_PATH)
                .app_data(catan_kit::problem::json_config(INBOX_BODY_LIMIT_BYTES))
                .route(web::post().to(receive_events)),
        )
    });
}

/// The services' events: each stored once and fanned out to the subscriptions that want it, in one
/// transaction; a retry of the same batch adds nothing.
async fn receive_events(
    state: web::Data<State>,
    request: HttpRequest,
    body: web::Json<InboxBatch>,
) -> Result<HttpResponse, ApiError> {
    require_internal_key(&request, state.webhooks.internal_key.as_ref())?;
    let batch = body.into_inner();
    let fanned_out = db::transaction(&state.pool, move |conn| {
        let of_type = |wanted: WebhookEventType| -> Vec<uuid::Uuid> {
            let events = batch.events.iter().filter(|e| e.event_type == wanted);
            events.map(|e| e.event_id).collect()
        };
        // An event's status follows its play: its first round drawn, its placements complete.
        let drawn = of_type(WebhookEventType::RoundDrawn);
        let placed = of_type(WebhookEventType::EventFinished);
        store::events::record_play(conn, &drawn, &placed)?;
        Ok(store::inbox::fan_out(conn, &batch.events)?)
    })
    .await?;
    if fanned_out > 0 {
        state.deliveries_due.notify_one();
    }
    Ok(HttpResponse::build(StatusCode::NO_CONTENT).finish())
}
