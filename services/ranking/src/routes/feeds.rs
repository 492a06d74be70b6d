//! How fresh the read model is: how far it has read each producer's feed.

use crate::State;
use crate::store;
use actix_web::{HttpRequest, HttpResponse, get, web};
use catan_api::ReadModelState;
use catan_kit::{ApiError, conditional, db};

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(read_model_state);
}

/// How far ranking's read model has read each producer's change feed, and whether one cannot be
/// read just now. Needs no token.
#[utoipa::path(tag = "ranking", responses((status = 200, body = ReadModelState)))]
#[get("/v1/ranking/feeds")]
async fn read_model_state(
    state: web::Data<State>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let feeds = db::run(&state.pool, store::feed_states).await?;
    conditional::respond_json(&request, HttpResponse::Ok(), &ReadModelState { feeds })
}
