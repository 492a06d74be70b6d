//! A round's clock as it changes, for the venue's screens and the consoles.

use crate::State;
use crate::clock::hub::{ClockHub, reading_event};
use crate::clock::store::clocked;
use actix_web::{HttpResponse, get, web};
use catan_api::Problem;
use catan_kit::client::{Client, ClientLimits};
use catan_kit::path::Ordinal;
use catan_kit::{ApiError, db};
use std::sync::Arc;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(clock_stream);
}

/// The round's clock as server-sent events: first a `clock` event with the clock now (the JSON
/// of `GET .../clock`, `server_time` included), then another each time the director acts (on
/// any replica) or the clock's state changes as time passes; comment lines keep a quiet stream
/// open. Needs no token. Streams count under the same caps as the standings' (per client, per
/// replica): past either, 429 with `Retry-After`.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path), ("number" = u32, Path)),
    responses(
        (status = 200, description = "`event: clock` events, each with `data:` the clock as JSON", body = catan_api::ClockEvent, content_type = "text/event-stream"),
        (status = 404, description = "No such round", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many streams open, from this client or in all: retry after `Retry-After` seconds", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/rounds/{number}/clock/stream")]
async fn clock_stream(
    state: web::Data<State>,
    hub: web::Data<ClockHub>,
    limits: web::Data<ClientLimits>,
    client: Client,
    path: web::Path<(Uuid, Ordinal)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(number)) = path.into_inner();
    // Held by the stream: its place is free again when the stream ends.
    let slot = limits.open_stream(client)?;
    // No such round is answered as a problem before the stream starts.
    let (round, first) = db::run(&state.pool, move |conn| {
        let round = clocked(conn, event_id, number)?;
        let first = reading_event(conn, &round)?;
        Ok((round, first))
    })
    .await?;
    let (pool, round) = (state.pool.clone(), Arc::new(round));
    Ok(hub
        .into_inner()
        .stream((event_id, number), first, slot, move || {
            let (pool, round) = (pool.clone(), round.clone());
            async move { db::run(&pool, move |conn| reading_event(conn, &round).map(Some)).await }
        }))
}
