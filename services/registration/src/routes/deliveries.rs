//! A webhook subscription's deliveries, each with every try.

use crate::State;
use crate::access::visible_webhook;
use crate::store;
use actix_web::{get, web};
use catan_api::{Problem, WebhookDeliveryList};
use catan_kit::auth::Principal;
use catan_kit::{ApiError, db};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(list_deliveries);
}

#[derive(Debug, Deserialize, IntoParams)]
struct DeliveriesQuery {
    /// At most this many, newest first: default 100; values outside 1 to 500 are clamped into it.
    #[serde(default)]
    limit: Option<i64>,
}

/// A subscription's deliveries, newest first, each with its tries.
#[utoipa::path(
    tag = "webhooks",
    params(("webhook_id" = Uuid, Path), DeliveriesQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, body = WebhookDeliveryList),
        (status = 404, description = "No such webhook, or deleted", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/webhooks/{webhook_id}/deliveries")]
async fn list_deliveries(
    state: web::Data<State>,
    principal: Principal,
    path: web::Path<Uuid>,
    query: web::Query<DeliveriesQuery>,
) -> Result<web::Json<WebhookDeliveryList>, ApiError> {
    let id = visible_webhook(&state, &principal, path.into_inner())
        .await?
        .id;
    let limit = query.limit.unwrap_or(100).clamp(1, 500);
    let items = db::run(&state.pool, move |conn| {
        store::webhooks::deliveries(conn, id, limit)
    })
    .await?;
    Ok(web::Json(WebhookDeliveryList { items }))
}
