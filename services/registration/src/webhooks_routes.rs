//! Webhook subscriptions, their deliveries, and the internal inbox the other services hand their
//! events to. Secrets stay here: registration alone signs and sends deliveries.

use crate::State;
use crate::schema::events;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use catan_api::{
    CreateWebhook, DeliveryAttempt, DeliveryStatus, Problem, Role, Webhook, WebhookCreated,
    WebhookDelivery, WebhookDeliveryList, WebhookEventType,
};
use catan_kit::ApiError;
use catan_kit::auth::Principal;
use catan_kit::db;
use catan_kit::problem::FieldError;
use catan_kit::webhooks::{self, InboxBatch};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{
    Array, BigInt, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid,
};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_webhook)
        .service(get_webhook)
        .service(list_deliveries)
        .service(delete_webhook);
    // Internal: not in the public contract, and the gateway does not route it.
    cfg.route(webhooks::INBOX_PATH, web::post().to(receive_events));
}

const MAX_URL_LENGTH: usize = 2000;

#[derive(QueryableByName)]
struct WebhookRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    url: String,
    #[diesel(sql_type = Array<Text>)]
    event_types: Vec<String>,
    #[diesel(sql_type = Nullable<Array<SqlUuid>>)]
    event_ids: Option<Vec<Uuid>>,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
}

impl WebhookRow {
    fn into_webhook(self) -> Webhook {
        Webhook {
            id: self.id,
            url: self.url,
            event_types: self
                .event_types
                .iter()
                .filter_map(|t| WebhookEventType::parse(t))
                .collect(),
            event_ids: self.event_ids,
            created_at: self.created_at,
        }
    }
}

/// Admins may manage every subscription; a director those limited to events of its key.
fn may_manage(principal: &Principal, event_ids: Option<&[Uuid]>) -> Result<(), ApiError> {
    if principal.role() == Role::Admin {
        return Ok(());
    }
    principal.require_any(&[Role::Director])?;
    match event_ids {
        None => Err(ApiError::Forbidden(
            "only an admin key may subscribe to every event; name the events in event_ids".into(),
        )),
        Some(ids) => ids
            .iter()
            .try_for_each(|id| principal.require_event(*id, &[Role::Director])),
    }
}

/// Subscribes a URL to events (an admin, or a director for events of its key). Each delivery is a
/// POST of a JSON `WebhookMessage` signed in the Standard Webhooks way: headers `webhook-id`,
/// `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of
/// "{id}.{timestamp}.{body}">` under the secret, which this answer shows once. A delivery not
/// answered with 2xx is tried again with exponential backoff (8 tries over about an hour). URLs on
/// loopback or private networks are refused unless the deployment allows them.
#[utoipa::path(
    tag = "webhooks",
    request_body = CreateWebhook,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Subscribed; the secret is shown only now", body = WebhookCreated),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin, or a director naming events not of its key (or none)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A URL that is not http(s), private or unresolvable; unknown or no event types; unknown events", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/webhooks")]
