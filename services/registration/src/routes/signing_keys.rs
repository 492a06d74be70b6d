//! The keys access tokens are signed with: rotated by an admin.

use crate::State;
use actix_web::{HttpResponse, post, web};
use catan_api::Problem;
use catan_kit::auth::Principal;
use catan_kit::{ApiError, db};

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(rotate_signing_key);
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
