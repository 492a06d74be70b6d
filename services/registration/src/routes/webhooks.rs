//! Webhook subscriptions and their deliveries. Secrets stay here: registration alone signs and
//! sends deliveries.

use crate::State;
use crate::access::{may_manage, visible_webhook, visible_webhooks};
use crate::store;
use crate::store::webhooks::NewWebhook;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use catan_api::{
    CreateWebhook, Problem, Role, Webhook, WebhookCreated, WebhookDeliveryList, WebhookEventType,
};
use catan_kit::audit::AuditEntry;
use catan_kit::auth::Principal;
use catan_kit::idempotency::{IdempotentWrite, Reply};
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::problem::{ErrorCode, FieldError};
use catan_kit::webhooks::{self, UrlRefusal};
use catan_kit::{ApiError, db};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_webhook)
        .service(list_webhooks)
        .service(get_webhook)
        .service(delete_webhook)
        .service(list_deliveries);
}

const MAX_URL_LENGTH: usize = 2000;
/// The most live subscriptions one API key may have.
pub const MAX_WEBHOOKS_PER_KEY: i64 = 25;
/// What a retry of a subscription with its `Idempotency-Key` is told: the secret is not kept
/// for replays.
const SHOWN_ONCE: &str = "a webhook was already subscribed with this Idempotency-Key, and its \
                          secret was shown once; GET /v1/webhooks/{id} shows the subscription";

/// Why the URL may not receive webhooks, if it may not (resolving its host, unless private
/// addresses are allowed).
async fn url_refusal(url: &str, allow_private: bool) -> Option<UrlRefusal> {
    if url.len() > MAX_URL_LENGTH {
        return Some((
            ErrorCode::TooLong,
            format!("the URL is longer than {MAX_URL_LENGTH} characters"),
        ));
    }
    webhooks::check_url(url, allow_private).await.err()
}

/// Those of the events the request names that exist.
async fn known_events(state: &State, event_ids: Option<Vec<Uuid>>) -> Result<Vec<Uuid>, ApiError> {
    match event_ids {
        Some(ids) if !ids.is_empty() => {
            db::run(&state.pool, move |conn| {
                Ok(store::events::known(conn, ids)?)
            })
            .await
        }
        _ => Ok(Vec::new()),
    }
}

/// The event types the request subscribes to, each once, unless it breaks a rule: every broken
/// rule is listed (the URL's `refusal`, no event types, no events, events not `known`).
fn checked_event_types(
    body: &CreateWebhook,
    refusal: Option<UrlRefusal>,
    known: &[Uuid],
) -> Result<Vec<WebhookEventType>, ApiError> {
    let mut errors = Vec::new();
    let mut broken = |field: &str, code: ErrorCode, message: String| {
        errors.push(FieldError {
            field: field.to_string(),
            code,
            message,
        })
    };
    if let Some((code, message)) = refusal {
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
            ErrorCode::Empty,
            "name at least one event type".into(),
        );
    }
    if body.event_ids.as_ref().is_some_and(|ids| ids.is_empty()) {
        broken(
            "event_ids",
            ErrorCode::Empty,
            "name at least one event, or leave event_ids out for all".into(),
        );
    }
    for (i, id) in body.event_ids.iter().flatten().enumerate() {
        if !known.contains(id) {
            broken(
                &format!("event_ids[{i}]"),
                ErrorCode::UnknownEvent,
                format!("there is no event {id}"),
            );
        }
    }
    let detail = match errors.as_slice() {
        [] => return Ok(event_types),
        [one] => one.message.clone(),
        many => format!("{} rules broken; see errors", many.len()),
    };
    Err(ApiError::Validation { detail, errors })
}

/// Subscribes a URL to events (an admin, or a director for events of its key). Each delivery is a
/// POST of a JSON `WebhookMessage` signed in the Standard Webhooks way: headers `webhook-id`,
/// `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of
/// "{id}.{timestamp}.{body}">` under the secret, which this answer shows once. A delivery not
/// answered with 2xx is tried again with exponential backoff (8 tries over about an hour). URLs on
/// loopback or private networks are refused unless the deployment allows them. An API key has at
/// most 25 live subscriptions. A retry with the same `Idempotency-Key` is 409: the secret is
/// shown once and not kept for replays.
#[utoipa::path(
    tag = "webhooks",
    request_body = CreateWebhook,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Subscribed; the secret is shown only now", body = WebhookCreated),
        (status = 403, description = "Not an admin, or a director naming events not of its key (or none)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The API key has 25 subscriptions already, or this Idempotency-Key subscribed before (its secret was shown once)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A URL that is not http(s), private or unresolvable; unknown or no event types; unknown events", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/webhooks")]
async fn create_webhook(
    state: web::Data<State>,
    write: IdempotentWrite<web::Json<CreateWebhook>>,
) -> Result<HttpResponse, ApiError> {
    let principal = write.principal().clone();
    let body = write.body().0.clone();
    may_manage(&principal, body.event_ids.as_deref())?;
    let refusal = url_refusal(&body.url, state.webhooks.allow_private).await;
    let known = known_events(&state, body.event_ids.clone()).await?;
    let event_types = checked_event_types(&body, refusal, &known)?;
    let new = NewWebhook {
        url: body.url,
        event_types,
        event_ids: body.event_ids,
        secret: webhooks::new_secret(),
        created_by: principal.key_id(),
    };
    write.write(move |conn| subscribe(conn, new)).await
}

/// Stores the subscription unless its key has [`MAX_WEBHOOKS_PER_KEY`] already; the reply shows
/// the secret once.
fn subscribe(conn: &mut diesel::PgConnection, new: NewWebhook) -> Result<Reply, ApiError> {
    if store::webhooks::count_locked(conn, new.created_by)? >= MAX_WEBHOOKS_PER_KEY {
        return Err(ApiError::Conflict(format!(
            "this API key has {MAX_WEBHOOKS_PER_KEY} webhook subscriptions, the most it may have; \
             delete one first"
        )));
    }
    let secret = new.secret.clone();
    let webhook = store::webhooks::insert(conn, new)?;
    tracing::info!(webhook = %webhook.id, to = %crate::webhook_delivery::logged_origin(&webhook.url), "webhook subscribed");
    let created = WebhookCreated {
        id: webhook.id,
        url: webhook.url,
        event_types: webhook.event_types,
        event_ids: webhook.event_ids,
        created_at: webhook.created_at,
        secret,
    };
    Ok(Reply::new(StatusCode::CREATED, &created)?.shown_once(SHOWN_ONCE))
}

/// The subscriptions the caller may see, oldest first, never their secrets: an admin every one,
/// a director those its own key subscribed, an organiser those limited to events of its
/// regions. Paginated. A client that lost the answer to its subscription finds it here.
#[utoipa::path(
    tag = "webhooks",
    params(PageQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of the subscriptions", body = Vec<Webhook>),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A scorer's or a player's token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/webhooks")]
