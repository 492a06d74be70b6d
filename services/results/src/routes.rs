//! The results service's HTTP surface.

use crate::State;
use crate::store::{self, NewVersion, Sheet};
use actix_web::HttpRequest;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, put, web};
use catan_api::{
    EventFormat, Problem, ResultList, Role, Round, ScoreRecorded, SeatPosition, Stage,
    SubmitResult, Table, TableResult, TeamScore,
};
use catan_domain::partner::{RawPartnerSheet, TableTeams, validate_partner_sheet};
use catan_domain::results::{RawBreakdown, RawScore, RawSheet, validate_sheet};
use catan_kit::ApiError;
use catan_kit::auth::Principal;
use catan_kit::db;
use catan_kit::idempotency::{self, Claim, IdempotencyKey, Reply, write_once};
use catan_kit::pagination::{PageQuery, paged};
use catan_kit::peer::peer_error;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(submit_result)
        .service(get_result)
        .service(result_history)
        .service(round_results)
        .service(result_changes);
}

fn raw_sheet(body: &SubmitResult) -> RawSheet {
    RawSheet {
        outcome: body.outcome,
        winner: body.winner_player_id,
        scores: body
            .scores
            .iter()
            .map(|s| RawScore {
                player: s.player_id,
                vp: s.vp,
                breakdown: s.breakdown.as_ref().map(|b| RawBreakdown {
                    settlements: b.settlements,
                    cities: b.cities,
                    vp_cards: b.vp_cards,
                    longest_road: b.longest_road,
                    largest_army: b.largest_army,
                }),
            })
            .collect(),
    }
}

fn classic_sheet(body: &SubmitResult, table: &Table, stage: Stage) -> Result<Sheet, ApiError> {
    if body.winner_entry_id.is_some() {
        return Err(ApiError::field(
            "winner_entry_id",
            "not_for_format",
            "a classic game names its winner by winner_player_id",
        ));
    }
    let seated: Vec<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
    let validated =
        validate_sheet(&raw_sheet(body), &seated, stage).map_err(ApiError::violations)?;
    Ok(Sheet {
        outcome: body.outcome,
        winner_player_id: validated.winner,
        winner_entry_id: None,
        scores: validated
            .scores
            .iter()
            .zip(&body.scores)
            .map(|(score, input)| ScoreRecorded {
                player_id: score.player,
                vp: score.vp,
                credited_vp: score.credited_vp,
                breakdown: input.breakdown.clone(),
            })
            .collect(),
        teams: Vec::new(),
    })
}

/// The two teams at a partner table: the team at N (with S) and the team at E (with W).
fn table_teams(table: &Table) -> Result<TableTeams, ApiError> {
    let team = |positions: [SeatPosition; 2]| -> Result<(Uuid, [Uuid; 2]), ApiError> {
        let seat = |p: SeatPosition| {
            table.seats.iter().find(|s| s.position == p).ok_or_else(|| {
                ApiError::internal(format!("partner table {} has no seat {p:?}", table.number))
            })
        };
        let (first, second) = (seat(positions[0])?, seat(positions[1])?);
        Ok((first.entry_id, [first.player_id, second.player_id]))
    };
    Ok(TableTeams {
        home: team([SeatPosition::N, SeatPosition::S])?,
        away: team([SeatPosition::E, SeatPosition::W])?,
    })
}

fn partner_sheet(body: &SubmitResult, table: &Table, round: &Round) -> Result<Sheet, ApiError> {
    if body.winner_player_id.is_some() {
        return Err(ApiError::field(
            "winner_player_id",
            "not_for_format",
            "a partner game names its winning team by winner_entry_id",
        ));
    }
    let rules = round.partner_rules.ok_or_else(|| {
        ApiError::internal(format!("partner round {} has no rules", round.number))
    })?;
    let raw = raw_sheet(body);
    let game = validate_partner_sheet(
        &RawPartnerSheet {
            outcome: body.outcome,
            winner_team: body.winner_entry_id,
            scores: raw.scores,
        },
        &table_teams(table)?,
        &rules,
    )
    .map_err(ApiError::violations)?;
    Ok(Sheet {
        outcome: body.outcome,
        winner_player_id: None,
        winner_entry_id: game.winner,
        scores: body
            .scores
            .iter()
            .map(|input| ScoreRecorded {
                player_id: input.player_id,
                vp: input.vp as u8,
                // Partner games credit what was scored: there is no 10/9 cap.
                credited_vp: input.vp as u8,
                breakdown: input.breakdown.clone(),
            })
            .collect(),
        teams: game
            .teams()
            .into_iter()
            .map(|team| TeamScore {
                entry_id: team.team,
                player_ids: team.players.iter().map(|p| p.player).collect(),
                vp: team.vp,
                result: team.result,
                points: team.points,
            })
            .collect(),
    })
}

