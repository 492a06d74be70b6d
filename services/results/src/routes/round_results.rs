//! A round's results: the current result of each of its tables.

use crate::State;
use crate::store;
use actix_web::{HttpResponse, get, web};
use catan_api::ResultList;
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::peer::parent_exists_if_empty;
use catan_kit::{ApiError, db};
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(round_results);
}

/// The current results of every table of a round that has one.
#[utoipa::path(
    tag = "results",
        params(("event_id" = Uuid, Path), ("round" = u32, Path), PageQuery),
    responses((status = 200, description = "A page of the round's results, by table", body = ResultList))
)]
#[get("/v1/events/{event_id}/rounds/{round}/results")]
async fn round_results(
    state: web::Data<State>,
    page: Page,
    path: web::Path<(Uuid, u32)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, round) = path.into_inner();
    let items = db::run(&state.pool, move |conn| {
        store::of_round(conn, event_id, round)
    })
    .await?;
    // Nothing recorded yet, or no such event or round: pairing knows which.
    parent_exists_if_empty(&items, state.peers.pairing.round(event_id, round)).await?;
    let items = page.slice(items);
    Ok(page.response(items.len()).json(ResultList { items }))
}
