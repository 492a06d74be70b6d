//! Players: one identity across every event they enter.

use crate::State;
use crate::store;
use crate::validate::{searched_name, valid_name};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use catan_api::{CreatePlayer, Player, Problem, Role};
use catan_kit::idempotency::Reply;
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::{ApiError, IdempotentWrite, db};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_player)
        .service(search_players)
        .service(get_player);
}

/// Registers a player (admin or director): one identity for every event he enters.
#[utoipa::path(
    tag = "registration",
    request_body = CreatePlayer,
    security(("bearer" = [])),
    responses(
        (status = 201, body = Player),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/players")]
async fn create_player(
    write: IdempotentWrite<web::Json<CreatePlayer>>,
) -> Result<HttpResponse, ApiError> {
    write.principal().require_any(&[Role::Director])?;
    let name = valid_name("name", &write.body().name)?;
    let region_id = write.body().region_id;
    write
        .write(move |conn| {
            store::people::region_must_exist(conn, region_id)?;
            let player = store::people::insert_player(conn, &name, region_id)?;
            Reply::new(StatusCode::CREATED, &player)
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
    let player = db::run(&state.pool, move |conn| {
        Ok(store::people::find_player(conn, id)?)
    })
    .await?;
    Ok(web::Json(player.ok_or_else(|| {
        ApiError::NotFound(format!("there is no player {id}"))
    })?))
}

/// What a player search asks for.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct PlayerSearch {
    /// A part of the name, whatever its case and accents ("jose" finds "José"); blank for all.
    #[param(nullable)]
    q: Option<String>,
    /// Only the players of this region.
    #[param(nullable)]
    region_id: Option<Uuid>,
}

/// Finds players by name (case and accents do not matter) and region, by name. Needs no token.
#[utoipa::path(
    tag = "registration",
    params(PlayerSearch, PageQuery),
    responses((status = 200, description = "A page of the players found, by name", body = Vec<Player>))
)]
#[get("/v1/players")]
async fn search_players(
    state: web::Data<State>,
    search: web::Query<PlayerSearch>,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    let PlayerSearch { q, region_id } = search.into_inner();
    let name = searched_name(q.as_deref())?;
    let query = page.query();
    let found = db::run(&state.pool, move |conn| {
        let (limit, offset) = (query.limit(), query.offset());
        Ok(store::people::search_players(
            conn,
            name.as_deref(),
            region_id,
            limit,
            offset,
        )?)
    })
    .await?;
    Ok(page.respond(&found))
}
