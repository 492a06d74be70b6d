//! Players who may be one person (issue 34, item 4), offered to the admin and the organisers for
//! the existing merge (`POST /v1/players/{id}/merge`).

use crate::State;
use crate::store;
use actix_web::{HttpResponse, get, web};
use catan_api::{
    CandidatePlayer, EnteredEvent, MergeCandidate, MergeCandidateSearch, Player, Problem, Role,
};
use catan_domain::duplicates::{Registered, merge_candidates};
use catan_domain::identity::Identity;
use catan_kit::auth::Principal;
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::{ApiError, db};
use std::collections::HashMap;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(list_merge_candidates);
}

/// The pairs of players who may be one person: of one region and one name (case and accents
/// aside), neither merged, and no event entered by both; the one registered first as `older`
/// (as a rule the one the federation knew), the later one (as a venue's publish leaves him) as
/// `newer`. By folded name, then by the older's and the newer's registration. The admin's of
/// `region_id` or every region; an organiser's of one of its regions or all of them; anyone else
/// 403.
#[utoipa::path(
    tag = "registration",
    params(MergeCandidateSearch, PageQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of the pairs", body = Vec<MergeCandidate>),
        (status = 403, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/merge-candidates")]
async fn list_merge_candidates(
    state: web::Data<State>,
    principal: Principal,
    search: web::Query<MergeCandidateSearch>,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    let regions = scope(&principal, search.region_id)?;
    let players = db::run(&state.pool, move |conn| {
        Ok(store::duplicates::same_named(conn, regions.as_deref())?)
    })
    .await?;
    Ok(page.respond(&page.slice(paired(players))))
}

/// The regions whose pairs the caller reads (`None`: every region's, and those of none).
fn scope(principal: &Principal, region_id: Option<Uuid>) -> Result<Option<Vec<Uuid>>, ApiError> {
    match (principal.role(), region_id) {
        (Role::Admin, None) => Ok(None),
        (Role::Organiser, None) => Ok(Some(principal.regions().to_vec())),
        (_, Some(region)) => {
            principal.require_region(Some(region))?;
            Ok(Some(vec![region]))
        }
        (_, None) => principal.require_region(None).map(|()| None),
    }
}

/// The candidates among `players` (as the domain pairs them), each with both players.
fn paired(players: Vec<(Player, Vec<EnteredEvent>)>) -> Vec<MergeCandidate> {
    let registered: Vec<Registered<_>> = players
        .iter()
        .map(|(player, events)| Registered {
            identity: Identity {
                id: player.id,
                merged_into: player.merged_into,
            },
            name: player.name.clone(),
            region_id: player.region_id,
            registered: player.created_at,
            events: events.iter().map(|e| e.id).collect(),
        })
        .collect();
    let by_id: HashMap<Uuid, &(Player, Vec<EnteredEvent>)> =
        players.iter().map(|p| (p.0.id, p)).collect();
    let shown = |id: Uuid| {
        by_id.get(&id).map(|(player, events)| CandidatePlayer {
            player: player.clone(),
            events: events.clone(),
        })
    };
    merge_candidates(&registered)
        .into_iter()
        .filter_map(|pair| {
            Some(MergeCandidate {
                older: shown(pair.older)?,
                newer: shown(pair.newer)?,
            })
        })
        .collect()
}
