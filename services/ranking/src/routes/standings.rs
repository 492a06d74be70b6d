//! An event's standings, read once.

use crate::State;
use crate::standings::current_standings;
use actix_web::{HttpResponse, get, web};
use catan_api::{AnyStandings, Problem};
use catan_kit::ApiError;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(standings);
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