async fn create_webhook(
    state: web::Data<State>,
    principal: Principal,
    body: web::Json<CreateWebhook>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    may_manage(&principal, body.event_ids.as_deref())?;
    let mut errors = Vec::new();
    let mut broken = |field: &str, code: &str, message: String| {
        errors.push(FieldError {
            field: field.to_string(),
            code: code.to_string(),
            message,
        })
    };
    if body.url.len() > MAX_URL_LENGTH {
        broken(
            "url",
            "too_long",
            format!("the URL is longer than {MAX_URL_LENGTH} characters"),
        );
    } else if let Err((code, message)) =
        webhooks::check_url(&body.url, state.webhooks.allow_private).await
    {
        broken("url", code, message);
    }
    let mut event_types: Vec<WebhookEventType> = Vec::new();
    for t in &body.event_types {
        if !event_types.contains(t) {
            event_types.push(*t);
        }
    }
    if event_types.is_empty() {
        broken(
            "event_types",
            "empty",
            "name at least one event type".into(),
        );
    }
    if body.event_ids.as_ref().is_some_and(|ids| ids.is_empty()) {
        broken(
            "event_ids",
            "empty",
            "name at least one event, or leave event_ids out for all".into(),
        );
    }
    let event_ids = body.event_ids.clone();
    let known: Vec<Uuid> = match event_ids.clone() {
        Some(ids) if !ids.is_empty() => {
            db::run(&state.pool, move |conn| {
                Ok(events::table
                    .filter(events::id.eq_any(ids))
                    .select(events::id)
                    .load(conn)?)
            })
            .await?
        }
        _ => Vec::new(),
    };
    for (i, id) in event_ids.iter().flatten().enumerate() {
        if !known.contains(id) {
            broken(
                &format!("event_ids[{i}]"),
                "unknown_event",
                format!("there is no event {id}"),
            );
        }
    }
    if !errors.is_empty() {
        let detail = match errors.as_slice() {
            [one] => one.message.clone(),
            many => format!("{} rules broken; see errors", many.len()),
        };
        return Err(ApiError::Validation { detail, errors });
    }
    let secret = webhooks::new_secret();
    let stored_secret = secret.clone();
    let url = body.url.clone();
    let types: Vec<String> = event_types.iter().map(|t| t.as_str().to_string()).collect();
    let created_by = principal.key_id();
    let row = db::run(&state.pool, move |conn| {
        Ok(diesel::sql_query(
            "INSERT INTO webhooks (id, url, event_types, event_ids, secret, created_by) VALUES ($1, $2, $3, $4, $5, $6) \
             RETURNING id, url, event_types, event_ids, created_at",
        )
        .bind::<SqlUuid, _>(Uuid::new_v4())
        .bind::<Text, _>(url)
        .bind::<Array<Text>, _>(types)
        .bind::<Nullable<Array<SqlUuid>>, _>(event_ids)
        .bind::<Text, _>(stored_secret)
        .bind::<SqlUuid, _>(created_by)
        .get_result::<WebhookRow>(conn)?)
    })
    .await?;
    let webhook = row.into_webhook();
    tracing::info!(webhook = %webhook.id, url = %webhook.url, "webhook subscribed");
    Ok(HttpResponse::Created().json(WebhookCreated {
        id: webhook.id,
        url: webhook.url,
        event_types: webhook.event_types,
        event_ids: webhook.event_ids,
        created_at: webhook.created_at,
        secret,
    }))
}

/// The subscription, if the caller may see it; 404 for deleted ones.
async fn visible_webhook(
    state: &State,
    principal: &Principal,
    id: Uuid,
) -> Result<Webhook, ApiError> {
    let row: Option<WebhookRow> = db::run(&state.pool, move |conn| {
        Ok(diesel::sql_query(
            "SELECT id, url, event_types, event_ids, created_at FROM webhooks WHERE id = $1 AND deleted_at IS NULL",
        )
        .bind::<SqlUuid, _>(id)
        .get_result(conn)
        .optional()?)
    })
    .await?;
    let webhook = row
        .ok_or_else(|| ApiError::NotFound(format!("there is no webhook {id}")))?
        .into_webhook();
    may_manage(principal, webhook.event_ids.as_deref())?;
    Ok(webhook)
}

/// A subscription (never its secret).
#[utoipa::path(
    tag = "webhooks",
    params(("webhook_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 200, body = Webhook),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such webhook, or deleted", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/webhooks/{webhook_id}")]
async fn get_webhook(
    state: web::Data<State>,
    principal: Principal,
    path: web::Path<Uuid>,
) -> Result<web::Json<Webhook>, ApiError> {
    Ok(web::Json(
        visible_webhook(&state, &principal, path.into_inner()).await?,
    ))
}

/// Deletes a subscription: nothing more is sent to it, and its pending deliveries are cancelled.
#[utoipa::path(
    tag = "webhooks",
    params(("webhook_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such webhook, or already deleted", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/webhooks/{webhook_id}")]
async fn delete_webhook(
    state: web::Data<State>,
    principal: Principal,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = visible_webhook(&state, &principal, path.into_inner())
        .await?
        .id;
    db::transaction(&state.pool, move |conn| {
        diesel::sql_query(
            "UPDATE webhooks SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL",
        )
        .bind::<SqlUuid, _>(id)
        .execute(conn)?;
        diesel::sql_query(
            "UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL \
             WHERE webhook_id = $1 AND status = 'pending'",
        )
        .bind::<SqlUuid, _>(id)
        .execute(conn)?;
        Ok(())
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Debug, Deserialize, IntoParams)]
struct DeliveriesQuery {
    /// At most this many, newest first: default 100; values outside 1 to 500 are clamped into it.
    #[serde(default)]
    limit: Option<i64>,
}

#[derive(QueryableByName)]
struct DeliveryRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    message_id: Uuid,
    #[diesel(sql_type = Text)]
    event_type: String,
    #[diesel(sql_type = SqlUuid)]
    event_id: Uuid,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Nullable<Integer>)]
    last_status_code: Option<i32>,
    #[diesel(sql_type = Nullable<Text>)]
    last_error: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    next_attempt_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    delivered_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Jsonb)]
    attempt_log: serde_json::Value,
}

#[derive(Deserialize)]
struct AttemptRow {
    number: u32,
    attempted_at: DateTime<Utc>,
    status_code: Option<u16>,
    error: Option<String>,
    duration_ms: u64,
}

