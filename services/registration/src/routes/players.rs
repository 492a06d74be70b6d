//! Players: one identity across every event they enter.

use crate::State;
use crate::store;
use crate::validate::{broken_rules, searched_name, valid_name};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, patch, post, web};
use catan_api::{CreatePlayer, MergePlayer, Player, Problem, RenamePlayer, Role};
use catan_domain::identity::{MergeRefusal, merge_refusals};
use catan_kit::auth::Principal;
use catan_kit::idempotency::Reply;
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::problem::{ErrorCode, FieldError};
use catan_kit::{ApiError, IdempotentWrite, db};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_player)
        .service(search_players)
        .service(get_player)
        .service(rename_player)
        .service(merge_player);
}

/// Registers a player (the admin, a director, or an organiser in one of its regions): one identity
/// for every event he enters.
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
    let principal = write.principal();
    if principal.role() == Role::Organiser {
        principal.require_region(write.body().region_id)?;
    } else {
        principal.require_any(&[Role::Director])?;
    }
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

/// Corrects a player's name (a misspelt one): the admin, the organiser of his region, or the
/// director of an event he is entered in. Every page that shows him shows the new name (ranking's
/// standings, placements and his profile follow the registration feed, which carries him and each
/// of his entries again); the audit trail keeps the old name (`old_name`). A name as
/// `POST /v1/players` takes it.
#[utoipa::path(
    tag = "registration",
    params(("player_id" = Uuid, Path)),
    request_body = RenamePlayer,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The player, renamed", body = Player),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the admin, the organiser of his region, nor the director of an event he is entered in", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Renamed meanwhile by someone else: read him again", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[patch("/v1/players/{player_id}")]
async fn rename_player(
    state: web::Data<State>,
    path: web::Path<Uuid>,
    mut write: IdempotentWrite<web::Json<RenamePlayer>>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    let name = valid_name("name", &write.body().name)?;
    let (player, events) = db::run(&state.pool, move |conn| {
        let player = store::people::find_player(conn, id)?
            .ok_or_else(|| ApiError::NotFound(format!("there is no player {id}")))?;
        Ok((player, store::entries::events_of(conn, id)?))
    })
    .await?;
    may_rename(write.principal(), &player, &events)?;
    write.note_in_audit("old_name", player.name.clone().into());
    write
        .write(move |conn| {
            let renamed = store::people::rename(conn, id, &player.name, &name)?;
            Reply::new(StatusCode::OK, &renamed)
        })
        .await
}

