//! The signed results sheet: each seated player confirms the posted result, or disputes it with
//! a reason; the director resolves a dispute with a correction (`PUT .../result` with If-Match).

use crate::State;
use crate::drawn_rounds::DrawnRounds;
use crate::store;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, post, web};
use catan_api::{ConfirmResult, DisputeResult, Problem, Role, TableResult};
use catan_domain::reporting::player_may_confirm;
use catan_kit::auth::Principal;
use catan_kit::idempotency::Reply;
use catan_kit::optional_body::OptionalBody;
use catan_kit::path::Ordinal;
use catan_kit::player_token::require_player;
use catan_kit::problem::ErrorCode;
use catan_kit::{ApiError, IdempotentWrite};
use diesel::prelude::*;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(confirm_result).service(dispute_result);
}

/// The signed-in player, who must be signed in for this event.
fn player_of(principal: &Principal, event_id: Uuid) -> Result<Uuid, ApiError> {
    require_player(principal, event_id, "confirming or disputing a result")
}

/// Refuses a player's own confirmation or dispute in a round drawn with `player_reporting: off`,
/// where the director confirms for the players.
async fn players_sign(
    state: &State,
    rounds: &DrawnRounds,
    event_id: Uuid,
    round: u32,
) -> Result<(), ApiError> {
    let round = rounds
        .get(&state.peers.pairing, &state.pool, event_id, round)
        .await?;
    player_may_confirm(round.player_reporting)
        .map_err(|refusal| ApiError::Forbidden(refusal.to_string()))
}

/// Who a confirmation is for, and the director's API key when he makes it for that player: a
/// player signed in for the event confirms for himself (naming no one else); the event's
/// director, or the admin, names the seated player he confirms for.
fn confirmer(
    principal: &Principal,
    event_id: Uuid,
    named: Option<Uuid>,
) -> Result<(Uuid, Option<Uuid>), ApiError> {
    match principal.role() {
        Role::Player => {
            let player = player_of(principal, event_id)?;
            match named {
                Some(other) if other != player => Err(ApiError::Forbidden(
                    "a player confirms for himself only; the director confirms for another".into(),
                )),
                _ => Ok((player, None)),
            }
        }
        Role::Director | Role::Admin => {
            principal.require_event(event_id, &[Role::Director])?;
            let player = named.ok_or_else(|| {
                ApiError::field(
                    "player_id",
                    ErrorCode::Required,
                    "the director names the player he confirms for",
                )
            })?;
            Ok((player, Some(principal.key_id())))
        }
        _ => player_of(principal, event_id).map(|player| (player, None)),
    }
}

/// What `player` signs on a table's current result, which the player must have played in:
/// `record` stores it for the result's version and says whether it is new (a new signature moves
/// the result up the change feed). Answers the result as it is now, and whether it was new.
fn sign(
    conn: &mut PgConnection,
    (event_id, round, table): (Uuid, u32, u32),
    player: Uuid,
    record: impl FnOnce(&mut PgConnection, u32) -> Result<bool, ApiError>,
) -> Result<(TableResult, bool), ApiError> {
    catan_kit::checkouts::refuse_if_checked_out(conn, event_id)?;
    let recorded = store::current_locked(conn, event_id, round, table)?.ok_or_else(|| {
        ApiError::NotFound(format!("table {table} of round {round} has no result"))
    })?;
    if !recorded.scores.iter().any(|s| s.player_id == player) {
        return Err(ApiError::Forbidden(format!(
            "player {player} did not play at table {table} of round {round}"
        )));
    }
    let added = record(conn, recorded.version)?;
    if added {
        store::touch(conn, event_id, round, table)?;
    }
    let now = store::current(conn, event_id, round, table)?
        .ok_or_else(|| ApiError::internal("result vanished"))?;
    Ok((now, added))
}

