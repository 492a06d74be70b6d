//! API keys: made by an admin, for admins, organisers, directors and scorers; organisers make
//! director and scorer keys for the events of their regions.

use crate::State;
use crate::access;
use crate::keys::{digest, new_secret};
use crate::store;
use crate::store::api_keys::{NewApiKey, Revocation};
use crate::validate::valid_name;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use catan_api::{ApiKeyCreated, CreateApiKey, ListedApiKey, Problem, Role};
use catan_kit::audit::AuditEntry;
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

/// What a key of `role` may act on: `(events, regions)`. An admin key names neither (it acts
/// everywhere), an organiser key at least one region, a director or scorer key at least one
/// event. Players have no keys.
type KeyScope = (Option<Vec<Uuid>>, Option<Vec<Uuid>>);

fn key_scope(
    role: Role,
    event_ids: Option<Vec<Uuid>>,
    region_ids: Option<Vec<Uuid>>,
) -> Result<KeyScope, ApiError> {
    let not_allowed =
        |field: &str, message: &str| Err(ApiError::field(field, ErrorCode::NotAllowed, message));
    match (role, event_ids, region_ids) {
        (Role::Player, _, _) => Err(ApiError::field(
            "role",
            ErrorCode::NotAKeyRole,
            "players sign in with their PIN at /v1/auth/player-token; keys are admin, organiser, director or scorer",
        )),
        (Role::Admin, Some(_), _) => not_allowed(
            "event_ids",
            "admin keys act on every event; leave event_ids out",
        ),
        (Role::Admin, None, Some(_)) => not_allowed(
            "region_ids",
            "admin keys act in every region; leave region_ids out",
        ),
        (Role::Admin, None, None) => Ok((None, None)),
        (Role::Organiser, Some(_), _) => not_allowed(
            "event_ids",
            "organiser keys act on the events of their regions; leave event_ids out",
        ),
        (Role::Organiser, None, Some(regions)) if !regions.is_empty() => Ok((None, Some(regions))),
        (Role::Organiser, None, _) => Err(ApiError::field(
            "region_ids",
            ErrorCode::Required,
            "organiser keys must name the regions they run",
        )),
        (_, _, Some(_)) => not_allowed(
            "region_ids",
            "director and scorer keys act on events; leave region_ids out",
        ),
        (_, Some(events), None) if !events.is_empty() => Ok((Some(events), None)),
        _ => Err(ApiError::field(
            "event_ids",
            ErrorCode::Required,
            "director and scorer keys must name the events they may act on",
        )),
    }
}

/// Who may issue or revoke a key of `role`: the admin any key; an organiser director and scorer
/// keys (for events of its regions, which the write checks).
fn may_issue(principal: &Principal, role: Role) -> Result<(), ApiError> {
    match principal.role() {
        Role::Admin => Ok(()),
        Role::Organiser if matches!(role, Role::Director | Role::Scorer) => Ok(()),
        Role::Organiser => Err(ApiError::Forbidden(
            "an organiser key issues and revokes director and scorer keys; only the admin the others"
                .into(),
        )),
        other => Err(ApiError::Forbidden(format!(
            "this needs an admin or organiser key; this key is a {}",
            other.as_str()
        ))),
    }
}

/// Stores the key, once every event and region it names is known to exist and, for an
/// organiser, lies in its regions.
fn store_key(
    conn: &mut diesel::PgConnection,
    principal: &Principal,
    key: &NewApiKey,
) -> Result<(), ApiError> {
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
        access::require_events(conn, principal, events, &[])?;
    }
    for region in key.region_ids.iter().flatten() {
        store::people::region_must_exist(conn, Some(*region))?;
    }
    store::api_keys::insert(conn, key)?;
    Ok(())
}

/// Creates an API key: the admin any key, an organiser director and scorer keys for events of its
/// regions. Director and scorer keys name the events they may act on, organiser keys the regions
/// they run.
#[utoipa::path(
    tag = "auth",
    request_body = CreateApiKey,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The key; its secret is shown only here", body = ApiKeyCreated),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Neither the admin nor the organiser of every event named", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid key settings", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/api-keys")]
async fn create_api_key(
    state: web::Data<State>,
    request: HttpRequest,
    principal: Principal,
    body: web::Json<CreateApiKey>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    may_issue(&principal, body.role)?;
    let name = valid_name("name", &body.name)?;
    let (event_ids, region_ids) = key_scope(body.role, body.event_ids, body.region_ids)?;
    let secret = new_secret();
    let key = NewApiKey {
        id: Uuid::new_v4(),
        name,
        role: body.role,
        event_ids,
        region_ids,
        secret_sha256: digest(&secret),
    };
    let audit = AuditEntry::of(&request, &principal)
        .answered(&serde_json::json!({ "id": key.id }))
        .concerning_events(key.event_ids.iter().flatten().copied())
        .concerning_regions(key.region_ids.iter().flatten().copied());
    let key = db::transaction(&state.pool, move |conn| {
        store_key(conn, &principal, &key)?;
        audit.record(conn, StatusCode::CREATED)?;
        Ok(key)
    })
    .await?;
    Ok(HttpResponse::Created().json(ApiKeyCreated {
        id: key.id,
        name: key.name,
        role: key.role,
        event_ids: key.event_ids,
        region_ids: key.region_ids,
        api_key: secret,
    }))
}

