//! The board each table plays, as JSON or as an SVG picture.

use crate::State;
use actix_web::{HttpRequest, HttpResponse, get, web};
use catan_api::Problem;
use catan_domain::board::{generate_board, render_svg, table_board_seed};
use catan_kit::ApiError;
use catan_kit::path::Ordinal;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(table_board);
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
    path: web::Path<(Uuid, Ordinal, Ordinal)>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(number), Ordinal(table)) = path.into_inner();
    let round = super::rounds::round_of(&state, event_id, number).await?;
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
