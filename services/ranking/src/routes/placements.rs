//! An event's final placements.

use crate::State;
use crate::placements::placements_of;
use crate::view::load;
use actix_web::{HttpResponse, get, web};
use catan_api::{Placements, Problem};
use catan_kit::ApiError;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(event_placements);
}

/// The final placements. A classic event's, once the final has a result: the final's winner, the
/// other finalists, the semi-finalists, then everyone else by the qualifying standings. A partner
/// event's, once every Swiss round has its results: its final standings. Until then `complete`
/// is false and there are no rows. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("event_id" = Uuid, Path)),
    responses(
        (status = 200, body = Placements),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/placements")]
async fn event_placements(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let view = load(&state, path.into_inner()).await?;
    let body = placements_of(&state, &view).await?;
    Ok(super::with_freshness(HttpResponse::Ok(), view.up_to_date).json(body))
}
