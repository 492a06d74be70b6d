//! The ranking service's HTTP surface: standings and placements, readable by anyone.

use crate::State;
use crate::feed;
use actix_web::{HttpResponse, get, web};
use catan_api::{
    AnyStandings, Entry, EventFormat, PartnerStandingRow, PartnerStandings, PlacementRow,
    Placements, Problem, ResultStatus, Stage, StandingRow, Standings, StandingsCount, TableResult,
};
use catan_domain::partner::{PartnerGame, partner_standings_with_drops};
use catan_domain::playoffs::{PlayoffPlan, placements, playoff_plan};
use catan_domain::standings::{ClassicRow, Game, classic_standings, format_percent};
use catan_kit::ApiError;
use catan_kit::peer::peer_error;
use std::collections::{BTreeMap, HashMap};
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(standings).service(event_placements);
    crate::stream::register(cfg);
}

/// An event's results as ranking knows them, with its entries.
struct EventView {
    entries: Vec<Entry>,
    results: Vec<TableResult>,
    up_to_date: bool,
}

/// The event's entries and the results its standings count: every posted result, or, when the
/// event says so, only those every player confirmed or the director resolved.
async fn load(state: &State, event: &catan_api::Event) -> Result<EventView, ApiError> {
    let event_id = event.id;
    let up_to_date = feed::catch_up(&state.pool, &state.results, event_id).await?;
    let entries = state
        .registration
        .entries(event_id)
        .await
        .map_err(|e| peer_error("registration", e))?;
    let mut results = feed::known(&state.pool, event_id).await?;
    if event.standings_count == StandingsCount::Confirmed {
        results.retain(|r| matches!(r.status, ResultStatus::Confirmed | ResultStatus::Resolved));
    }
    Ok(EventView {
        entries,
        results,
        up_to_date,
    })
}

impl EventView {
    fn classic_rows(&self) -> Vec<ClassicRow> {
        let games: Vec<Game> = self
            .results
            .iter()
            .filter(|r| r.stage == Stage::Qualifying)
            .map(|r| Game::from_result(&r.to_domain()))
            .collect();
        let players: Vec<Uuid> = self.entries.iter().filter_map(|e| e.player_id).collect();
        classic_standings(&players, &games)
    }

    fn entry_of_player(&self) -> HashMap<Uuid, &Entry> {
        self.entries
            .iter()
            .filter_map(|e| Some((e.player_id?, e)))
            .collect()
    }

    fn counted(&self, stage: Stage) -> u32 {
        self.results.iter().filter(|r| r.stage == stage).count() as u32
    }
}

