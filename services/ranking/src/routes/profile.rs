//! A player's page.

use crate::State;
use crate::profile;
use crate::progress::{Need, Waits};
use actix_web::{HttpRequest, HttpResponse, get, web};
use catan_api::{PlayerProfile, Problem};
use catan_kit::ApiError;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(player_profile);
}

/// A player's page: the events he played, latest first (day, event, place, field size, games,
/// VP, average VP share, and what each season that counts the event gave him), his rating now
/// and its trend (the move of μ − 3σ over his last 5 rated games), the seasons whose table lists
/// him (rank, points) and the places he holds. A merged identity's page is his survivor's.
/// Carries an `ETag`. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("player_id" = Uuid, Path)),
    responses(
        (status = 200, body = PlayerProfile),
        (status = 304, description = "Unchanged since the `If-None-Match` version"),
        (status = 404, description = "No such player", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/{player_id}/profile")]
async fn player_profile(
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
        Need::Everything,
        move |conn| profile::profile(conn, player),
        missing,
    )
    .await
}
