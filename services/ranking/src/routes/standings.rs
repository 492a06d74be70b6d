//! An event's standings: read once, or as a stream of server-sent events while they change.

use crate::State;
use crate::hub::{RECONNECT, StandingsHub, Watcher, standings_event, to_json};
use crate::standings::current_standings;
use actix_web::web::Bytes;
use actix_web::{HttpResponse, get, web};
use catan_api::{AnyStandings, Problem};
use catan_kit::ApiError;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(standings).service(standings_stream);
}

/// The standings. Classic events: credited VP, then the exact sum of VP shares, then games won;
/// players still equal share the rank. Partner events: points, then fewer VP against, then more
/// VP; the top three marked as prize winners. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("event_id" = Uuid, Path)),
    responses(
        (status = 200, body = AnyStandings),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/standings")]
async fn standings(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (body, up_to_date) = current_standings(&state, path.into_inner()).await?;
    Ok(super::with_freshness(HttpResponse::Ok(), up_to_date).json(body))
}

/// The standings as they change, as server-sent events: first a `standings` event with the
/// current standings (the JSON of `GET .../standings`), then another each time they change;
/// comment lines keep a quiet stream open. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("event_id" = Uuid, Path)),
    responses(
        (status = 200, description = "`event: standings` events, each with `data:` the standings as JSON", body = catan_api::types::StandingsEvent, content_type = "text/event-stream"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/standings/stream")]
async fn standings_stream(
    state: web::Data<State>,
    hub: web::Data<StandingsHub>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    // Errors (no such event, a peer down) are answered as problems before the stream starts.
    let (now, _) = current_standings(&state, event_id).await?;
    let json = to_json(&now)?;
    let mut first = RECONNECT.as_bytes().to_vec();
    first.extend_from_slice(&standings_event(&json));
    let watcher = Watcher {
        closing: hub.closing.clone(),
        receiver: hub.into_inner().watch(state, event_id),
        first: Some(Bytes::from(first)),
        last_sent: json,
    };
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        // Proxies such as nginx would otherwise buffer the stream.
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(futures_util::stream::unfold(watcher, Watcher::next_event)))
}
