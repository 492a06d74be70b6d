//! An event's change feed: its results in the order their last change committed.

use crate::State;
use crate::store;
use actix_web::{get, web};
use catan_api::ResultChanges;
use catan_kit::feed::{self, Cursor};
use catan_kit::peer::parent_exists_if_empty;
use catan_kit::{ApiError, db};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(result_changes);
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ChangesQuery {
    /// Where to read on from: a page's `next`; empty or absent for the beginning.
    #[serde(default)]
    #[param(nullable = false)]
    after: String,
    /// At most this many: default 500; values outside 1 to 1000 are clamped into it.
    #[serde(default)]
    #[param(nullable = false)]
    limit: Option<i64>,
}

/// The event's results after `after`, in the order their last change committed: each table once,
/// in its current version (a confirmation, a dispute or a correction moves it to the end). Writes
/// of one event do not wait for each other, yet a change still being written is never passed
/// over: read on from `next` and it comes (`held_back` says one is in flight).
#[utoipa::path(
    tag = "results",
    params(("event_id" = Uuid, Path), ChangesQuery),
    responses(
        (status = 200, body = ResultChanges),
        (status = 404, description = "No such event", body = catan_api::Problem, content_type = "application/problem+json"),
        (status = 422, description = "A cursor no page gave", body = catan_api::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/results")]
async fn result_changes(
    state: web::Data<State>,
    path: web::Path<Uuid>,
    query: web::Query<ChangesQuery>,
) -> Result<web::Json<ResultChanges>, ApiError> {
    let event_id = path.into_inner();
    let after = Cursor::parse("after", &query.after)?;
    let limit = feed::page_size(query.limit);
    let page = db::run(&state.pool, move |conn| {
        store::changes(conn, Some(event_id), after, limit)
    })
    .await?;
    if after == Cursor::default() {
        // Nothing recorded yet, or no such event: registration knows which.
        parent_exists_if_empty(&page.items, state.peers.registration.event(event_id)).await?;
    }
    Ok(web::Json(page.answer()))
}
