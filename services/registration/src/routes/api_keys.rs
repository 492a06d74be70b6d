//! API keys: made by an admin, for admins, directors and scorers.

use crate::State;
use crate::keys::{digest, new_secret};
use crate::store;
use crate::store::api_keys::{NewApiKey, Revocation};
use crate::validate::valid_name;
use actix_web::{HttpResponse, delete, get, post, web};
use catan_api::{ApiKeyCreated, CreateApiKey, ListedApiKey, Problem, Role};
use catan_kit::auth::{Principal, Revocations, Verifier};
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::problem::ErrorCode;
use catan_kit::{ApiError, db};
use std::collections::HashSet;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_api_key)
        .service(list_api_keys)
        .service(revoke_api_key);
}

/// The events a key of `role` may act on: none named for an admin key (it acts on every event),
/// at least one for a director or scorer key. Players have no keys.
fn key_events(role: Role, event_ids: Option<Vec<Uuid>>) -> Result<Option<Vec<Uuid>>, ApiError> {
    if role == Role::Player {
        return Err(ApiError::field(
            "role",
            ErrorCode::NotAKeyRole,
            "players sign in with their PIN at /v1/auth/player-token; keys are admin, director or scorer",
        ));
    }
    match (role, event_ids) {
        (Role::Admin, Some(_)) => Err(ApiError::field(
            "event_ids",
            ErrorCode::NotAllowed,
            "admin keys act on every event; leave event_ids out",
        )),
        (Role::Admin, None) => Ok(None),
        (_, Some(events)) if !events.is_empty() => Ok(Some(events)),
        _ => Err(ApiError::field(
            "event_ids",
            ErrorCode::Required,
            "director and scorer keys must name the events they may act on",
        )),
    }
}

/// Stores the key, once every event it names is known to exist.
fn store_key(conn: &mut diesel::PgConnection, key: &NewApiKey) -> Result<(), ApiError> {
    if let Some(events) = &key.event_ids {
        let known = store::events::count_known(conn, events)?;
        let named = events.iter().collect::<HashSet<_>>().len();
        if usize::try_from(known) != Ok(named) {
            return Err(ApiError::field(
                "event_ids",
                ErrorCode::UnknownEvent,
                "every event named must exist",
            ));
        }
    }
    store::api_keys::insert(conn, key)?;
    Ok(())
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
    let name = valid_name("name", &body.name)?;
    let event_ids = key_events(body.role, body.event_ids)?;
    let secret = new_secret();
    let key = NewApiKey {
        id: Uuid::new_v4(),
        name,
        role: body.role,
        event_ids,
        secret_sha256: digest(&secret),
    };
    let key = db::transaction(&state.pool, move |conn| {
        store_key(conn, &key)?;
        Ok(key)
    })
    .await?;
    Ok(HttpResponse::Created().json(ApiKeyCreated {
        id: key.id,
        name: key.name,
        role: key.role,
        event_ids: key.event_ids,
        api_key: secret,
    }))
}

/// Every API key, revoked ones included (with `revoked_at`), the oldest first, never a secret
/// (admin only). Paginated.
#[utoipa::path(
    tag = "auth",
    params(PageQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of the keys", body = Vec<ListedApiKey>),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/api-keys")]
async fn list_api_keys(
    state: web::Data<State>,
    principal: Principal,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    principal.require_admin()?;
    let query = page.query();
    let keys = db::run(&state.pool, move |conn| {
        Ok(store::api_keys::page(conn, query.limit(), query.offset())?)
    })
    .await?;
    Ok(page.respond(&keys))
}

/// Revokes an API key (admin only): it signs in no more, and every service refuses its tokens
/// at once (a replica that was not told, at its next key fetch, within a minute). The configured
/// admin key is replaced by changing `CATAN_ADMIN_KEY` instead (409).
#[utoipa::path(
    tag = "auth",
    params(("key_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Revoked"),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such key, or revoked already", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The configured admin key (`CATAN_ADMIN_KEY`): changing the configuration replaces it", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/api-keys/{key_id}")]
async fn revoke_api_key(
    state: web::Data<State>,
    principal: Principal,
    verifier: web::Data<Verifier>,
    revocations: web::Data<Revocations>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    principal.require_admin()?;
    let id = path.into_inner();
    let outcome = db::run(&state.pool, move |conn| {
        Ok(store::api_keys::revoke(conn, id)?)
    })
    .await?;
    match outcome {
        Revocation::Revoked => {}
        Revocation::Unknown => {
            return Err(ApiError::NotFound(format!(
                "no live API key {id} (unknown, or revoked already)"
            )));
        }
        Revocation::Configured => {
            return Err(ApiError::Conflict(
                "this is the configured admin key (CATAN_ADMIN_KEY): change the configuration to \
                 replace it, which revokes it at the next start"
                    .into(),
            ));
        }
    }
    tracing::info!(key_id = %id, "API key revoked");
    verifier.revoke(id);
    revocations.tell_peers(id).await;
    Ok(HttpResponse::NoContent().finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::tests::broken;

    #[test]
    fn admin_keys_name_no_events() {
        assert_eq!(key_events(Role::Admin, None).unwrap(), None);
        let (field, code, _) = broken(key_events(Role::Admin, Some(vec![])).unwrap_err());
        assert_eq!((field.as_str(), code), ("event_ids", ErrorCode::NotAllowed));
    }

    #[test]
    fn director_and_scorer_keys_name_their_events() {
        let event = Uuid::new_v4();
        for role in [Role::Director, Role::Scorer] {
            assert_eq!(
                key_events(role, Some(vec![event])).unwrap(),
                Some(vec![event])
            );
            for none in [None, Some(vec![])] {
                let (field, code, _) = broken(key_events(role, none).unwrap_err());
                assert_eq!((field.as_str(), code), ("event_ids", ErrorCode::Required));
            }
        }
    }

    #[test]
    fn players_have_no_keys() {
        let (field, code, _) =
            broken(key_events(Role::Player, Some(vec![Uuid::new_v4()])).unwrap_err());
        assert_eq!((field.as_str(), code), ("role", ErrorCode::NotAKeyRole));
    }
}
