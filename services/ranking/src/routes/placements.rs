//! An event's final placements.

use crate::State;
use crate::progress::Waits;
use crate::served_cache::ServedCache;
use crate::store::View;
use actix_web::{HttpRequest, HttpResponse, get, web};
use catan_api::{Placements, Problem};
use catan_kit::ApiError;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(event_placements);
}

/// The final placements. A classic event's, once the final has a result: the final's winner, the
/// other finalists, the semi-finalists, then everyone else by the qualifying standings. A partner
/// event's, once every Swiss round has its results: its final standings. Until then `complete`
/// is false and there are no rows. Carries an `ETag`; `If-None-Match` answers `304` while they
/// are unchanged. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("event_id" = Uuid, Path)),
    responses(
        (status = 200, body = Placements, headers(("ETag" = String, description = "The placements' version"))),
        (status = 304, description = "Unchanged since the `If-None-Match` version"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/placements")]
async fn event_placements(
    state: web::Data<State>,
    cache: web::Data<ServedCache>,
    request: HttpRequest,
    waits: Waits,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event = path.into_inner();
    super::serve_view(&state, &cache, &request, &waits, event, View::Placements).await
}
