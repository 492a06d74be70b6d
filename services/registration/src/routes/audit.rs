//! The audit trail of every service, for the admin, the organisers and the directors: each
//! service records its own changes; registration reads the others' through their internal route
//! and merges them in the order they were made.

use crate::State;
use crate::store;
use actix_web::{HttpResponse, get, web};
use catan_api::{
    ApiClient, AuditQuery, AuditRecord, AuditScope, AuditSearch, Problem, RetryPolicy,
};
use catan_kit::auth::{Principal, Role};
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::settings::{ExposeSecret, Settings};
use catan_kit::{ApiError, db};
use std::time::Duration;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(list_audit);
}

/// A service whose audit records registration reads.
pub(crate) struct AuditPeer {
    service: &'static str,
    /// `None` without an internal key: the service cannot be asked.
    client: Option<ApiClient>,
}

/// Pairing, results and ranking, each through a client holding the internal key.
pub(crate) fn audit_peers(settings: &Settings) -> Vec<AuditPeer> {
    let policy = RetryPolicy {
        attempts: 2,
        first_backoff: Duration::from_millis(100),
        timeout: Duration::from_secs(5),
    };
    let key = settings.webhooks.internal_key.as_ref();
    [
        ("pairing", &settings.peers.pairing),
        ("results", &settings.peers.results),
        ("ranking", &settings.peers.ranking),
    ]
    .into_iter()
    .map(|(service, url)| AuditPeer {
        service,
        client: key.map(|key| ApiClient::with_policy(url, policy).with_token(key.expose_secret())),
    })
    .collect()
}

/// What `principal` may see of the trail, narrowed to `query.region_id`, and checked against
/// `query.event_id`: `None` is every record (the admin's). The admin sees all of it, an organiser
/// its regions (their events, and what names them), a director its events; 403 for the others,
/// and for a region or event outside the caller's.
fn visible(
    conn: &mut diesel::PgConnection,
    principal: &Principal,
    query: &AuditQuery,
) -> Result<Option<AuditScope>, ApiError> {
    let outside = |what: String| ApiError::Forbidden(format!("this key does not see {what}"));
    let scope = match principal.role() {
        Role::Admin => match query.region_id {
            None => return Ok(None),
            Some(region) => AuditScope {
                event_ids: store::events::of_regions(conn, &[region])?,
                region_ids: vec![region],
            },
        },
        Role::Organiser => {
            let regions = match query.region_id {
                Some(region) if !principal.regions().contains(&region) => {
                    return Err(outside(format!("region {region}")));
                }
                Some(region) => vec![region],
                None => principal.regions().to_vec(),
            };
            AuditScope {
                event_ids: store::events::of_regions(conn, &regions)?,
                region_ids: regions,
            }
        }
        Role::Director => {
            let mut events = principal.events().to_vec();
            if let Some(region) = query.region_id {
                let of_region = store::events::of_regions(conn, &[region])?;
                events.retain(|event| of_region.contains(event));
            }
            AuditScope {
                event_ids: events,
                region_ids: Vec::new(),
            }
        }
        other => {
            return Err(ApiError::Forbidden(format!(
                "the audit trail is for admin, organiser and director keys; this key is a {}",
                other.as_str()
            )));
        }
    };
    match query.event_id {
        Some(event) if !scope.event_ids.contains(&event) => Err(outside(format!("event {event}"))),
        _ => Ok(Some(scope)),
    }
}

/// The audit trail: each change made through the API, the oldest first, with who made it (the
/// key and its role), what (the method, the route's pattern, the ids it was about), when and the
/// answer's status; never a secret, PIN or token. Only changes are recorded (a refused call
/// changes nothing). The admin sees all of it; an organiser its regions' (their events, and what
/// names them); a director its events'. Filtered by `region_id`, `event_id`, `key_id` and the
/// instants `from` (included) and `to` (excluded). Paginated. 503 while a service's records
/// cannot be read: the trail is never answered with a gap.
#[utoipa::path(
    tag = "audit",
    params(AuditQuery, PageQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of the trail, the oldest change first", body = Vec<AuditRecord>),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin, organiser or director key, or a region or event outside the key's", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "A service's records cannot be read just now", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/audit")]
async fn list_audit(
    state: web::Data<State>,
    principal: Principal,
    query: web::Query<AuditQuery>,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let asked = query.clone();
    let scope = db::run(&state.pool, move |conn| visible(conn, &principal, &asked)).await?;
    let wanted = page.query().offset().saturating_add(page.query().limit());
    let search = AuditSearch {
        scope,
        event_id: query.event_id,
        key_id: query.key_id,
        from: query.from,
        to: query.to,
        limit: wanted,
    };
    let records = every_record(&state, search).await?;
    Ok(page.respond(&page.slice(records)))
}

/// The first `search.limit` records of every service, merged in the order they were made.
async fn every_record(state: &State, search: AuditSearch) -> Result<Vec<AuditRecord>, ApiError> {
    let own = search.clone();
    // With the records venues' publishes brought (issue 34), kept in registration's log.
    let mut records = db::run(&state.pool, move |conn| {
        Ok(catan_kit::audit::search(conn, "registration", &own)?)
    })
    .await?;
    let asked = state.audit_peers.iter().map(|peer| {
        let search = &search;
        async move {
            let client = peer
                .client
                .as_ref()
                .ok_or_else(|| "no internal key".to_string())?;
            client
                .internal_audit(search)
                .await
                .map_err(|e| e.to_string())
        }
    });
    for (peer, answer) in state
        .audit_peers
        .iter()
        .zip(futures_util::future::join_all(asked).await)
    {
        match answer {
            Ok(theirs) => records.extend(theirs),
            Err(cause) => {
                return Err(ApiError::unavailable(
                    format!(
                        "{}'s audit records cannot be read just now; try again",
                        peer.service
                    ),
                    cause,
                ));
            }
        }
    }
    records.sort_by(|a, b| a.at.cmp(&b.at).then(a.id.cmp(&b.id)));
    Ok(records)
}
