//! An event's change feed: its results in the order they last changed, which ranking reads.

use crate::State;
use crate::store;
use actix_web::{get, web};
use catan_api::ResultList;
use catan_kit::peer::parent_exists_if_empty;
use catan_kit::{ApiError, db};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(result_changes);
}

#[derive(Debug, Deserialize, IntoParams)]
struct ChangesQuery {
    /// Only results changed after this change number (0, or anything below, for all).
    #[serde(default)]
    after_seq: i64,
    /// At most this many: default 500; values outside 1 to 1000 are clamped into it.
    #[serde(default)]
    limit: Option<i64>,
}

/// The event's results in the order they last changed: the change feed ranking reads. Each table
/// appears once, in its current version.
#[utoipa::path(tag = "results", params(("event_id" = Uuid, Path), ChangesQuery), responses((status = 200, body = ResultList)))]
#[get("/v1/events/{event_id}/results")]
async fn result_changes(
    state: web::Data<State>,
    path: web::Path<Uuid>,
    query: web::Query<ChangesQuery>,
) -> Result<web::Json<ResultList>, ApiError> {
    let event_id = path.into_inner();
    let after = query.after_seq.max(0);
    let limit = query.limit.unwrap_or(500).clamp(1, 1000);
    let items = db::run(&state.pool, move |conn| {
        store::changes(conn, event_id, after, limit)
    })
    .await?;
    if after == 0 {
        // Nothing recorded yet, or no such event: registration knows which.
        parent_exists_if_empty(&items, state.peers.registration.event(event_id)).await?;
    }
    Ok(web::Json(ResultList { items }))
}
