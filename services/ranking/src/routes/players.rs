//! A player across events: the games he shared with another.

use crate::State;
use crate::players;
use crate::progress::{Need, Waits};
use actix_web::{HttpRequest, HttpResponse, get, web};
use catan_api::{HeadToHead, Problem};
use catan_kit::ApiError;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(head_to_head);
}

/// The games two players shared, oldest first, each one's place and VP, and who finished ahead
/// how often (a partner game places both players of a team alike). Merged identities count as
/// their survivor. Carries an `ETag`. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("player_id" = Uuid, Path), ("opponent_id" = Uuid, Path)),
    responses(
        (status = 200, body = HeadToHead),
        (status = 304, description = "Unchanged since the `If-None-Match` version"),
        (status = 404, description = "No such player", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/{player_id}/head-to-head/{opponent_id}")]
async fn head_to_head(
    state: web::Data<State>,
    request: HttpRequest,
    waits: Waits,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (player, opponent) = path.into_inner();
    super::serve_read(
        &state,
        &request,
        &waits,
        Need::Everything,
        move |conn| players::head_to_head(conn, player, opponent),
        "no such player is known to ranking".into(),
    )
    .await
}