/// API keys, revoked ones included (with `revoked_at`), the oldest first, never a secret: the
/// admin lists every key; an organiser the director and scorer keys that act on an event of its
/// regions (whoever issued them), so that it sees every key that may write to its events.
/// Paginated.
#[utoipa::path(
    tag = "auth",
    params(PageQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of the keys", body = Vec<ListedApiKey>),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Neither an admin nor an organiser", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/api-keys")]
async fn list_api_keys(
    state: web::Data<State>,
    principal: Principal,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    principal.require_any(&[Role::Organiser])?;
    let regions = (principal.role() == Role::Organiser).then(|| principal.regions().to_vec());
    let query = page.query();
    let keys = db::run(&state.pool, move |conn| {
        let events = match regions {
            Some(regions) => Some(store::events::of_regions(conn, &regions)?),
            None => None,
        };
        Ok(store::api_keys::page(
            conn,
            events.as_deref(),
            query.limit(),
            query.offset(),
        )?)
    })
    .await?;
    Ok(page.respond(&keys))
}

/// Revokes an API key: the admin any key, an organiser the director and scorer keys of events of
/// its regions. It signs in no more, and every service refuses its tokens at once (a replica that
/// was not told, at its next key fetch, within a minute). The configured admin key is replaced by
/// changing `CATAN_ADMIN_KEY` instead (409).
#[utoipa::path(
    tag = "auth",
    params(("key_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Revoked"),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Neither the admin nor the organiser of every event the key names", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such key, or revoked already", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The configured admin key (`CATAN_ADMIN_KEY`): changing the configuration replaces it", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/api-keys/{key_id}")]
async fn revoke_api_key(
    state: web::Data<State>,
    request: HttpRequest,
    principal: Principal,
    verifier: web::Data<Verifier>,
    revocations: web::Data<Revocations>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    may_issue(&principal, Role::Director)?;
    let id = path.into_inner();
    let audit = AuditEntry::of(&request, &principal);
    db::transaction(&state.pool, move |conn| {
        let unknown = || {
            ApiError::NotFound(format!(
                "no live API key {id} (unknown, or revoked already)"
            ))
        };
        let (role, events, regions) = store::api_keys::live_scope(conn, id)?.ok_or_else(unknown)?;
        may_issue(&principal, role)?;
        let events = events.unwrap_or_default();
        if principal.role() != Role::Admin {
            access::require_events(conn, &principal, &events, &[])?;
        }
        match store::api_keys::revoke(conn, id)? {
            Revocation::Revoked => {}
            Revocation::Unknown => return Err(unknown()),
            Revocation::Configured => {
                return Err(ApiError::Conflict(
                    "this is the configured admin key (CATAN_ADMIN_KEY): change the configuration \
                     to replace it, which revokes it at the next start"
                        .into(),
                ));
            }
        }
        let audit = audit
            .concerning_events(events)
            .concerning_regions(regions.unwrap_or_default());
        audit.record(conn, StatusCode::NO_CONTENT)?;
        Ok(())
    })
    .await?;
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
    fn admin_keys_name_no_events_nor_regions() {
        assert_eq!(key_scope(Role::Admin, None, None).unwrap(), (None, None));
        let (field, code, _) = broken(key_scope(Role::Admin, Some(vec![]), None).unwrap_err());
        assert_eq!((field.as_str(), code), ("event_ids", ErrorCode::NotAllowed));
        let (field, code, _) = broken(key_scope(Role::Admin, None, Some(vec![])).unwrap_err());
        assert_eq!(
            (field.as_str(), code),
            ("region_ids", ErrorCode::NotAllowed)
        );
    }

    #[test]
    fn director_and_scorer_keys_name_their_events() {
        let event = Uuid::new_v4();
        for role in [Role::Director, Role::Scorer] {
            assert_eq!(
                key_scope(role, Some(vec![event]), None).unwrap(),
                (Some(vec![event]), None)
            );
            for none in [None, Some(vec![])] {
                let (field, code, _) = broken(key_scope(role, none, None).unwrap_err());
                assert_eq!((field.as_str(), code), ("event_ids", ErrorCode::Required));
            }
            let (field, code, _) =
                broken(key_scope(role, Some(vec![event]), Some(vec![event])).unwrap_err());
            assert_eq!(
                (field.as_str(), code),
                ("region_ids", ErrorCode::NotAllowed)
            );
        }
    }

    #[test]
    fn organiser_keys_name_their_regions() {
        let region = Uuid::new_v4();
        assert_eq!(
            key_scope(Role::Organiser, None, Some(vec![region])).unwrap(),
            (None, Some(vec![region]))
        );
        for none in [None, Some(vec![])] {
            let (field, code, _) = broken(key_scope(Role::Organiser, None, none).unwrap_err());
            assert_eq!((field.as_str(), code), ("region_ids", ErrorCode::Required));
        }
        let (field, code, _) =
            broken(key_scope(Role::Organiser, Some(vec![region]), Some(vec![region])).unwrap_err());
        assert_eq!((field.as_str(), code), ("event_ids", ErrorCode::NotAllowed));
    }

    #[test]
    fn organisers_issue_director_and_scorer_keys_only() {
        let mut claims = catan_kit::auth::claims_for(
            Uuid::new_v4(),
            Role::Organiser,
            None,
            std::time::Duration::from_secs(60),
        );
        claims.regions = Some(vec![Uuid::new_v4()]);
        let organiser = Principal(claims);
        assert!(may_issue(&organiser, Role::Director).is_ok());
        assert!(may_issue(&organiser, Role::Scorer).is_ok());
        assert!(may_issue(&organiser, Role::Organiser).is_err());
        assert!(may_issue(&organiser, Role::Admin).is_err());
    }

    #[test]
    fn players_have_no_keys() {
        let (field, code, _) =
            broken(key_scope(Role::Player, Some(vec![Uuid::new_v4()]), None).unwrap_err());
        assert_eq!((field.as_str(), code), ("role", ErrorCode::NotAKeyRole));
    }
}
