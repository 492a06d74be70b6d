//! Dead letters, for the admin: registration's failed deliveries, and the events pairing,
//! results and ranking could not relay, which registration reads from their internal routes.

use crate::State;
use crate::store;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use catan_api::{ApiClient, ClientError, DeadLetter, DeadLetterList, Problem, RetryPolicy};
use catan_kit::auth::Principal;
use catan_kit::idempotency::Reply;
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::settings::{ExposeSecret, Settings};
use catan_kit::{ApiError, IdempotentWrite, db};
use std::time::Duration;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(list_dead_letters).service(replay_dead_letter);
}

/// A service with an outbox, as registration asks it for its dead relay events.
pub(crate) struct OutboxPeer {
    service: &'static str,
    /// `None` without an internal key: the service cannot be asked.
    client: Option<ApiClient>,
}

/// The services with an outbox, each through a client holding the internal key: short timeouts,
/// so a service that is down costs the admin's list seconds, not minutes.
pub(crate) fn outbox_peers(settings: &Settings) -> Vec<OutboxPeer> {
    let policy = RetryPolicy {
        attempts: 2,
        first_backoff: Duration::from_millis(100),
        timeout: Duration::from_secs(3),
    };
    let key = settings.webhooks.internal_key.as_ref();
    [
        ("pairing", &settings.peers.pairing),
        ("results", &settings.peers.results),
        ("ranking", &settings.peers.ranking),
    ]
    .into_iter()
    .map(|(service, url)| OutboxPeer {
        service,
        client: key.map(|key| ApiClient::with_policy(url, policy).with_token(key.expose_secret())),
    })
    .collect()
}

/// Every kind of dead letter, the latest to die first (admin). Registration's failed deliveries
/// and the events pairing, results and ranking could not relay after `CATAN_WEBHOOKS_RELAY_MAX_ATTEMPTS`
/// tries. A service that cannot be read just now is named in `unavailable`, and the page lacks
/// its dead letters. Paginated.
#[utoipa::path(
    tag = "webhooks",
    params(PageQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of dead letters, the latest to die first", body = DeadLetterList),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/admin/dead-letters")]
async fn list_dead_letters(
    state: web::Data<State>,
    principal: Principal,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    principal.require_admin()?;
    let (items, unavailable) = every_dead_letter(&state, page.query()).await?;
    let items = page.slice(items);
    Ok(page
        .response(items.len())
        .json(DeadLetterList { items, unavailable }))
}

/// Makes a dead letter due again with its tries counted from 0 (admin): a delivery is sent again
/// soon, an outbox event relayed again. Answers its state now; one replayed already and not
/// through yet answers its state as it is.
#[utoipa::path(
    tag = "webhooks",
    params(("dead_letter_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Due again", body = DeadLetter),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such dead letter (or it went through since)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "A service that may hold it could not be asked", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/admin/dead-letters/{dead_letter_id}/replay")]
async fn replay_dead_letter(
    state: web::Data<State>,
    write: IdempotentWrite<()>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    write.require_admin()?;
    let id = path.into_inner();
    let local = db::run(&state.pool, move |conn| {
        Ok(store::dead_letters::is_replayable(conn, id)?)
    })
    .await?;
    if !local {
        let replayed = replay_relayed(&state, id).await?;
        return write
            .write(move |_| Reply::new(StatusCode::OK, &replayed))
            .await;
    }
    let answer = write
        .write(move |conn| {
            let replayed = store::dead_letters::replay(conn, id)?.ok_or_else(|| not_found(id))?;
            Reply::new(StatusCode::OK, &replayed)
        })
        .await?;
    state.deliveries_due.notify_one();
    Ok(answer)
}

fn not_found(id: Uuid) -> ApiError {
    ApiError::NotFound(format!("there is no dead letter {id}"))
}

/// The first `offset + limit` dead letters of every source, merged, the latest to die first, and
/// the services that could not be read.
async fn every_dead_letter(
    state: &State,
    page: PageQuery,
) -> Result<(Vec<DeadLetter>, Vec<String>), ApiError> {
    let wanted = page.offset().saturating_add(page.limit());
    let mut items = db::run(&state.pool, move |conn| {
        Ok(store::dead_letters::dead(conn, wanted)?)
    })
    .await?;
    let at_most = usize::try_from(wanted).unwrap_or(usize::MAX);
    let asked = state.outboxes.iter().map(|peer| async move {
        match &peer.client {
            Some(client) => client.internal_dead_letters(at_most).await,
            None => Err(ClientError::Transport("no internal key".into())),
        }
    });
    let mut unavailable = Vec::new();
    for (peer, answer) in state
        .outboxes
        .iter()
        .zip(futures_util::future::join_all(asked).await)
    {
        match answer {
            Ok(theirs) => items.extend(theirs),
            Err(error) => {
                tracing::warn!(service = peer.service, %error, "could not read the dead letters");
                unavailable.push(peer.service.to_string());
            }
        }
    }
    items.sort_by(|a, b| b.dead_at.cmp(&a.dead_at).then(a.id.cmp(&b.id)));
    Ok((items, unavailable))
}

/// Replays the relay event `id` in whichever service holds it: 404 when none does, 503 when one
/// that might could not be asked.
async fn replay_relayed(state: &State, id: Uuid) -> Result<DeadLetter, ApiError> {
    let mut unreachable = Vec::new();
    for peer in &state.outboxes {
        let Some(client) = &peer.client else {
            unreachable.push(peer.service);
            continue;
        };
        match client.internal_replay_dead_letter(id).await {
            Ok(replayed) => return Ok(replayed),
            Err(e) if e.status() == Some(404) => {}
            Err(error) => {
                tracing::warn!(service = peer.service, %error, "could not replay a dead letter");
                unreachable.push(peer.service);
            }
        }
    }
    if unreachable.is_empty() {
        return Err(not_found(id));
    }
    Err(ApiError::unavailable(
        format!(
            "{} could not be asked for dead letter {id}; try again",
            unreachable.join(" and ")
        ),
        "a service with an outbox did not answer",
    ))
}
