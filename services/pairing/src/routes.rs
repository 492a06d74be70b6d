//! The pairing service's HTTP surface.

use crate::State;
use crate::draw::{MAX_SEED, draw_next_round};
use crate::store;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, get, post, put, web};
use catan_api::{DrawRound, KeepApart, Problem, Role, Round};
use catan_domain::board::{generate_board, render_svg, table_board_seed};
use catan_kit::ApiError;
use catan_kit::auth::Principal;
use catan_kit::db;
use catan_kit::idempotency::{self, Claim, IdempotencyKey, Reply, write_once};
use catan_kit::pagination::{PageQuery, page_response};
use catan_kit::peer::peer_error;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(draw_round)
        .service(list_rounds)
        .service(get_round)
        .service(table_board)
        .service(put_keep_apart)
        .service(get_keep_apart);
}

/// Draws the event's next round (the event's director): the qualifying rounds, then the
/// semi-finals (the top 16 drawn at random into 4 tables), then the final of the semi winners.
/// The previous round must have every table's result. The body is optional.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path)),
    request_body(content = Option<DrawRound>, description = "Optional: the seed to draw from"),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The round drawn", body = Round),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The previous round is incomplete, the field cannot be seated, or the event is complete", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "A peer service is unavailable; nothing was drawn", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/rounds")]
async fn draw_round(
    state: web::Data<State>,
    principal: Principal,
    idempotency: IdempotencyKey,
    path: web::Path<Uuid>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    principal.require_event(event_id, &[Role::Director])?;
    // The body is optional: nothing, `null` and `{}` all mean "a random seed".
    let request: DrawRound = if body.iter().all(u8::is_ascii_whitespace) {
        DrawRound::default()
    } else {
        match serde_json::from_slice::<Option<DrawRound>>(&body) {
            Ok(request) => request.unwrap_or_default(),
            Err(e) if e.is_syntax() || e.is_eof() => {
                return Err(ApiError::BadRequest(format!(
                    "the body is not valid JSON: {e}"
                )));
            }
            Err(e) => return Err(ApiError::field("body", "invalid_json", e.to_string())),
        }
    };
    if request.seed.is_some_and(|s| s > MAX_SEED) {
        return Err(ApiError::field(
            "seed",
            "out_of_range",
            format!("seed must be 0 to {MAX_SEED}"),
        ));
    }
    let claim = Claim::of(
        &principal,
        &idempotency,
        &format!("POST /v1/events/{event_id}/rounds"),
        &request,
    );
    if let Some(replay) = idempotency::replay(&state.pool, &claim).await? {
        return Ok(replay);
    }
    draw_next_round(&state, event_id, request.seed, principal.key_id(), claim).await
}

/// Every round of the event drawn so far.
#[utoipa::path(tag = "pairing", params(("event_id" = Uuid, Path), PageQuery), responses((status = 200, description = "A page of the event's rounds, oldest first", body = Vec<Round>)))]
#[get("/v1/events/{event_id}/rounds")]
async fn list_rounds(
    state: web::Data<State>,
    request: HttpRequest,
    path: web::Path<Uuid>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    let rounds = db::run(&state.pool, move |conn| store::rounds_of(conn, event_id)).await?;
    if rounds.is_empty() {
        // No round yet, or no such event: registration knows which.
        state
            .registration
            .event(event_id)
            .await
            .map_err(|e| peer_error("registration", e))?;
    }
    Ok(page_response(&request, &page, &page.slice(rounds)))
}

/// One round: its stage, seed, the engine's figures, and its tables with seats in play order and
/// why each table was formed.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path), ("number" = u32, Path)),
    responses((status = 200, body = Round), (status = 404, description = "Not drawn", body = Problem, content_type = "application/problem+json"))
)]
#[get("/v1/events/{event_id}/rounds/{number}")]
async fn get_round(
    state: web::Data<State>,
    path: web::Path<(Uuid, u32)>,
) -> Result<web::Json<Round>, ApiError> {
    let (event_id, number) = path.into_inner();
    let rounds = db::run(&state.pool, move |conn| store::rounds_of(conn, event_id)).await?;
    rounds
        .into_iter()
        .find(|r| r.number == number)
        .map(web::Json)
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "round {number} of event {event_id} has not been drawn"
            ))
        })
}

