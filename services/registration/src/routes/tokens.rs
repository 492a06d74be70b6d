//! Access tokens: from an API key, or from a player's PIN for one event; the JWKS they are
//! verified with, and the rotation of the key that signs them.

use crate::State;
use crate::keys::{KeyRing, Retirement, digest};
use crate::store;
use crate::store::pins::PinCheck;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use catan_api::{Caller, PlayerTokenRequest, Problem, Role, TokenRequest, TokenResponse};
use catan_kit::audit::AuditEntry;
use catan_kit::auth::{Claims, Principal, Verifier, claims_for};
use catan_kit::client::{Client, ClientLimits};
use catan_kit::{ApiError, db};

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(issue_token)
        .service(caller)
        .service(jwks)
        .service(player_token)
        .service(rotate_signing_key)
        .service(retire_signing_key);
}

/// `claims` signed with the current key, as the answer to a token request.
fn signed(state: &State, claims: &Claims) -> Result<web::Json<TokenResponse>, ApiError> {
    Ok(web::Json(TokenResponse {
        access_token: state
            .keys
            .current()
            .map_err(ApiError::internal)?
            .sign(claims)?,
        token_type: "Bearer".into(),
        expires_in: state.token_ttl.as_secs(),
    }))
}

/// Exchanges an API key for a short-lived access token. Token requests are limited per client
/// address (`CATAN_SIGN_IN_LIMIT_PER_SECOND`, 5, bursts of `CATAN_SIGN_IN_LIMIT_BURST`, 100).
#[utoipa::path(
    tag = "auth",
    request_body = TokenRequest,
    responses(
        (status = 200, description = "An access token", body = TokenResponse),
        (status = 401, description = "Unknown or revoked API key", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Malformed request", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many token requests (or requests without a token) from this address: retry after `Retry-After` seconds", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/auth/token")]
async fn issue_token(
    state: web::Data<State>,
    limits: web::Data<ClientLimits>,
    client: Client,
    body: web::Json<TokenRequest>,
) -> Result<web::Json<TokenResponse>, ApiError> {
    limits.sign_in(client)?;
    let hash = digest(body.api_key.trim());
    let key = db::run(&state.pool, move |conn| {
        Ok(store::api_keys::active_by_digest(conn, hash)?)
    })
    .await?;
    let (id, role, events, regions) =
        key.ok_or_else(|| ApiError::Unauthorized("unknown or revoked API key".into()))?;
    let role =
        Role::parse(&role).ok_or_else(|| ApiError::internal(format!("stored role {role}")))?;
    let mut claims = claims_for(id, role, events, state.token_ttl);
    claims.regions = regions;
    signed(&state, &claims)
}

/// Who the bearer token speaks for: its role, the events or regions it is limited to, and when
/// it expires. A console asks it once at sign-in, to show its holder what he may do.
#[utoipa::path(
    tag = "auth",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The token's holder", body = Caller),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/auth/me")]
async fn caller(principal: Principal) -> Result<web::Json<Caller>, ApiError> {
    let claims = principal.0;
    let expires_at = chrono::DateTime::from_timestamp(claims.exp, 0)
        .ok_or_else(|| ApiError::internal(format!("token expiry {}", claims.exp)))?;
    Ok(web::Json(Caller {
        subject: claims.sub,
        role: claims.role,
        event_ids: claims.events,
        region_ids: claims.regions,
        expires_at,
    }))
}

/// A player's token for one event, from the PIN he got when he was entered: with it he (or the
/// table app on his behalf) confirms or disputes the results of his tables. Wrong PINs are
/// counted per player and address: after 5 for one player from one address (one forgiven a
/// minute) each further one makes that player wait there twice as long (1 s, 2 s, 4 s, ... up to
/// 15 minutes) before his next try, answered 429 with `Retry-After`, `retry_after_seconds` and
/// the code `too_many_wrong_pins` on `pin`; the other players at that address sign in at once,
/// and he himself from any other address. An address waits for all its players only past 100
/// wrong PINs (one forgiven every 6 s), which a venue's typos never reach; every caller together
/// has a ceiling too.
#[utoipa::path(
    tag = "auth",
    request_body = PlayerTokenRequest,
    responses(
        (status = 200, description = "A player token for the event", body = TokenResponse),
        (status = 401, description = "Unknown player or wrong PIN", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong PINs for this player from this address (or from this address in all: code `too_many_wrong_pins` on `pin`), token requests or requests without a token from this address, or PIN sign-ins in all: retry after `Retry-After` seconds (`retry_after_seconds`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/auth/player-token")]
async fn player_token(
    state: web::Data<State>,
    limits: web::Data<ClientLimits>,
    client: Client,
    body: web::Json<PlayerTokenRequest>,
) -> Result<web::Json<TokenResponse>, ApiError> {
    limits.sign_in(client)?;
    let PlayerTokenRequest {
        event_id,
        player_id,
        pin,
    } = body.into_inner();
    limits.pin_attempt(client, event_id, player_id)?;
    let key = state.pin_key.clone();
    let check = db::run(&state.pool, move |conn| {
        store::pins::check(conn, &key, event_id, player_id, &pin)
    })
    .await?;
    match check {
        PinCheck::Good => {
            limits.pin_was_right(client, event_id, player_id);
            signed(
                &state,
                &claims_for(
                    player_id,
                    Role::Player,
                    Some(vec![event_id]),
                    state.token_ttl,
                ),
            )
        }
        PinCheck::Wrong => Err(ApiError::Unauthorized(
            "unknown player or wrong PIN for this event".into(),
        )),
    }
}

/// The public keys access tokens are verified with (RFC 7517), and as `revoked_api_keys` the ids
/// of the API keys revoked within a token's lifetime, whose tokens are refused.
#[utoipa::path(tag = "auth", responses((status = 200, description = "A JSON Web Key Set", body = Object)))]
#[get("/.well-known/jwks.json")]
async fn jwks(state: web::Data<State>) -> Result<HttpResponse, ApiError> {
    let keys = state.keys.clone();
    // Tokens of keys revoked before this are all expired: the list stays short.
    let since = chrono::Utc::now()
        - chrono::Duration::from_std(state.token_ttl).unwrap_or(chrono::Duration::hours(1))
        - chrono::Duration::minutes(5);
    let (published, revoked) = db::run(&state.pool, move |conn| {
        let published = keys.published().map_err(ApiError::internal)?;
        Ok((published, store::api_keys::revoked_since(conn, since)?))
    })
    .await?;
    Ok(HttpResponse::Ok()
        // Short: verifiers fetch again on an unknown kid anyway.
        .insert_header(("Cache-Control", "public, max-age=60"))
        // The revoked API keys ride along (a member JWK Set readers ignore if they do not know
        // it), so a service that missed registration's word learns them at its next fetch.
        .json(serde_json::json!({ "keys": published, "revoked_api_keys": revoked })))
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
async fn rotate_signing_key(
    state: web::Data<State>,
    request: HttpRequest,
    principal: Principal,
) -> Result<HttpResponse, ApiError> {
    principal.require_admin()?;
    let audit = AuditEntry::of(&request, &principal);
    let key = db::transaction(&state.pool, move |conn| {
        let key = KeyRing::rotate(conn).map_err(ApiError::internal)?;
        audit.record(conn, StatusCode::CREATED)?;
        Ok(key)
    })
    .await?;
    state.keys.forget_cached();
    tracing::info!(kid = %key.kid, "token signing key rotated");
    Ok(HttpResponse::Created().json(serde_json::json!({ "kid": key.kid })))
}

/// Retires a token signing key (admin only), e.g. one that leaked: it leaves the JWKS at once, and
/// every service refuses its tokens from its next key refresh on (within a minute). The current
/// key cannot be retired: rotate first.
#[utoipa::path(
    tag = "auth",
    security(("bearer" = [])),
    params(("kid" = String, Path, description = "The key's id, as in the JWKS")),
    responses(
        (status = 204, description = "Retired: the key is no longer published"),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such key", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The key signs new tokens: rotate first", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/admin/signing-keys/{kid}")]
async fn retire_signing_key(
    state: web::Data<State>,
    request: HttpRequest,
    principal: Principal,
    verifier: web::Data<Verifier>,
    kid: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    principal.require_admin()?;
    let kid = kid.into_inner();
    let retired = kid.clone();
    let audit = AuditEntry::of(&request, &principal);
    let outcome = db::transaction(&state.pool, move |conn| {
        let outcome = KeyRing::retire(conn, &retired).map_err(ApiError::internal)?;
        if outcome == Retirement::Retired {
            audit.record(conn, StatusCode::NO_CONTENT)?;
        }
        Ok(outcome)
    })
    .await?;
    state.keys.forget_cached();
    match outcome {
        Retirement::Retired => {
            tracing::info!(kid = %kid, "token signing key retired");
            // This replica refuses the key's tokens at once; the other services at their next
            // key refresh.
            if let Err(e) = verifier.reload().await {
                tracing::warn!(error = %e, "could not reload the token keys after a retirement");
            }
            Ok(HttpResponse::NoContent().finish())
        }
        Retirement::Current => Err(ApiError::Conflict(
            "this key signs new tokens: rotate the signing key first, then retire this one".into(),
        )),
        Retirement::Unknown => Err(ApiError::NotFound(format!("no signing key {kid}"))),
    }
}