/// The admin renames anyone; an organiser the players of its regions; a director the players
/// entered in one of its key's events.
fn may_rename(principal: &Principal, player: &Player, events: &[Uuid]) -> Result<(), ApiError> {
    match principal.role() {
        Role::Admin => Ok(()),
        Role::Organiser => principal.require_region(player.region_id),
        Role::Director if events.iter().any(|e| principal.events().contains(e)) => Ok(()),
        _ => Err(ApiError::Forbidden(
            "a player is renamed by the admin, the organiser of his region, or the director of \
             an event he is entered in"
                .into(),
        )),
    }
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

/// Merges a duplicate identity into the player who survives (the admin, or an organiser of both
/// players' regions, else 403): the duplicate is marked `merged_into` the survivor and leaves the
/// searches; nothing else changes (ranking maps the duplicate's history onto the survivor). Answers the duplicate as he is now. Refused, listing
/// every broken rule, when the two are one, either is merged already, or both have an entry in
/// one event; a survivor that does not exist is refused on `into` (422).
#[utoipa::path(
    tag = "registration",
    params(("player_id" = Uuid, Path, description = "The duplicate")),
    request_body = MergePlayer,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The duplicate, merged", body = Player),
        (status = 404, description = "The duplicate (the path's player) does not exist", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/players/{player_id}/merge")]
async fn merge_player(
    path: web::Path<Uuid>,
    write: IdempotentWrite<web::Json<MergePlayer>>,
) -> Result<HttpResponse, ApiError> {
    let principal = write.principal().clone();
    if principal.role() != Role::Organiser {
        write.require_admin()?;
    }
    let (duplicate, survivor) = (path.into_inner(), write.body().into);
    write
        .write(move |conn| {
            let (duplicate, survivor) = store::people::lock_for_merge(conn, duplicate, survivor)?;
            // An organiser merges the players of its regions only (the admin any).
            for region in store::people::regions_of(conn, &[duplicate.id, survivor.id])? {
                principal.require_region(region)?;
            }
            let shared = store::entries::shared_events(conn, duplicate.id, survivor.id)?;
            refuse_merge(merge_refusals(duplicate, survivor, shared))?;
            let merged = store::people::merge(conn, duplicate.id, survivor.id)?;
            Reply::new(StatusCode::OK, &merged)
        })
        .await
}

/// The 422 listing every rule a merge breaks, each on its field (`player_id` is the duplicate in
/// the path, `into` the survivor); none broken is no error.
fn refuse_merge(refusals: Vec<MergeRefusal>) -> Result<(), ApiError> {
    if refusals.is_empty() {
        return Ok(());
    }
    let error = |field: &str, code, message: String| FieldError {
        field: field.to_string(),
        code,
        message,
    };
    let errors = refusals
        .into_iter()
        .map(|refusal| match refusal {
            MergeRefusal::IntoItself => error(
                "into",
                ErrorCode::SamePlayer,
                "a player cannot be merged into himself".into(),
            ),
            MergeRefusal::AlreadyMerged { into } => error(
                "player_id",
                ErrorCode::AlreadyMerged,
                format!("the player was merged into {into} already"),
            ),
            MergeRefusal::IntoMerged { into } => error(
                "into",
                ErrorCode::AlreadyMerged,
                format!("the survivor was merged into {into}: merge into that player"),
            ),
            MergeRefusal::SharedEvents(events) => error(
                "into",
                ErrorCode::SharedEvent,
                format!(
                    "both players have an entry in {}: they are two people",
                    events
                        .iter()
                        .map(|event| format!("event {event}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        })
        .collect();
    Err(broken_rules(errors))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_is_renamed_by_the_admin_his_regions_organiser_or_a_director_of_his_events() {
        use catan_kit::auth::claims_for;
        let (region, event) = (Uuid::new_v4(), Uuid::new_v4());
        let player = Player {
            id: Uuid::new_v4(),
            name: "Pere Pnos".into(),
            region_id: Some(region),
            merged_into: None,
            created_at: chrono::Utc::now(),
        };
        let key = |role, events: Option<Vec<Uuid>>, regions: Option<Vec<Uuid>>| {
            let mut claims = claims_for(
                Uuid::new_v4(),
                role,
                events,
                std::time::Duration::from_secs(60),
            );
            claims.regions = regions;
            Principal(claims)
        };
        let may = |principal: Principal| may_rename(&principal, &player, &[event]).is_ok();
        assert!(may(key(Role::Admin, None, None)));
        assert!(may(key(Role::Organiser, None, Some(vec![region]))));
        assert!(!may(key(Role::Organiser, None, Some(vec![Uuid::new_v4()]))));
        assert!(may(key(Role::Director, Some(vec![event]), None)));
        assert!(!may(key(Role::Director, Some(vec![Uuid::new_v4()]), None)));
        assert!(!may(key(Role::Scorer, Some(vec![event]), None)));
    }

    #[test]
    fn every_refused_merge_rule_is_listed_on_its_field() {
        assert!(refuse_merge(vec![]).is_ok());
        let (first, event) = (Uuid::new_v4(), Uuid::new_v4());
        let refused = refuse_merge(vec![
            MergeRefusal::IntoItself,
            MergeRefusal::AlreadyMerged { into: first },
            MergeRefusal::IntoMerged { into: first },
            MergeRefusal::SharedEvents(vec![event]),
        ]);
        let Err(ApiError::Validation { errors, .. }) = refused else {
            panic!("not a 422: {refused:?}");
        };
        let fields: Vec<(&str, ErrorCode)> =
            errors.iter().map(|e| (e.field.as_str(), e.code)).collect();
        assert_eq!(
            fields,
            [
                ("into", ErrorCode::SamePlayer),
                ("player_id", ErrorCode::AlreadyMerged),
                ("into", ErrorCode::AlreadyMerged),
                ("into", ErrorCode::SharedEvent),
            ]
        );
        assert!(errors[3].message.contains(&event.to_string()));
    }
}
