//! Regions of the federation.

use crate::State;
use crate::store;
use crate::validate::valid_name;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use catan_api::{CreateRegion, Problem, Region};
use catan_kit::idempotency::Reply;
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::{ApiError, IdempotentWrite, db};
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_region)
        .service(list_regions)
        .service(get_region);
}

/// Creates a region (admin only).
#[utoipa::path(
    tag = "registration",
    request_body = CreateRegion,
    security(("bearer" = [])),
    responses(
        (status = 201, body = Region),
        (status = 409, description = "A region of that name exists", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/regions")]
async fn create_region(
    write: IdempotentWrite<web::Json<CreateRegion>>,
) -> Result<HttpResponse, ApiError> {
    write.require_admin()?;
    let name = valid_name("name", &write.body().name)?;
    write
        .write(move |conn| {
            let region = Region {
                id: Uuid::new_v4(),
                name,
            };
            store::people::insert_region(conn, &region)?;
            Reply::new(StatusCode::CREATED, &region)
        })
        .await
}

/// Lists the regions.
#[utoipa::path(tag = "registration", params(PageQuery), responses((status = 200, description = "A page of regions, by name", body = Vec<Region>)))]
#[get("/v1/regions")]
async fn list_regions(state: web::Data<State>, page: Page) -> Result<HttpResponse, ApiError> {
    let query = page.query();
    let regions = db::run(&state.pool, move |conn| {
        Ok(store::people::regions(conn, query.limit(), query.offset())?)
    })
    .await?;
    Ok(page.respond(&regions))
}

/// A region.
#[utoipa::path(
    tag = "registration",
    params(("region_id" = Uuid, Path)),
    responses((status = 200, body = Region), (status = 404, description = "No such region", body = Problem, content_type = "application/problem+json"))
)]
#[get("/v1/regions/{region_id}")]
async fn get_region(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<web::Json<Region>, ApiError> {
    let id = path.into_inner();
    let region = db::run(&state.pool, move |conn| {
        Ok(store::people::find_region(conn, id)?)
    })
    .await?;
    region
        .map(web::Json)
        .ok_or_else(|| ApiError::NotFound(format!("there is no region {id}")))
}
