//! The ranking service's HTTP surface: standings and placements, readable by anyone.

use crate::State;
use crate::feed;
use actix_web::{HttpResponse, get, web};
use catan_api::{
    Entry, PlacementRow, Placements, Problem, Stage, StandingRow, Standings, TableResult,
};
use catan_domain::playoffs::{PlayoffPlan, placements, playoff_plan};
use catan_domain::standings::{ClassicRow, Game, classic_standings, format_percent};
use catan_kit::ApiError;
use catan_kit::peer::peer_error;
use std::collections::{BTreeMap, HashMap};
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(standings).service(event_placements);
}

/// Everything a standings or placements answer is computed from.
struct EventView {
    entries: Vec<Entry>,
    results: Vec<TableResult>,
    rows: Vec<ClassicRow>,
    up_to_date: bool,
}

async fn load(state: &State, event_id: Uuid) -> Result<EventView, ApiError> {
    let up_to_date = feed::catch_up(&state.pool, &state.results, event_id).await?;
    let entries = state
        .registration
        .entries(event_id)
        .await
        .map_err(|e| peer_error("registration", e))?;
    let results = feed::known(&state.pool, event_id).await?;
    let games: Vec<Game> = results
        .iter()
        .filter(|r| r.stage == Stage::Qualifying)
        .map(|r| Game::from_result(&r.to_domain()))
        .collect();
    let players: Vec<Uuid> = entries.iter().map(|e| e.player_id).collect();
    let rows = classic_standings(&players, &games);
    Ok(EventView {
        entries,
        results,
        rows,
        up_to_date,
    })
}

/// The last qualifying round whose every table has a result, counting from round 1.
fn complete_rounds(results: &[TableResult]) -> u32 {
    let mut per_round: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    for r in results.iter().filter(|r| r.stage == Stage::Qualifying) {
        let counted = per_round.entry(r.round).or_insert((0, r.round_tables));
        counted.0 += 1;
    }
    let mut complete = 0;
    for (round, (reported, tables)) in per_round {
        if round != complete + 1 || reported < tables {
            break;
        }
        complete = round;
    }
    complete
}

fn with_freshness(
    mut response: actix_web::HttpResponseBuilder,
    up_to_date: bool,
) -> actix_web::HttpResponseBuilder {
    if !up_to_date {
        // The copy could not be brought up to date: say so rather than fail the read.
        response.insert_header((
            "Warning",
            "110 - \"results service unreachable; this may be out of date\"",
        ));
    }
    response
}

/// The qualifying standings: credited VP, then the exact sum of VP shares, then games won;
/// players still equal share the rank. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("event_id" = Uuid, Path)),
    responses(
        (status = 200, body = Standings),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
        (status = 503, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/standings")]
async fn standings(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    let view = load(&state, event_id).await?;
    let entry_of: HashMap<Uuid, &Entry> = view.entries.iter().map(|e| (e.player_id, e)).collect();
    let rows = view
        .rows
        .iter()
        .map(|row| {
            let entry = entry_of[&row.player];
            StandingRow {
                rank: row.rank,
                entry_id: entry.id,
                player_id: row.player,
                name: entry.name.clone(),
                status: entry.status,
                vp: row.vp,
                vp_share: format_percent(&row.vp_share),
                vp_share_exact: format!("{}/{}", row.vp_share.numer(), row.vp_share.denom()),
                games: row.games,
                wins: row.wins,
                three_player_games: row.three_player_games,
            }
        })
        .collect();
    let body = Standings {
        event_id,
        after_round: complete_rounds(&view.results),
        results_counted: view
            .results
            .iter()
            .filter(|r| r.stage == Stage::Qualifying)
            .count() as u32,
        rows,
    };
    Ok(with_freshness(HttpResponse::Ok(), view.up_to_date).json(body))
}

/// The final placements, once the final has a result: the final's winner, the other finalists,
/// the semi-finalists, then everyone else by the qualifying standings. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("event_id" = Uuid, Path)),
    responses(
        (status = 200, body = Placements),
        (status = 404, description = "No such event, or no final result yet", body = Problem, content_type = "application/problem+json"),
        (status = 503, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/placements")]
async fn event_placements(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    let event = state
        .registration
        .event(event_id)
        .await
        .map_err(|e| peer_error("registration", e))?;
    let view = load(&state, event_id).await?;
    let entry_of: HashMap<Uuid, &Entry> = view.entries.iter().map(|e| (e.player_id, e)).collect();
    let final_result = view.results.iter().find(|r| r.stage == Stage::Final);
    let placed: Vec<(u32, Uuid, Stage)> = match final_result {
        Some(final_result) => {
            let semis: Vec<_> = view
                .results
                .iter()
                .filter(|r| r.stage == Stage::Semifinal)
                .map(|r| r.to_domain())
                .collect();
            placements(&view.rows, &semis, &final_result.to_domain())
                .map_err(ApiError::internal)?
                .into_iter()
                .map(|p| (p.place, p.player, p.stage))
                .collect()
        }
        None => {
            let active = view.rows.len();
            let no_playoff = playoff_plan(active, event.small_field_playoff) == PlayoffPlan::None;
            if !(no_playoff && complete_rounds(&view.results) >= event.qualifying_rounds) {
                return Err(ApiError::NotFound(
                    "no placements yet: they are known once the final has a result".into(),
                ));
            }
            // Without a playoff the qualifying standings are the placements.
            view.rows
                .iter()
                .enumerate()
                .map(|(i, r)| (i as u32 + 1, r.player, Stage::Qualifying))
                .collect()
        }
    };
    let rows = placed
        .into_iter()
        .map(|(place, player, stage)| PlacementRow {
            place,
            entry_id: entry_of[&player].id,
            player_id: player,
            name: entry_of[&player].name.clone(),
            stage,
        })
        .collect();
    Ok(with_freshness(HttpResponse::Ok(), view.up_to_date).json(Placements { event_id, rows }))
}
