//! Tokens, the JWKS, and API keys.

use crate::State;
use crate::keys::{digest, new_secret};
use crate::schema::api_keys;
use actix_web::{HttpResponse, get, post, web};
use catan_api::{ApiKeyCreated, CreateApiKey, Problem, Role, TokenRequest, TokenResponse};
use catan_kit::ApiError;
use catan_kit::auth::{Principal, claims_for};
use catan_kit::db;
use diesel::prelude::*;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(issue_token)
        .service(jwks)
        .service(create_api_key)
        .service(rotate_signing_key);
}

/// Exchanges an API key for a short-lived access token.
#[utoipa::path(
    tag = "auth",
    request_body = TokenRequest,
    responses(
        (status = 200, description = "An access token", body = TokenResponse),
        (status = 401, description = "Unknown or revoked API key", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Malformed request", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/auth/token")]
async fn issue_token(
    state: web::Data<State>,
    body: web::Json<TokenRequest>,
) -> Result<web::Json<TokenResponse>, ApiError> {
    let hash = digest(body.api_key.trim());
    let key: Option<(Uuid, String, Option<Vec<Uuid>>)> = db::run(&state.pool, move |conn| {
        Ok(api_keys::table
            .filter(api_keys::secret_sha256.eq(hash))
            .filter(api_keys::revoked_at.is_null())
            .select((api_keys::id, api_keys::role, api_keys::event_ids))
            .first(conn)
            .optional()?)
    })
    .await?;
    let (id, role, events) =
        key.ok_or_else(|| ApiError::Unauthorized("unknown or revoked API key".into()))?;
    let role =
        Role::parse(&role).ok_or_else(|| ApiError::internal(format!("stored role {role}")))?;
    let claims = claims_for(id, role, events, state.token_ttl);
    Ok(web::Json(TokenResponse {
                access_token: state.keys.current().map_err(ApiError::internal)?.sign(&claims)?,
        token_type: "Bearer".into(),
        expires_in: state.token_ttl.as_secs(),
    }))
}

/// The public keys access tokens are verified with (RFC 7517).
#[utoipa::path(tag = "auth", responses((status = 200, description = "A JSON Web Key Set", body = Object)))]
#[get("/.well-known/jwks.json")]
async fn jwks(state: web::Data<State>) -> Result<HttpResponse, ApiError> {
    let keys = state.keys.clone();
    let published = db::run(&state.pool, move |_| keys.published().map_err(ApiError::internal)).await?;
    Ok(HttpResponse::Ok()
        // Short: verifiers fetch again on an unknown kid anyway.
        .insert_header(("Cache-Control", "public, max-age=60"))
        .json(serde_json::json!({ "keys": published })))
}

/// Rotates the token signing key (admin only): new tokens are signed with a new key; tokens
/// signed with the old one stay valid until they expire, its public key stays in the JWKS.
#[utoipa::path(
    tag = "auth",
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The new key's id", body = Object),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/admin/signing-keys")]
async fn rotate_signing_key(state: web::Data<State>, principal: Principal) -> Result<HttpResponse, ApiError> {
    principal.require_admin()?;
    let keys = state.keys.clone();
    let key = db::run(&state.pool, move |_| keys.rotate().map_err(ApiError::internal)).await?;
    tracing::info!(kid = %key.kid, "token signing key rotated");
    Ok(HttpResponse::Created().json(serde_json::json!({ "kid": key.kid })))
}


/// Creates an API key (admin only). Director and scorer keys name the events they may act on.
#[utoipa::path(
    tag = "auth",
    request_body = CreateApiKey,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The key; its secret is shown only here", body = ApiKeyCreated),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid key settings", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/api-keys")]
async fn create_api_key(
    state: web::Data<State>,
    principal: Principal,
    body: web::Json<CreateApiKey>,
) -> Result<HttpResponse, ApiError> {
    principal.require_admin()?;
    let body = body.into_inner();
    let name = crate::people_routes::valid_name("name", &body.name)?;
    let events = match (body.role, body.event_ids) {
        (Role::Admin, Some(_)) => {
            return Err(ApiError::field(
                "event_ids",
                "not_allowed",
                "admin keys act on every event; leave event_ids out",
            ));
        }
        (Role::Admin, None) => None,
        (_, Some(events)) if !events.is_empty() => Some(events),
        _ => {
            return Err(ApiError::field(
                "event_ids",
                "required",
                "director and scorer keys must name the events they may act on",
            ));
        }
    };
    let secret = new_secret();
    let id = Uuid::new_v4();
    let role = body.role;
    let stored_events = events.clone();
    let hash = digest(&secret);
    let stored_name = name.clone();
    db::transaction(&state.pool, move |conn| {
        if let Some(events) = &stored_events {
            let known: i64 = crate::schema::events::table
                .filter(crate::schema::events::id.eq_any(events))
                .count()
                .get_result(conn)?;
            if known as usize
                != events
                    .iter()
                    .collect::<std::collections::HashSet<_>>()
                    .len()
            {
                return Err(ApiError::field(
                    "event_ids",
                    "unknown_event",
                    "every event named must exist",
                ));
            }
        }
        diesel::insert_into(api_keys::table)
            .values((
                api_keys::id.eq(id),
                api_keys::name.eq(&stored_name),
                api_keys::role.eq(role.as_str()),
                api_keys::event_ids.eq(&stored_events),
                api_keys::secret_sha256.eq(hash),
            ))
            .execute(conn)?;
        Ok(())
    })
    .await?;
    Ok(HttpResponse::Created().json(ApiKeyCreated {
        id,
        name,
        role,
        event_ids: events,
        api_key: secret,
    }))
}