/// The last round of `stage` whose every table has a result, counting from the first.
fn complete_rounds(results: &[TableResult], stage: Stage) -> u32 {
    let mut per_round: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    for r in results.iter().filter(|r| r.stage == stage) {
        per_round.entry(r.round).or_insert((0, r.round_tables)).0 += 1;
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

fn classic_standings_of(event_id: Uuid, view: &EventView) -> Standings {
    let entry_of = view.entry_of_player();
    let rows = view
        .classic_rows()
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
    Standings {
        format: EventFormat::Classic,
        event_id,
        after_round: complete_rounds(&view.results, Stage::Qualifying),
        results_counted: view.counted(Stage::Qualifying),
        rows,
    }
}

async fn partner_standings_of(
    state: &State,
    event: &catan_api::Event,
    view: &EventView,
) -> Result<PartnerStandings, ApiError> {
    let rules = event
        .partner_rules
        .ok_or_else(|| ApiError::internal(format!("partner event {} has no rules", event.id)))?;
    // Byes are the pairing's: a round's bye is known once the round is drawn.
    let rounds = state
        .pairing
        .rounds(event.id)
        .await
        .map_err(|e| peer_error("pairing", e))?;
    let byes: Vec<Uuid> = rounds.iter().flat_map(|r| r.byes.iter().copied()).collect();
    let games: Vec<PartnerGame> = view
        .results
        .iter()
        .filter(|r| r.stage == Stage::Swiss)
        .map(|r| {
            r.to_partner_game().ok_or_else(|| {
                ApiError::internal(format!("partner result of table {} has no teams", r.table))
            })
        })
        .collect::<Result<_, _>>()?;
    let teams: Vec<Uuid> = view.entries.iter().map(|e| e.id).collect();
    let dropped: Vec<Uuid> = view
        .entries
        .iter()
        .filter(|e| e.status != catan_api::EntryStatus::Active)
        .map(|e| e.id)
        .collect();
    let entry: HashMap<Uuid, &Entry> = view.entries.iter().map(|e| (e.id, e)).collect();
    let rows = partner_standings_with_drops(&teams, &games, &byes, &dropped, &rules)
        .into_iter()
        .map(|row| {
            let team = entry[&row.team];
            PartnerStandingRow {
                rank: row.rank,
                entry_id: row.team,
                team_name: team.name.clone(),
                player_ids: team.player_ids.clone(),
                status: team.status,
                points: row.points,
                vp: row.vp,
                vp_against: row.vp_against,
                games: row.games,
                byes: row.byes,
                prize: row.prize,
            }
        })
        .collect();
    Ok(PartnerStandings {
        format: EventFormat::Partner,
        event_id: event.id,
        after_round: complete_rounds(&view.results, Stage::Swiss),
        results_counted: view.counted(Stage::Swiss),
        rows,
    })
}

/// The standings. Classic events: credited VP, then the exact sum of VP shares, then games won;
/// players still equal share the rank. Partner events: points, then fewer VP against, then more
/// VP; the top three marked as prize winners. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("event_id" = Uuid, Path)),
    responses(
        (status = 200, body = AnyStandings),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
        (status = 503, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/standings")]
async fn standings(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (body, up_to_date) = current_standings(&state, path.into_inner()).await?;
    Ok(with_freshness(HttpResponse::Ok(), up_to_date).json(body))
}

/// The event's standings now, and whether they are up to date with the results service.
pub(crate) async fn current_standings(
    state: &State,
    event_id: Uuid,
) -> Result<(AnyStandings, bool), ApiError> {
    let event = state
        .registration
        .event(event_id)
        .await
        .map_err(|e| peer_error("registration", e))?;
    let view = load(state, &event).await?;
    let body = match event.format {
        EventFormat::Classic => AnyStandings::Classic(classic_standings_of(event_id, &view)),
        EventFormat::Partner => {
            AnyStandings::Partner(partner_standings_of(state, &event, &view).await?)
        }
    };
    Ok((body, view.up_to_date))
}

/// The final placements. A classic event's, once the final has a result: the final's winner, the
/// other finalists, the semi-finalists, then everyone else by the qualifying standings. A partner
/// event's, once every Swiss round has its results: its final standings. Until then `complete`
/// is false and there are no rows. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("event_id" = Uuid, Path)),
    responses(
        (status = 200, body = Placements),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
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
    let view = load(&state, &event).await?;
    let placed = match event.format {
        EventFormat::Classic => classic_placements(&event, &view)?,
        EventFormat::Partner => partner_placements(&state, &event, &view).await?,
    };
    let entry: HashMap<Uuid, &Entry> = view.entries.iter().map(|e| (e.id, e)).collect();
    let rows: Vec<PlacementRow> = placed
        .unwrap_or_default()
        .into_iter()
        .map(|(place, entry_id, stage)| PlacementRow {
            place,
            entry_id,
            player_id: entry[&entry_id].player_id,
            player_ids: entry[&entry_id].player_ids.clone(),
            name: entry[&entry_id].name.clone(),
            stage,
        })
        .collect();
    let body = Placements {
        event_id,
        complete: !rows.is_empty(),
        rows,
    };
    Ok(with_freshness(HttpResponse::Ok(), view.up_to_date).json(body))
}

/// A place: (place, entry, the stage it reached).
type Placed = (u32, Uuid, Stage);

/// A classic event's places, once they are known.
fn classic_placements(
    event: &catan_api::Event,
    view: &EventView,
) -> Result<Option<Vec<Placed>>, ApiError> {
    let rows = view.classic_rows();
    let entry_of = view.entry_of_player();
    let placed: Vec<(u32, Uuid, Stage)> =
        match view.results.iter().find(|r| r.stage == Stage::Final) {
            Some(final_result) => {
                let semis: Vec<_> = view
                    .results
                    .iter()
                    .filter(|r| r.stage == Stage::Semifinal)
                    .map(|r| r.to_domain())
                    .collect();
                placements(&rows, &semis, &final_result.to_domain())
                    .map_err(ApiError::internal)?
                    .into_iter()
                    .map(|p| (p.place, p.player, p.stage))
                    .collect()
            }
            None => {
                let no_playoff =
                    playoff_plan(rows.len(), event.small_field_playoff) == PlayoffPlan::None;
                if !(no_playoff
                    && complete_rounds(&view.results, Stage::Qualifying) >= event.qualifying_rounds)
                {
                    return Ok(None);
                }
                // Without a playoff the qualifying standings are the placements.
                rows.iter()
                    .enumerate()
                    .map(|(i, r)| (i as u32 + 1, r.player, Stage::Qualifying))
                    .collect()
            }
        };
    Ok(Some(
        placed
            .into_iter()
            .map(|(place, player, stage)| (place, entry_of[&player].id, stage))
            .collect(),
    ))
}

/// A partner event is placed by its final standings, once every Swiss round has its results.
async fn partner_placements(
    state: &State,
    event: &catan_api::Event,
    view: &EventView,
) -> Result<Option<Vec<Placed>>, ApiError> {
    let table = partner_standings_of(state, event, view).await?;
    let rounds = event.partner_rules.map_or(0, |rules| rules.rounds);
    if table.after_round < rounds {
        return Ok(None);
    }
    Ok(Some(
        table
            .rows
            .iter()
            .enumerate()
            .map(|(i, row)| (i as u32 + 1, row.entry_id, Stage::Swiss))
            .collect(),
    ))
}
