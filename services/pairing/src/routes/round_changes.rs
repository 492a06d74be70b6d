//! The director's corrections to a round before it is played (issue 41): drawn again from the
//! players entered now (after a no-show is dropped), or two players swapped between its tables.

use crate::State;
use crate::draw::{MAX_SEED, drawn_seed, planned_round};
use crate::store;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, post, web};
use catan_api::{DrawRound, EventFormat, Problem, Role, Round, SwapPlayers};
use catan_domain::pairing::undo::{SwapRefusal, may_change_round, swap_players};
use catan_kit::idempotency::Reply;
use catan_kit::optional_body::OptionalBody;
use catan_kit::path::Ordinal;
use catan_kit::problem::ErrorCode;
use catan_kit::{ApiError, IdempotentWrite, db};
use std::collections::HashMap;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(redraw_round).service(swap);
}

/// Draws the event's latest round again (its director), from the players entered now (a
/// player dropped since is not seated) and a new seed, which is stored with it: the same seed
/// and field give the same round. Only while none of its tables has a result. The earlier draw
/// (its seed and tables) is kept in the audit trail; a `round.drawn` webhook carries the new one.
/// The body is optional.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path), ("number" = u32, Path)),
    request_body(content = Option<DrawRound>, description = "Optional: the seed to draw from (practice events only)"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The round drawn again", body = Round),
        (status = 404, description = "No such event or round", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A table of the round has a result, the round is not the event's latest, the field cannot be seated, or the event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "A peer service is unavailable; nothing was drawn", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/rounds/{number}/redraw")]
async fn redraw_round(
    state: web::Data<State>,
    mut write: IdempotentWrite<OptionalBody<DrawRound>>,
    path: web::Path<(Uuid, Ordinal)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(number)) = path.into_inner();
    write.require_event(event_id, &[Role::Director])?;
    let seed = write.body().0.seed;
    if seed.is_some_and(|s| s > MAX_SEED) {
        return Err(ApiError::field(
            "seed",
            ErrorCode::OutOfRange,
            format!("seed must be 0 to {MAX_SEED}"),
        ));
    }
    let event = state.peers.registration.event(event_id).await?;
    let seed = drawn_seed(&event, seed)?;
    let (rounds, old) = changeable(&state, event_id, number).await?;
    let build = planned_round(&state, &event, &rounds[..rounds.len() - 1], seed).await?;
    write.note_in_audit("previous_draw", previous_draw(&old));
    let drawn_by = write.principal().key_id();
    write
        .write(move |conn| {
            let earlier = locked_unchanged(conn, &old)?;
            let mut round = build(conn, &earlier)?;
            // Drawn again, it is still the round that was in play: it keeps the time it was
            // first drawn, so an entry dropped during it (the no-show the redraw leaves out) may
            // come back until the next round is drawn.
            round.drawn_at = old.drawn_at;
            store::replace_round(conn, &round, drawn_by)?;
            announce(conn, &round)
        })
        .await
}

/// Swaps two players between tables of the event's latest round (its director): each takes the
/// other's table and seat. Only while none of the round's tables has a result; the round then
/// says it was changed by hand (`changed_by_hand`), and the tables before the swap are kept in
/// the audit trail; a `round.drawn` webhook carries the round as changed.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path), ("number" = u32, Path)),
    request_body = SwapPlayers,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The round with the two players swapped", body = Round),
        (status = 404, description = "No such event or round", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A table of the round has a result, the round is not the event's latest, or the event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A player is not seated in the round (`not_entered`), the same player twice (`same_player`), both at one table (`not_allowed`), or a partner event (`not_for_format`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "A peer service is unavailable; nothing was changed", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/rounds/{number}/swap")]
async fn swap(
    state: web::Data<State>,
    mut write: IdempotentWrite<web::Json<SwapPlayers>>,
    path: web::Path<(Uuid, Ordinal)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(number)) = path.into_inner();
    write.require_event(event_id, &[Role::Director])?;
    let SwapPlayers {
        player_id,
        with_player_id,
    } = **write.body();
    if player_id == with_player_id {
        return Err(ApiError::field(
            "with_player_id",
            ErrorCode::SamePlayer,
            "a player is swapped with another player",
        ));
    }
    let (_, old) = changeable(&state, event_id, number).await?;
    if old.format == EventFormat::Partner {
        return Err(ApiError::field(
            "player_id",
            ErrorCode::NotForFormat,
            "a partner event's tables seat teams: redraw the round rather than swap players",
        ));
    }
    let mut round = swapped(&old, player_id, with_player_id)?;
    round.changed_by_hand = true;
    write.note_in_audit("previous_draw", previous_draw(&old));
    write
        .write(move |conn| {
            locked_unchanged(conn, &old)?;
            store::replace_tables(conn, &round)?;
            announce(conn, &round)
        })
        .await
}

/// The event's rounds and round `number`, when it may change: the event's latest round, none of
/// whose tables has a result (the results service says, through its client's timeout and
/// retries); else 404 or 409 in words.
async fn changeable(
    state: &State,
    event_id: Uuid,
    number: u32,
) -> Result<(Vec<Round>, Round), ApiError> {
    let rounds = db::run(&state.pool, move |conn| {
        catan_kit::checkouts::refuse_if_checked_out(conn, event_id)?;
        store::rounds_of(conn, event_id)
    })
    .await?;
    let Some(round) = rounds.iter().find(|r| r.number == number).cloned() else {
        return Err(ApiError::NotFound(format!(
            "round {number} of event {event_id} has not been drawn"
        )));
    };
    let reported = state.peers.results.round_results(event_id, number).await?;
    let with_result: Vec<u32> = reported.items.iter().map(|r| r.table).collect();
    let latest = rounds.last().map_or(number, |r| r.number);
    may_change_round(number, latest, &with_result)
        .map_err(|refusal| ApiError::Conflict(refusal.to_string()))?;
    Ok((rounds, round))
}

/// Under the event's lock, the event's rounds before `old`, once `old` is found as it was read
/// (not drawn again or changed meanwhile, no later round drawn); else 409.
fn locked_unchanged(conn: &mut diesel::PgConnection, old: &Round) -> Result<Vec<Round>, ApiError> {
    catan_kit::db::lock_event(conn, old.event_id)?;
    catan_kit::checkouts::refuse_if_checked_out(conn, old.event_id)?;
    let mut rounds = store::rounds_of(conn, old.event_id)?;
    let now = rounds.pop();
    let same = now.as_ref().is_some_and(|now| {
        now.number == old.number
            && now.seed == old.seed
            && now.drawn_at == old.drawn_at
            && seats_of(now) == seats_of(old)
    });
    if !same {
        return Err(ApiError::Conflict(format!(
            "round {} was changed meanwhile; reload and try again",
            old.number
        )));
    }
    Ok(rounds)
}

/// The round's tables as player ids in play order.
fn seats_of(round: &Round) -> Vec<Vec<Uuid>> {
    round
        .tables
        .iter()
        .map(|t| t.seats.iter().map(|s| s.player_id).collect())
        .collect()
}

/// The round with `a` and `b` swapped, each with his entry; 422 naming the field otherwise.
fn swapped(round: &Round, a: Uuid, b: Uuid) -> Result<Round, ApiError> {
    let mut tables = seats_of(round);
    swap_players(&mut tables, a, b).map_err(|refusal| {
        let (field, code) = match refusal {
            SwapRefusal::NotSeated { which: 0 } => ("player_id", ErrorCode::NotEntered),
            SwapRefusal::NotSeated { .. } => ("with_player_id", ErrorCode::NotEntered),
            SwapRefusal::SameTable => ("with_player_id", ErrorCode::NotAllowed),
        };
        let message = match refusal {
            SwapRefusal::NotSeated { .. } => {
                format!("this player is not seated in round {}", round.number)
            }
            SwapRefusal::SameTable => refusal.to_string(),
        };
        ApiError::field(field, code, message)
    })?;
    let entry_of: HashMap<Uuid, Uuid> = round
        .tables
        .iter()
        .flat_map(|t| t.seats.iter().map(|s| (s.player_id, s.entry_id)))
        .collect();
    let mut changed = round.clone();
    for (table, players) in changed.tables.iter_mut().zip(tables) {
        for (seat, player) in table.seats.iter_mut().zip(players) {
            seat.player_id = player;
            seat.entry_id = entry_of[&player];
        }
    }
    Ok(changed)
}

/// What the audit trail keeps of a draw replaced, as JSON text (the trail's targets are text):
/// its seed, when it was drawn, whether it had been changed by hand, and its tables (player ids
/// in play order).
fn previous_draw(round: &Round) -> serde_json::Value {
    let draw = serde_json::json!({
        "seed": round.seed,
        "drawn_at": round.drawn_at,
        "changed_by_hand": round.changed_by_hand,
        "tables": seats_of(round),
    });
    serde_json::Value::String(draw.to_string())
}

/// The round as changed, to the webhooks' subscribers and in the answer.
fn announce(conn: &mut diesel::PgConnection, round: &Round) -> Result<Reply, ApiError> {
    catan_kit::webhooks::enqueue(
        conn,
        catan_api::WebhookEventType::RoundDrawn,
        round.event_id,
        round,
    )?;
    Reply::new(StatusCode::OK, round)
}