/// Records a table's results sheet (the event's scorer or director). It must name exactly the
/// players seated at the table, with VP the game allows. Once recorded, only the tournament
/// director can replace it: every version is kept. Sending the same sheet again changes nothing.
#[utoipa::path(
    tag = "results",
    params(("event_id" = Uuid, Path), ("round" = u32, Path), ("table" = u32, Path)),
    request_body = SubmitResult,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Recorded", body = TableResult),
        (status = 200, description = "Corrected by the director, or the same sheet sent again", body = TableResult),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such round or table", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A result is recorded; only the director may correct it", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The sheet breaks a rule: every broken rule is listed by field", body = Problem, content_type = "application/problem+json"),
        (status = 503, body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/events/{event_id}/rounds/{round}/tables/{table}/result")]
async fn submit_result(
    state: web::Data<State>,
    principal: Principal,
    idempotency: IdempotencyKey,
    request: HttpRequest,
    path: web::Path<(Uuid, u32, u32)>,
    body: web::Json<SubmitResult>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, round_number, table_number) = path.into_inner();
    principal.require_event(event_id, &[Role::Scorer, Role::Director])?;
    let body = body.into_inner();
    let if_match = request
        .headers()
        .get(actix_web::http::header::IF_MATCH)
        .map(|v| v.to_str().unwrap_or_default().trim().to_string());
    // The precondition is part of the request: a retry must carry the same one.
    let claim = Claim::of(
        &principal,
        &idempotency,
        &format!(
            "PUT /v1/events/{event_id}/rounds/{round_number}/tables/{table_number}/result {if_match:?}"
        ),
        &body,
    );
    if let Some(replay) = idempotency::replay(&state.pool, &claim).await? {
        return Ok(replay);
    }
    let round = state
        .pairing
        .round(event_id, round_number)
        .await
        .map_err(|e| peer_error("pairing", e))?;
    let table = round
        .tables
        .iter()
        .find(|t| t.number == table_number)
        .ok_or_else(|| {
            ApiError::NotFound(format!("round {round_number} has no table {table_number}"))
        })?;
    let sheet = match round.format {
        EventFormat::Classic => classic_sheet(&body, table, round.stage)?,
        EventFormat::Partner => partner_sheet(&body, table, &round)?,
    };
    let may_correct = matches!(principal.role(), Role::Director | Role::Admin);
    let recorded_by = principal.key_id();
    let stage = round.stage;
    let round_tables = round.tables.len() as u32;
    write_once(&state.pool, claim, move |conn| {
        store::lock_event(conn, event_id)?;
        let existing = store::current(conn, event_id, round_number, table_number)?;
        let version = match (&existing, &if_match) {
            // The same sheet again changes nothing.
            (Some(current), _) if Sheet::of(current) == sheet => {
                return Reply::new(StatusCode::OK, current).map(|r| r.with_etag(etag(current)));
            }
            (Some(_), _) if !may_correct => {
                return Err(ApiError::Conflict(format!(
                    "table {table_number} of round {round_number} already has a result; only the tournament director can correct it"
                )));
            }
            (Some(_), None) => {
                return Err(ApiError::PreconditionRequired(
                    "a correction must carry If-Match with the ETag of the result it corrects".into(),
                ));
            }
            (Some(current), Some(tag)) if *tag != etag(current) && tag != "*" => {
                return Err(ApiError::PreconditionFailed(format!(
                    "the result changed meanwhile: it is now {}, not {tag}",
                    etag(current)
                )));
            }
            (Some(current), Some(_)) => current.version + 1,
            (None, Some(tag)) => {
                return Err(ApiError::PreconditionFailed(format!("there is no result to match {tag}")));
            }
            (None, None) => 1,
        };
        let result = store::record(
            conn,
            NewVersion {
                event_id,
                round: round_number,
                table: table_number,
                stage,
                round_tables,
                version,
                sheet: &sheet,
                recorded_by,
            },
        )?;
        crate::webhook_events::result_posted(conn, &result)?;
        tracing::info!(%event_id, round = round_number, table = table_number, version, "result recorded");
        let status = if version == 1 { StatusCode::CREATED } else { StatusCode::OK };
        Reply::new(status, &result).map(|r| r.with_etag(etag(&result)))
    })
    .await
}

