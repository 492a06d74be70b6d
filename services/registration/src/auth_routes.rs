//! Tokens, the JWKS, and API keys.

use crate::State;
use crate::keys::{digest, new_secret};
use crate::schema::{api_keys, entry_players};
use actix_web::{HttpResponse, get, post, web};
use catan_api::{
    ApiKeyCreated, CreateApiKey, PlayerTokenRequest, Problem, Role, TokenRequest, TokenResponse,
};
use catan_kit::ApiError;
use catan_kit::auth::{Principal, claims_for};
use catan_kit::db;
use diesel::prelude::*;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(issue_token)
        .service(jwks)
        .service(create_api_key)
        .service(rotate_signing_key)
        .service(player_token);
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
        access_token: state
            .keys
            .current()
            .map_err(ApiError::internal)?
            .sign(&claims)?,
        token_type: "Bearer".into(),
        expires_in: state.token_ttl.as_secs(),
    }))
}

/// Wrong PINs in a row before a player's sign-in is locked, and for how long.
const PIN_ATTEMPTS: i32 = 5;
const PIN_LOCK_MINUTES: i64 = 15;

/// A player's stored PIN digest, wrong tries in a row, and lock.
type PinRow = (Option<Vec<u8>>, i32, Option<chrono::DateTime<chrono::Utc>>);

enum PinCheck {
    Good,
    Wrong,
    Locked { seconds: i64 },
}

/// A player's token for one event, from the PIN he got when he was entered: with it he (or the
/// table app on his behalf) confirms or disputes the results of his tables. Five wrong PINs in a
/// row lock the sign-in for 15 minutes.
#[utoipa::path(
    tag = "auth",
    request_body = PlayerTokenRequest,
    responses(
        (status = 200, description = "A player token for the event", body = TokenResponse),
        (status = 401, description = "Unknown player or wrong PIN", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong PINs: retry after `Retry-After` seconds", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/auth/player-token")]
async fn player_token(
    state: web::Data<State>,
    body: web::Json<PlayerTokenRequest>,
) -> Result<web::Json<TokenResponse>, ApiError> {
    let PlayerTokenRequest {
        event_id,
        player_id,
        pin,
    } = body.into_inner();
    // The failed attempt must be counted even though the answer is an error: decide inside the
    // transaction, answer after it commits.
    let check = db::transaction(&state.pool, move |conn| {
        let row: Option<PinRow> = entry_players::table
            .filter(entry_players::event_id.eq(event_id))
            .filter(entry_players::player_id.eq(player_id))
            .select((
                entry_players::pin_sha256,
                entry_players::failed_pin_attempts,
                entry_players::pin_locked_until,
            ))
            .for_update()
            .first(conn)
            .optional()?;
        let Some((Some(stored), failed, locked_until)) = row else {
            return Ok(PinCheck::Wrong);
        };
        let now = chrono::Utc::now();
        if let Some(until) = locked_until.filter(|until| *until > now) {
            return Ok(PinCheck::Locked {
                seconds: (until - now).num_seconds().max(1),
            });
        }
        let target = entry_players::table
            .filter(entry_players::event_id.eq(event_id))
            .filter(entry_players::player_id.eq(player_id));
        if crate::keys::pin_digest(event_id, player_id, &pin) == stored {
            diesel::update(target)
                .set((
                    entry_players::failed_pin_attempts.eq(0),
                    entry_players::pin_locked_until.eq(None::<chrono::DateTime<chrono::Utc>>),
                ))
                .execute(conn)?;
            return Ok(PinCheck::Good);
        }
        let failed = failed + 1;
        let lock =
            (failed >= PIN_ATTEMPTS).then(|| now + chrono::Duration::minutes(PIN_LOCK_MINUTES));
        diesel::update(target)
            .set((
                entry_players::failed_pin_attempts.eq(if lock.is_some() { 0 } else { failed }),
                entry_players::pin_locked_until.eq(lock),
            ))
            .execute(conn)?;
        Ok(PinCheck::Wrong)
    })
    .await?;
    match check {
        PinCheck::Good => {
            let claims = claims_for(
                player_id,
                Role::Player,
                Some(vec![event_id]),
                state.token_ttl,
            );
            Ok(web::Json(TokenResponse {
                access_token: state
                    .keys
                    .current()
                    .map_err(ApiError::internal)?
                    .sign(&claims)?,
                token_type: "Bearer".into(),
                expires_in: state.token_ttl.as_secs(),
            }))
        }
        PinCheck::Wrong => Err(ApiError::Unauthorized(
            "unknown player or wrong PIN for this event".into(),
        )),
        PinCheck::Locked { seconds } => Err(ApiError::TooManyRequests {
            detail: format!("too many wrong PINs: sign-in is locked for {seconds} more seconds"),
            retry_after_seconds: seconds as u64,
        }),
    }
}

/// The public keys access tokens are verified with (RFC 7517).
#[utoipa::path(tag = "auth", responses((status = 200, description = "A JSON Web Key Set", body = Object)))]
#[get("/.well-known/jwks.json")]
async fn jwks(state: web::Data<State>) -> Result<HttpResponse, ApiError> {
    let keys = state.keys.clone();
    let published = db::run(&state.pool, move |_| {
        keys.published().map_err(ApiError::internal)
    })
    .await?;
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
async fn rotate_signing_key(
    state: web::Data<State>,
    principal: Principal,
) -> Result<HttpResponse, ApiError> {
    principal.require_admin()?;
    let keys = state.keys.clone();
    let key = db::run(&state.pool, move |_| {
        keys.rotate().map_err(ApiError::internal)
    })
    .await?;
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
    if body.role == Role::Player {
        return Err(ApiError::field(
            "role",
            "not_a_key_role",
            "players sign in with their PIN at /v1/auth/player-token; keys are admin, director or scorer",
        ));
    }
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
