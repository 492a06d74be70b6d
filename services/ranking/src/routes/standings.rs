//! An event's standings: read once, or as a stream of server-sent events while they change.

use crate::State;
use crate::hub::{StandingsHub, StandingsJson};
use crate::progress::{Need, Waits};
use crate::served_cache::ServedCache;
use crate::store::{self, View};
use actix_web::{HttpRequest, HttpResponse, get, web};
use catan_api::{AnyStandings, Problem};
use catan_kit::ApiError;
use catan_kit::client::{Client, ClientLimits};
use std::sync::Arc;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(standings).service(standings_stream);
}

/// The standings. Classic events: credited VP, then the exact sum of VP shares, then games won;
/// players still equal share the rank. Partner events: points, then fewer VP against, then more
/// VP; the top three marked as prize winners. `as_of` is the last change they include; they
/// carry an `ETag`, and `If-None-Match` answers `304` while they are unchanged. When a producer
/// cannot be read they still answer, with a `Warning` that they may be behind. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("event_id" = Uuid, Path)),
    responses(
        (status = 200, body = AnyStandings, headers(("ETag" = String, description = "The standings' version"))),
        (status = 304, description = "Unchanged since the `If-None-Match` version"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/standings")]
async fn standings(
    state: web::Data<State>,
    cache: web::Data<ServedCache>,
    request: HttpRequest,
    waits: Waits,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event = path.into_inner();
    super::serve_view(&state, &cache, &request, &waits, event, View::Standings).await
}

/// The standings as they change, as server-sent events: first a `standings` event with the
/// current standings (the JSON of `GET .../standings`), then another each time they change;
/// comment lines keep a quiet stream open. Needs no token. A client may keep
/// `CATAN_STREAMS_PER_CLIENT` streams open at once (10), a replica `CATAN_STREAMS_TOTAL` (2000):
/// past either, 429 with `Retry-After`.
#[utoipa::path(
    tag = "ranking",
    params(("event_id" = Uuid, Path)),
    responses(
        (status = 200, description = "`event: standings` events, each with `data:` the standings as JSON", body = catan_api::types::StandingsEvent, content_type = "text/event-stream"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many streams open, from this client or in all (or too many requests without a token from this client): retry after `Retry-After` seconds", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/standings/stream")]
async fn standings_stream(
    state: web::Data<State>,
    hub: web::Data<StandingsHub>,
    limits: web::Data<ClientLimits>,
    client: Client,
    waits: Waits,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    // Held by the stream: its place is free again when the stream ends.
    let slot = limits.open_stream(client)?;
    // No such event is answered as a problem before the stream starts.
    let json = waits
        .found(&Need::Event(event_id), || {
            catan_kit::db::run(&state.pool, move |conn| {
                store::stored(conn, event_id, View::Standings)
            })
        })
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no event {event_id} is known to ranking")))?
        .body;
    let pool = state.pool.clone();
    let first = StandingsJson(Arc::new(json));
    Ok(hub.into_inner().stream(event_id, first, slot, move || {
        let pool = pool.clone();
        async move {
            let stored = catan_kit::db::run(&pool, move |conn| {
                store::stored(conn, event_id, View::Standings)
            })
            .await?;
            Ok(stored.map(|stored| StandingsJson(Arc::new(stored.body))))
        }
    }))
}
