//! Ratings: the leaderboard, a player's history, and a table's predicted winner.

use crate::State;
use crate::progress::{Need, Waits};
use crate::{ratings, store};
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use catan_api::{
    PlayerRatings, Prediction, PredictionRequest, Problem, RatingsLeaderboard, WinChance,
};
use catan_domain::ratings::Model;
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::problem::ErrorCode;
use catan_kit::{ApiError, conditional, db};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(leaderboard)
        .service(player_ratings)
        .service(predict);
}

/// Players rated fewer times than this are provisional unless the request says otherwise.
const DEFAULT_MIN_GAMES: u32 = 10;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct LeaderboardQuery {
    /// Only players of this region.
    #[param(nullable = false)]
    region_id: Option<Uuid>,
    /// Players with fewer rated games are marked provisional (default 10).
    #[param(nullable = false, minimum = 0)]
    min_games: Option<u16>,
}

/// The ratings leaderboard, best first: every rated player's μ − 3σ (the openskill model's
/// Weng-Lin Plackett-Luce rating, updated game by game in the order played), and `as_of`, the
/// last change the ratings include. Paginated; carries an `ETag`. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(LeaderboardQuery, PageQuery),
    responses((status = 200, body = RatingsLeaderboard), (status = 304, description = "Unchanged since the `If-None-Match` version"))
)]
#[get("/v1/ratings")]
async fn leaderboard(
    state: web::Data<State>,
    request: HttpRequest,
    waits: Waits,
    query: web::Query<LeaderboardQuery>,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    let LeaderboardQuery {
        region_id,
        min_games,
    } = query.into_inner();
    waits.until(&Need::Ratings).await?;
    let min_games = min_games.map_or(DEFAULT_MIN_GAMES, u32::from);
    let bounds = (page.query().limit(), page.query().offset());
    let (board, behind) = db::run(&state.pool, move |conn| {
        Ok((
            ratings::leaderboard(conn, region_id, min_games, bounds)?,
            store::behind(conn)?,
        ))
    })
    .await?;
    let response = super::with_freshness(page.response(board.rows.len()), behind);
    conditional::respond_json(&request, response, &board)
}

/// A player's rating now, and game by game with μ and σ before and after, oldest first; `as_of` is
/// the last change the ratings include. A merged player's is his survivor's. Carries an `ETag`.
/// Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("player_id" = Uuid, Path)),
    responses(
        (status = 200, body = PlayerRatings),
        (status = 304, description = "Unchanged since the `If-None-Match` version"),
        (status = 404, description = "No such player", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/{player_id}/ratings")]
async fn player_ratings(
    state: web::Data<State>,
    request: HttpRequest,
    waits: Waits,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let player = path.into_inner();
    let missing = format!("no player {player} is known to ranking");
    super::serve_read(
        &state,
        &request,
        &waits,
        Need::Ratings,
        move |conn| ratings::history_of(conn, player),
        missing,
    )
    .await
}

/// Each player's chance of winning a table of 3 or 4 different players under the rating model
/// (openskill's `predict_win`), from their current ratings; a player with no rated game has a new
/// player's. Changes nothing. Needs no token.
#[utoipa::path(
    tag = "ranking",
    request_body = PredictionRequest,
    responses(
        (status = 200, body = Prediction),
        (status = 422, description = "Not 3 or 4 different players", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/predictions")]
async fn predict(
    state: web::Data<State>,
    waits: Waits,
    body: web::Json<PredictionRequest>,
) -> Result<web::Json<Prediction>, ApiError> {
    let players = body.into_inner().player_ids;
    table_of_players(&players)?;
    waits.until(&Need::Ratings).await?;
    let asked = players.clone();
    let ratings = db::run(&state.pool, move |conn| ratings::current(conn, &asked)).await?;
    let teams: Vec<Vec<_>> = ratings.into_iter().map(|r| vec![r]).collect();
    let chances = Model::default()
        .predict_win(&teams)
        .into_iter()
        .zip(players)
        .map(|(probability, player_id)| WinChance {
            player_id,
            probability,
        })
        .collect();
    Ok(web::Json(Prediction { chances }))
}

/// A table is 3 or 4 different players.
fn table_of_players(players: &[Uuid]) -> Result<(), ApiError> {
    let mut errors = Vec::new();
    if !(3..=4).contains(&players.len()) {
        errors.push((
            "player_ids",
            ErrorCode::OutOfRange,
            "a table has 3 or 4 players",
        ));
    }
    let mut distinct = players.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != players.len() {
        errors.push((
            "player_ids",
            ErrorCode::SamePlayer,
            "a player sits at a table once",
        ));
    }
    ApiError::all_of(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prediction_is_for_three_or_four_different_players() {
        let (a, b, c, d, e) = (
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
        );
        assert!(table_of_players(&[a, b, c]).is_ok());
        assert!(table_of_players(&[a, b, c, d]).is_ok());
        assert!(table_of_players(&[a, b]).is_err());
        assert!(table_of_players(&[a, b, c, d, e]).is_err());
        assert!(table_of_players(&[a, b, b]).is_err());
    }
}
