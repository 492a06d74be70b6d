//! Regions and players: the federation's people, one identity across every event.

use crate::State;
use crate::schema::{players, regions};
use actix_web::HttpRequest;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use catan_api::{CreatePlayer, CreateRegion, Player, Problem, Region, Role};
use catan_kit::ApiError;
use catan_kit::auth::Principal;
use catan_kit::db;
use catan_kit::idempotency::{self, Claim, IdempotencyKey, Reply, write_once};
use catan_kit::pagination::{PageQuery, page_response};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_region)
        .service(list_regions)
        .service(create_player)
        .service(get_player);
}

/// A name of 1 to 200 characters, trimmed.
/// A name (or reason) of 1 to 200 characters, trimmed, without control characters (which
/// PostgreSQL's text cannot hold in the case of NUL, and no name needs).
pub(crate) fn valid_name(field: &str, name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(ApiError::field(
            field,
            "invalid_name",
            format!("{field} must have 1 to 200 characters"),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(ApiError::field(
            field,
            "invalid_name",
            format!("{field} must not contain control characters"),
        ));
    }
    Ok(name.to_string())
}

pub(crate) fn region_must_exist(
    conn: &mut PgConnection,
    region_id: Option<Uuid>,
) -> Result<(), ApiError> {
    if let Some(id) = region_id {
        let found: i64 = regions::table
            .filter(regions::id.eq(id))
            .count()
            .get_result(conn)?;
        if found == 0 {
            return Err(ApiError::field(
                "region_id",
                "unknown_region",
                format!("there is no region {id}"),
            ));
        }
    }
    Ok(())
}

/// Creates a region (admin only).
#[utoipa::path(
    tag = "registration",
    request_body = CreateRegion,
    security(("bearer" = [])),
    responses(
        (status = 201, body = Region),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A region of that name exists", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/regions")]
async fn create_region(
    state: web::Data<State>,
    principal: Principal,
    idempotency: IdempotencyKey,
    body: web::Json<CreateRegion>,
) -> Result<HttpResponse, ApiError> {
    principal.require_admin()?;
    let claim = Claim::of(&principal, &idempotency, "POST /v1/regions", &*body);
    if let Some(replay) = idempotency::replay(&state.pool, &claim).await? {
        return Ok(replay);
    }
    let name = valid_name("name", &body.name)?;
    write_once(&state.pool, claim, move |conn| {
        let region = Region {
            id: Uuid::new_v4(),
            name,
        };
        diesel::insert_into(regions::table)
            .values((regions::id.eq(region.id), regions::name.eq(&region.name)))
            .execute(conn)?;
        Reply::new(StatusCode::CREATED, &region)
    })
    .await
}

/// Lists the regions.
#[utoipa::path(tag = "registration", params(PageQuery), responses((status = 200, description = "A page of regions, by name", body = Vec<Region>)))]
#[get("/v1/regions")]
async fn list_regions(
    state: web::Data<State>,
    request: HttpRequest,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = page.into_inner();
    let rows: Vec<(Uuid, String)> = db::run(&state.pool, move |conn| {
        Ok(regions::table
            .select((regions::id, regions::name))
            .order((regions::name, regions::id))
            .limit(page.limit())
            .offset(page.offset())
            .load(conn)?)
    })
    .await?;
    let regions: Vec<Region> = rows
        .into_iter()
        .map(|(id, name)| Region { id, name })
        .collect();
    Ok(page_response(&request, &page, &regions))
}

/// Registers a player (admin or director): one identity for every event he enters.
#[utoipa::path(
    tag = "registration",
    request_body = CreatePlayer,
    security(("bearer" = [])),
    responses(
        (status = 201, body = Player),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/players")]
async fn create_player(
    state: web::Data<State>,
    principal: Principal,
    idempotency: IdempotencyKey,
    body: web::Json<CreatePlayer>,
) -> Result<HttpResponse, ApiError> {
    principal.require_any(&[Role::Director])?;
    let claim = Claim::of(&principal, &idempotency, "POST /v1/players", &*body);
    if let Some(replay) = idempotency::replay(&state.pool, &claim).await? {
        return Ok(replay);
    }
    let name = valid_name("name", &body.name)?;
    let region_id = body.region_id;
    write_once(&state.pool, claim, move |conn| {
        region_must_exist(conn, region_id)?;
        let (id, name, region_id, created_at): (Uuid, String, Option<Uuid>, DateTime<Utc>) =
            diesel::insert_into(players::table)
                .values((
                    players::id.eq(Uuid::new_v4()),
                    players::name.eq(name),
                    players::region_id.eq(region_id),
                ))
                .returning((
                    players::id,
                    players::name,
                    players::region_id,
                    players::created_at,
                ))
                .get_result(conn)?;
        Reply::new(
            StatusCode::CREATED,
            &Player {
                id,
                name,
                region_id,
                created_at,
            },
        )
    })
    .await
}

/// A player.
#[utoipa::path(
    tag = "registration",
    params(("player_id" = Uuid, Path)),
    responses((status = 200, body = Player), (status = 404, body = Problem, content_type = "application/problem+json"))
)]
#[get("/v1/players/{player_id}")]
async fn get_player(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<web::Json<Player>, ApiError> {
    let id = path.into_inner();
    let row: Option<(Uuid, String, Option<Uuid>, DateTime<Utc>)> =
        db::run(&state.pool, move |conn| {
            Ok(players::table
                .find(id)
                .select((
                    players::id,
                    players::name,
                    players::region_id,
                    players::created_at,
                ))
                .first(conn)
                .optional()?)
        })
        .await?;
    let (id, name, region_id, created_at) =
        row.ok_or_else(|| ApiError::NotFound(format!("there is no player {id}")))?;
    Ok(web::Json(Player {
        id,
        name,
        region_id,
        created_at,
    }))
}