/// A result version's entity tag.
fn etag(result: &TableResult) -> String {
    format!("\"v{}\"", result.version)
}

/// A table's current result.
#[utoipa::path(
    tag = "results",
    params(("event_id" = Uuid, Path), ("round" = u32, Path), ("table" = u32, Path)),
    responses((status = 200, body = TableResult), (status = 404, description = "No result yet", body = Problem, content_type = "application/problem+json"))
)]
#[get("/v1/events/{event_id}/rounds/{round}/tables/{table}/result")]
async fn get_result(
    state: web::Data<State>,
    path: web::Path<(Uuid, u32, u32)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, round, table) = path.into_inner();
    let result = db::run(&state.pool, move |conn| {
        store::current(conn, event_id, round, table)
    })
    .await?
    .ok_or_else(|| ApiError::NotFound(format!("table {table} of round {round} has no result")))?;
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::ETAG, etag(&result)))
        .json(result))
}

/// Every version of a table's result, oldest first.
#[utoipa::path(
    tag = "results",
        params(("event_id" = Uuid, Path), ("round" = u32, Path), ("table" = u32, Path), PageQuery),
    responses((status = 200, description = "A page of the versions, oldest first", body = ResultList))
)]
#[get("/v1/events/{event_id}/rounds/{round}/tables/{table}/result/history")]
async fn result_history(
    state: web::Data<State>,
    request: HttpRequest,
    page: web::Query<PageQuery>,
    path: web::Path<(Uuid, u32, u32)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, round, table) = path.into_inner();
    let items = db::run(&state.pool, move |conn| {
        store::history(conn, event_id, round, table)
    })
    .await?;
    if items.is_empty() {
        // Nothing recorded yet, or no such event or round: pairing knows which.
        state
            .pairing
            .round(event_id, round)
            .await
            .map_err(|e| peer_error("pairing", e))?;
    }
    let items = page.slice(items);
    Ok(paged(&request, &page, items.len()).json(ResultList { items }))
}

/// The current results of every table of a round that has one.
#[utoipa::path(
    tag = "results",
        params(("event_id" = Uuid, Path), ("round" = u32, Path), PageQuery),
    responses((status = 200, description = "A page of the round's results, by table", body = ResultList))
)]
#[get("/v1/events/{event_id}/rounds/{round}/results")]
async fn round_results(
    state: web::Data<State>,
    request: HttpRequest,
    page: web::Query<PageQuery>,
    path: web::Path<(Uuid, u32)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, round) = path.into_inner();
    let items = db::run(&state.pool, move |conn| {
        store::of_round(conn, event_id, round)
    })
    .await?;
    if items.is_empty() {
        // Nothing recorded yet, or no such event or round: pairing knows which.
        state
            .pairing
            .round(event_id, round)
            .await
            .map_err(|e| peer_error("pairing", e))?;
    }
    let items = page.slice(items);
    Ok(paged(&request, &page, items.len()).json(ResultList { items }))
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
    if items.is_empty() && after == 0 {
        // Nothing recorded yet, or no such event: registration knows which.
        state
            .registration
            .event(event_id)
            .await
            .map_err(|e| peer_error("registration", e))?;
    }
    Ok(web::Json(ResultList { items }))
}