/// The board a table plays, set up the tournament way and reproducible from the round's seed:
/// JSON, or an SVG picture to print or project with `Accept: image/svg+xml`.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path), ("number" = u32, Path), ("table" = u32, Path)),
    responses(
                (status = 200, description = "The board: hexes with terrain and number tokens, harbours and the robber as JSON, or as an SVG picture",
            content((Object = "application/json"), (String = "image/svg+xml"))),
        (status = 404, description = "No such round or table", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/rounds/{number}/tables/{table}/board")]
async fn table_board(
    state: web::Data<State>,
    path: web::Path<(Uuid, u32, u32)>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (event_id, number, table) = path.into_inner();
    let rounds = db::run(&state.pool, move |conn| store::rounds_of(conn, event_id)).await?;
    let round = rounds
        .into_iter()
        .find(|r| r.number == number)
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "round {number} of event {event_id} has not been drawn"
            ))
        })?;
    if !round.tables.iter().any(|t| t.number == table) {
        return Err(ApiError::NotFound(format!(
            "round {number} has no table {table}"
        )));
    }
    let board = generate_board(table_board_seed(round.seed, table, round.board_mode));
    let wants_svg = request
        .headers()
        .get(actix_web::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("image/svg+xml"));
    Ok(if wants_svg {
        HttpResponse::Ok()
            .content_type("image/svg+xml")
            .body(render_svg(&board))
    } else {
        HttpResponse::Ok().json(board)
    })
}

/// Sets the players the event's director keeps apart (same family or club), replacing the
/// earlier pairs: they never share a table in round 1, and later only when no draw avoids it.
/// Both players of a pair must be entered in the event.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path)),
    request_body = KeepApart,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The event's keep-apart pairs now", body = KeepApart),
        (status = 422, description = "A pair names one player twice, or a player not entered in the event", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/events/{event_id}/keep-apart")]
async fn put_keep_apart(
    state: web::Data<State>,
    principal: Principal,
    idempotency: IdempotencyKey,
    path: web::Path<Uuid>,
    body: web::Json<KeepApart>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    principal.require_event(event_id, &[Role::Director])?;
    let body = body.into_inner();
    let claim = Claim::of(
        &principal,
        &idempotency,
        &format!("PUT /v1/events/{event_id}/keep-apart"),
        &body,
    );
    if let Some(replay) = idempotency::replay(&state.pool, &claim).await? {
        return Ok(replay);
    }
    let entries = state
        .registration
        .entries(event_id)
        .await
        .map_err(|e| peer_error("registration", e))?;
    let entered: std::collections::HashSet<Uuid> = entries
        .iter()
        .flat_map(|e| e.player_ids.iter().copied())
        .collect();
    for (i, [a, b]) in body.pairs.iter().enumerate() {
        if a == b {
            return Err(ApiError::field(
                &format!("pairs[{i}]"),
                "same_player",
                "a pair needs two different players",
            ));
        }
        if let Some(stranger) = [a, b].into_iter().find(|p| !entered.contains(p)) {
            return Err(ApiError::field(
                &format!("pairs[{i}]"),
                "not_entered",
                format!("player {stranger} is not entered in this event"),
            ));
        }
    }
    let pairs: Vec<(Uuid, Uuid)> = body.pairs.iter().map(|[a, b]| (*a, *b)).collect();
    write_once(&state.pool, claim, move |conn| {
        store::set_keep_apart(conn, event_id, &pairs)?;
        let now = store::keep_apart(conn, event_id)?;
        Reply::new(
            StatusCode::OK,
            &KeepApart {
                pairs: now.into_iter().map(|(a, b)| [a, b]).collect(),
            },
        )
    })
    .await
}

/// The players the event's director keeps apart.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path)),
    responses((status = 200, description = "The event's keep-apart pairs", body = KeepApart))
)]
#[get("/v1/events/{event_id}/keep-apart")]
async fn get_keep_apart(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<web::Json<KeepApart>, ApiError> {
    let event_id = path.into_inner();
    let pairs = db::run(&state.pool, move |conn| store::keep_apart(conn, event_id)).await?;
    if pairs.is_empty() {
        state
            .registration
            .event(event_id)
            .await
            .map_err(|e| peer_error("registration", e))?;
    }
    Ok(web::Json(KeepApart {
        pairs: pairs.into_iter().map(|(a, b)| [a, b]).collect(),
    }))
}