async fn list_webhooks(
    state: web::Data<State>,
    principal: Principal,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    let visible = visible_webhooks(&state, &principal).await?;
    Ok(page.respond(&page.slice(visible)))
}

/// A subscription (never its secret).
#[utoipa::path(
    tag = "webhooks",
    params(("webhook_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 200, body = Webhook),
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
        (status = 404, description = "No such webhook, or already deleted", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/webhooks/{webhook_id}")]
async fn delete_webhook(
    state: web::Data<State>,
    request: HttpRequest,
    principal: Principal,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    // Organisers read their regions' subscriptions; only those who subscribe delete them.
    principal.require_any(&[Role::Director])?;
    let webhook = visible_webhook(&state, &principal, path.into_inner()).await?;
    let audit = AuditEntry::of(&request, &principal)
        .concerning_events(webhook.event_ids.into_iter().flatten());
    db::transaction(&state.pool, move |conn| {
        store::webhooks::delete(conn, webhook.id)?;
        audit.record(conn, StatusCode::NO_CONTENT)?;
        Ok(())
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(event_types: Vec<WebhookEventType>, event_ids: Option<Vec<Uuid>>) -> CreateWebhook {
        CreateWebhook {
            url: "https://example.org/hook".into(),
            event_types,
            event_ids,
        }
    }

    fn fields(error: ApiError) -> (String, Vec<(String, ErrorCode)>) {
        match error {
            ApiError::Validation { detail, errors } => (
                detail,
                errors.into_iter().map(|e| (e.field, e.code)).collect(),
            ),
            other => panic!("not a validation error: {other:?}"),
        }
    }

    #[test]
    fn event_types_are_kept_once_each_in_order() {
        let types = vec![
            WebhookEventType::parse("standings.updated").unwrap(),
            WebhookEventType::parse("result.posted").unwrap(),
            WebhookEventType::parse("standings.updated").unwrap(),
        ];
        let kept = checked_event_types(&request(types.clone(), None), None, &[]).unwrap();
        assert_eq!(kept, types[..2]);
    }

    #[test]
    fn one_broken_rule_is_its_own_detail() {
        let (detail, errors) =
            fields(checked_event_types(&request(vec![], None), None, &[]).unwrap_err());
        assert_eq!(detail, "name at least one event type");
        assert_eq!(errors, vec![("event_types".into(), ErrorCode::Empty)]);
    }

    #[test]
    fn every_broken_rule_is_listed() {
        let (known, unknown) = (Uuid::new_v4(), Uuid::new_v4());
        let refusal = Some((
            ErrorCode::PrivateAddress,
            "127.0.0.1 is private".to_string(),
        ));
        let body = request(vec![], Some(vec![known, unknown]));
        let (detail, errors) = fields(checked_event_types(&body, refusal, &[known]).unwrap_err());
        assert_eq!(detail, "3 rules broken; see errors");
        assert_eq!(
            errors,
            vec![
                ("url".into(), ErrorCode::PrivateAddress),
                ("event_types".into(), ErrorCode::Empty),
                ("event_ids[1]".into(), ErrorCode::UnknownEvent),
            ]
        );
        let (_, errors) =
            fields(checked_event_types(&request(vec![], Some(vec![])), None, &[]).unwrap_err());
        assert_eq!(errors[1], ("event_ids".into(), ErrorCode::Empty));
    }

    #[tokio::test]
    async fn long_urls_are_refused_before_they_are_resolved() {
        let url = format!("https://example.org/{}", "x".repeat(2000));
        let (code, message) = url_refusal(&url, false).await.unwrap();
        assert_eq!(code, ErrorCode::TooLong);
        assert_eq!(message, "the URL is longer than 2000 characters");
        assert!(url_refusal("https://8.8.8.8/hook", false).await.is_none());
        assert_eq!(
            url_refusal("ftp://x/", false).await.unwrap().0,
            ErrorCode::UnsupportedScheme
        );
    }
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
