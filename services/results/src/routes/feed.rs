//! The federation-wide results feed: every event's results in the order their changes committed,
//! which ranking's read model follows.

use crate::State;
use crate::store;
use actix_web::{get, web};
use catan_api::ResultChanges;
use catan_kit::feed::{self, Cursor};
use catan_kit::{ApiError, db};
use serde::Deserialize;
use utoipa::IntoParams;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(results_feed);
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct FeedQuery {
    /// Where to read on from: a page's `next`; empty or absent for the beginning.
    #[serde(default)]
    #[param(nullable = false)]
    after: String,
    /// At most this many: default 500; values outside 1 to 1000 are clamped into it.
    #[serde(default)]
    #[param(nullable = false)]
    limit: Option<i64>,
}

/// Every event's results after `after`, in the order their last change committed: each table
/// once, in its current version (a confirmation, a dispute or a correction moves it to the end).
/// A change still being written is never passed over: read on from `next` and it comes. Needs no
/// token.
#[utoipa::path(
    tag = "results",
    params(FeedQuery),
    responses(
        (status = 200, body = ResultChanges),
        (status = 422, description = "A cursor no page gave", body = catan_api::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/feeds/results")]
async fn results_feed(
    state: web::Data<State>,
    query: web::Query<FeedQuery>,
) -> Result<web::Json<ResultChanges>, ApiError> {
    let after = Cursor::parse("after", &query.after)?;
    let limit = feed::page_size(query.limit);
    let page = db::run(&state.pool, move |conn| {
        store::changes(conn, None, after, limit)
    })
    .await?;
    Ok(web::Json(page.answer()))
}