/// The signed-in player confirms the table's current result, as signing the results sheet.
/// Once every seated player has confirmed, the table's status is `confirmed`. The event's
/// director (or the admin) may confirm for a seated player, e.g. one who cannot sign in, by
/// naming him (`{"player_id": ...}`): the player counts as confirmed, and the result (and its
/// history) lists the confirmation in `confirmed_by_director` with the director's key. In a
/// round drawn with `player_reporting: off` only the director confirms: a player's own
/// confirmation is refused (403).
#[utoipa::path(
    tag = "results",
    params(("event_id" = Uuid, Path), ("round" = u32, Path), ("table" = u32, Path)),
    request_body(content = Option<ConfirmResult>, description = "Optional: the player the director confirms for"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The result with its confirmations and status", body = TableResult),
        (status = 403, description = "Not a player of this table signed in for this event (or naming another player), nor the event's director; or a player in a round drawn with `player_reporting: off`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No result yet", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A director's confirmation names no player", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/rounds/{round}/tables/{table}/result/confirm")]
async fn confirm_result(
    state: web::Data<State>,
    rounds: web::Data<DrawnRounds>,
    write: IdempotentWrite<OptionalBody<ConfirmResult>>,
    path: web::Path<(Uuid, Ordinal, Ordinal)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(round), Ordinal(table)) = path.into_inner();
    let at = (event_id, round, table);
    let (player, on_behalf_by) = confirmer(write.principal(), at.0, write.body().0.player_id)?;
    if on_behalf_by.is_none() {
        players_sign(&state, &rounds, event_id, round).await?;
    }
    write
        .write(move |conn| {
            let (result, added) = sign(conn, at, player, |conn, version| {
                store::confirm(conn, at, version, player, on_behalf_by)
            })?;
            if added {
                crate::webhook_events::enqueue_all(
                    conn,
                    &result,
                    crate::webhook_events::of_confirmed(&result)?,
                )?;
            }
            Reply::new(StatusCode::OK, &result)
        })
        .await
}

/// The signed-in player disputes the table's current result, with a reason. The table's status
/// is `disputed` until the director corrects the result, which resolves the dispute. Refused
/// (403) in a round drawn with `player_reporting: off`.
#[utoipa::path(
    tag = "results",
    params(("event_id" = Uuid, Path), ("round" = u32, Path), ("table" = u32, Path)),
    request_body = DisputeResult,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The result with the dispute and its status", body = TableResult),
        (status = 403, description = "Not a player of this table signed in for this event, or a round drawn with `player_reporting: off`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No result yet", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The player already disputes this version; or the event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/rounds/{round}/tables/{table}/result/dispute")]
async fn dispute_result(
    state: web::Data<State>,
    rounds: web::Data<DrawnRounds>,
    write: IdempotentWrite<web::Json<DisputeResult>>,
    path: web::Path<(Uuid, Ordinal, Ordinal)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(round), Ordinal(table)) = path.into_inner();
    let at = (event_id, round, table);
    let player = player_of(write.principal(), at.0)?;
    let reason = dispute_reason(&write.body().reason)?;
    players_sign(&state, &rounds, event_id, round).await?;
    write
        .write(move |conn| {
            let (result, added) = sign(conn, at, player, |conn, version| {
                store::dispute(conn, at, version, player, &reason)
            })?;
            if !added {
                return Err(ApiError::Conflict(format!(
                    "you already dispute version {} of this result",
                    result.version
                )));
            }
            crate::webhook_events::enqueue_all(
                conn,
                &result,
                crate::webhook_events::of_disputed(&result)?,
            )?;
            Reply::new(StatusCode::OK, &result)
        })
        .await
}

/// A dispute's reason, trimmed: 1 to 500 characters without control characters.
fn dispute_reason(text: &str) -> Result<String, ApiError> {
    let reason = text.trim();
    if reason.is_empty() || reason.chars().count() > 500 || reason.chars().any(char::is_control) {
        return Err(ApiError::field(
            "reason",
            ErrorCode::InvalidReason,
            "a dispute needs a reason of 1 to 500 characters, without control characters",
        ));
    }
    Ok(reason.to_string())
}
