//! A round's results: the current result of each of its tables, and a batch of its sheets.

use crate::State;
use crate::drawn_rounds::DrawnRounds;
use crate::store;
use crate::submission::Submission;
use crate::timing::Clock;
use actix_web::{HttpResponse, get, post, web};
use catan_api::{BatchOutcome, Problem, ResultList, Role, SheetOutcome, SubmitResults};
use catan_domain::correction::Precondition;
use catan_kit::batch::BatchJson;
use catan_kit::idempotency::{KeyFoundByTheWrite, Reply};
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::path::Ordinal;
use catan_kit::peer::parent_exists_if_empty;
use catan_kit::{ApiError, db};
use diesel::Connection;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(round_results).service(submit_results);
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
    page: Page,
    path: web::Path<(Uuid, Ordinal)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(round)) = path.into_inner();
    let items = db::run(&state.pool, move |conn| {
        store::of_round(conn, event_id, round)
    })
    .await?;
    // Nothing recorded yet, or no such event or round: pairing knows which.
    parent_exists_if_empty(&items, state.peers.pairing.round(event_id, round)).await?;
    let items = page.slice(items);
    Ok(page.response(items.len()).json(ResultList { items }))
}

/// Records up to 500 sheets of a round's tables at once (the event's scorer or director): each
/// is checked and recorded on its own, exactly as `PUT .../tables/{table}/result` without
/// `If-Match` would, and the answer gives each sheet's status in the order sent. A refused sheet
/// stores nothing and holds back no other. Corrections are made one table at a time.
#[utoipa::path(
    tag = "results",
    params(("event_id" = Uuid, Path), ("round" = u32, Path)),
    request_body = SubmitResults,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Each sheet's status (201 recorded, 200 the same sheet again, 404, 409, 422, 428), with its result or its problem", body = BatchOutcome),
        (status = 404, description = "No such round", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The event is checked out to a venue (`event_checked_out`; the batch is refused whole)", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than 1 MiB", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No sheets, more than 500, or numbers outside the game's ranges (the batch is refused whole)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/rounds/{round}/results")]
async fn submit_results(
    state: web::Data<State>,
    rounds: web::Data<DrawnRounds>,
    mut write: KeyFoundByTheWrite<BatchJson<SubmitResults>>,
    path: web::Path<(Uuid, Ordinal)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(round_number)) = path.into_inner();
    let principal = write.principal();
    principal.require_event(event_id, &[Role::Scorer, Role::Director])?;
    let sheets = &write.body().sheets;
    crate::sheet::batch_fits_contract(sheets)?;
    let round = rounds
        .get(&state.peers.pairing, &state.pool, event_id, round_number)
        .await?;
    let clock = Clock::for_sheets(
        &state.peers.pairing,
        event_id,
        round_number,
        // A sheet for a table the round lacks is refused on its own (404), not asked about.
        sheets
            .iter()
            .filter(|s| round.tables.iter().any(|t| t.number == s.table))
            .map(|s| (s.table, &s.sheet)),
    )
    .await?;
    let mut early_reasons = serde_json::Map::new();
    let mut checked_reasons = serde_json::Map::new();
    let submissions: Vec<(u32, Result<Submission, ApiError>)> = sheets
        .iter()
        .map(|s| {
            let checked =
                Submission::checked(principal, &round, s.table, &s.sheet, Precondition::Absent)
                    .and_then(|checked| {
                        if let Some(reason) = clock.admit(principal, s.table, &s.sheet)? {
                            early_reasons.insert(s.table.to_string(), reason.into());
                        }
                        if let Some(reason) = checked.checked_reason() {
                            checked_reasons.insert(s.table.to_string(), reason.into());
                        }
                        Ok(checked)
                    });
            (s.table, checked)
        })
        .collect();
    if !early_reasons.is_empty() {
        // By table: a batch is one change in the audit trail.
        write.note_in_audit("early_reasons", early_reasons.into());
    }
    if !checked_reasons.is_empty() {
        write.note_in_audit("checked_reasons", checked_reasons.into());
    }
    write
        .write(move |conn| {
            // The whole batch is refused, not each of its sheets.
            catan_kit::checkouts::refuse_if_checked_out(conn, event_id)?;
            let results = submissions
                .into_iter()
                .map(|(table, submission)| {
                    // Each sheet in a savepoint of its own: a refused one undoes only itself.
                    let outcome =
                        submission.and_then(|s| conn.transaction(|sheet| s.persist(sheet)));
                    sheet_outcome(table, outcome)
                })
                .collect::<Result<_, ApiError>>()?;
            Reply::new(actix_web::http::StatusCode::OK, &BatchOutcome { results })
        })
        .await
}

/// What a batch answers for one sheet. A failure that is not the sheet's (the database gone)
/// fails the whole batch, which then stores nothing.
fn sheet_outcome(
    table: u32,
    outcome: Result<(actix_web::http::StatusCode, catan_api::TableResult), ApiError>,
) -> Result<SheetOutcome, ApiError> {
    match outcome {
        Ok((status, result)) => Ok(SheetOutcome {
            table,
            status: status.as_u16(),
            result: Some(result),
            problem: None,
        }),
        Err(e @ (ApiError::Internal(_) | ApiError::Unavailable { .. })) => Err(e),
        Err(refused) => {
            let problem = refused.to_problem();
            Ok(SheetOutcome {
                table,
                status: problem.status,
                result: None,
                problem: Some(problem),
            })
        }
    }
}