/// A subscription's deliveries, newest first, each with its tries.
#[utoipa::path(
    tag = "webhooks",
    params(("webhook_id" = Uuid, Path), DeliveriesQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, body = WebhookDeliveryList),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, body = Problem, content_type = "application/problem+json"),
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
    let rows: Vec<DeliveryRow> = db::run(&state.pool, move |conn| {
        Ok(diesel::sql_query(
            "SELECT d.id, d.message_id, m.event_type, m.event_id, d.status, d.attempts, d.last_status_code, \
                    d.last_error, d.next_attempt_at, d.created_at, d.delivered_at, \
                    COALESCE((SELECT jsonb_agg(jsonb_build_object('number', a.number, 'attempted_at', a.attempted_at, \
                                 'status_code', a.status_code, 'error', a.error, 'duration_ms', a.duration_ms) ORDER BY a.number) \
                              FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::jsonb) AS attempt_log \
             FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id \
             WHERE d.webhook_id = $1 ORDER BY d.created_at DESC, d.id LIMIT $2",
        )
        .bind::<SqlUuid, _>(id)
        .bind::<BigInt, _>(limit)
        .load(conn)?)
    })
    .await?;
    let items = rows
        .into_iter()
        .map(|row| {
            let attempt_log: Vec<AttemptRow> =
                serde_json::from_value(row.attempt_log).map_err(ApiError::internal)?;
            Ok(WebhookDelivery {
                id: row.id,
                message_id: row.message_id,
                event_type: WebhookEventType::parse(&row.event_type).ok_or_else(|| {
                    ApiError::internal(format!("stored event type {}", row.event_type))
                })?,
                event_id: row.event_id,
                status: db::enum_from_text::<DeliveryStatus>(&row.status)?,
                attempts: row.attempts as u32,
                last_status_code: row.last_status_code.map(|c| c as u16),
                last_error: row.last_error,
                next_attempt_at: row.next_attempt_at,
                created_at: row.created_at,
                delivered_at: row.delivered_at,
                attempt_log: attempt_log
                    .into_iter()
                    .map(|a| DeliveryAttempt {
                        number: a.number,
                        attempted_at: a.attempted_at,
                        status_code: a.status_code,
                        error: a.error,
                        duration_ms: a.duration_ms,
                    })
                    .collect(),
            })
        })
        .collect::<Result<_, ApiError>>()?;
    Ok(web::Json(WebhookDeliveryList { items }))
}

/// The services' events: each stored once and fanned out to the subscriptions that want it, in one
/// transaction; a retry of the same batch adds nothing.
async fn receive_events(
    state: web::Data<State>,
    request: HttpRequest,
    body: web::Json<InboxBatch>,
) -> Result<HttpResponse, ApiError> {
    let Some(expected) = state.webhooks.internal_key.as_deref() else {
        return Err(ApiError::Unavailable(
            "the internal key is not configured".into(),
        ));
    };
    let given = request
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    if !webhooks::constant_time_eq(given.trim().as_bytes(), expected.as_bytes()) {
        return Err(ApiError::Unauthorized(
            "this endpoint is for the services".into(),
        ));
    }
    let batch = body.into_inner();
    let fanned_out = db::transaction(&state.pool, move |conn| {
        let mut deliveries = 0;
        for event in &batch.events {
            let inserted = diesel::sql_query(
                "INSERT INTO webhook_messages (id, event_type, event_id, payload, occurred_at) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING",
            )
            .bind::<SqlUuid, _>(event.id)
            .bind::<Text, _>(event.event_type.as_str())
            .bind::<SqlUuid, _>(event.event_id)
            .bind::<Jsonb, _>(&event.data)
            .bind::<Timestamptz, _>(event.occurred_at)
            .execute(conn)?;
            if inserted == 0 {
                continue;
            }
            deliveries += diesel::sql_query(
                "INSERT INTO webhook_deliveries (id, webhook_id, message_id) \
                 SELECT gen_random_uuid(), w.id, $1 FROM webhooks w \
                 WHERE w.deleted_at IS NULL AND $2 = ANY (w.event_types) \
                   AND (w.event_ids IS NULL OR $3 = ANY (w.event_ids))",
            )
            .bind::<SqlUuid, _>(event.id)
            .bind::<Text, _>(event.event_type.as_str())
            .bind::<SqlUuid, _>(event.event_id)
            .execute(conn)?;
        }
        Ok(deliveries)
    })
    .await?;
    if fanned_out > 0 {
        state.deliveries_due.notify_one();
    }
    Ok(HttpResponse::build(StatusCode::NO_CONTENT).finish())
}
