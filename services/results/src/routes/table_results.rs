//! A table's result: posting and correcting its sheet, reading it and its history.

use crate::State;
use crate::drawn_rounds::DrawnRounds;
use crate::first_sheets::FirstSheets;
use crate::store;
use crate::submission::{Submission, etag, reply};
use crate::timing::Clock;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, get, put, web};
use catan_api::{Problem, ResultList, Role, SubmitResult, TableResult};
use catan_domain::correction::Precondition;
use catan_domain::reporting::player_may_post_sheet;
use catan_kit::auth::Principal;
use catan_kit::idempotency::KeyFoundByTheWrite;
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::path::Ordinal;
use catan_kit::peer::parent_exists_if_empty;
use catan_kit::player_token::require_player;
use catan_kit::{ApiError, db};
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(submit_result)
        .service(get_result)
        .service(result_history);
}

/// Records a table's results sheet (the event's scorer or director; in a round drawn with
/// `player_reporting: report`, also a player seated at the table, with their PIN token). It must
/// name exactly the players seated at the table, with VP the game allows. Once recorded, only the
/// tournament director can replace it: every version is kept (a player's different sheet is a
/// 409, as a scorer's). A player's first sheet counts as their confirmation. Sending the same
/// sheet again changes nothing.
/// Once the round's clock has started, a `time_limit` sheet waits for its table's time to be up
/// (422 `time_not_up` on `outcome`) unless the director gives an `early_reason`, which the audit
/// trail keeps; a `won` sheet is taken at any time.
#[utoipa::path(
    tag = "results",
    params(("event_id" = Uuid, Path), ("round" = u32, Path), ("table" = u32, Path)),
    request_body = SubmitResult,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Recorded", body = TableResult),
        (status = 200, description = "Corrected by the director, or the same sheet sent again", body = TableResult),
        (status = 403, description = "Not the event's scorer or director; or a player's token when the round was drawn with `player_reporting` other than `report`, or for a table the player is not seated at", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such round or table", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A result is recorded; only the director may correct it; or the event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The sheet breaks a rule: every broken rule is listed by field (`time_not_up` on `outcome` for a `time_limit` sheet before the table's time is up)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/events/{event_id}/rounds/{round}/tables/{table}/result")]
async fn submit_result(
    state: web::Data<State>,
    rounds: web::Data<DrawnRounds>,
    first_sheets: web::Data<FirstSheets>,
    request: HttpRequest,
    mut write: KeyFoundByTheWrite<web::Json<SubmitResult>>,
    path: web::Path<(Uuid, Ordinal, Ordinal)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(round_number), Ordinal(table_number)) = path.into_inner();
    let principal = write.principal();
    let reporting_player = reporting_player(principal, event_id)?;
    let round = rounds
        .get(&state.peers.pairing, &state.pool, event_id, round_number)
        .await?;
    if let Some(player) = reporting_player {
        player_may_post_sheet(
            round.player_reporting,
            round.is_seated(table_number, player),
        )
        .map_err(|refusal| ApiError::Forbidden(refusal.to_string()))?;
    }
    let submission = Submission::checked(
        principal,
        &round,
        table_number,
        write.body(),
        precondition(&request),
    )?;
    let sheet = write.body();
    let clock = Clock::for_sheets(
        &state.peers.pairing,
        event_id,
        round_number,
        [(table_number, &**sheet)].into_iter(),
    )
    .await?;
    if let Some(reason) = clock.admit(principal, table_number, sheet)? {
        write.note_in_audit("early_reason", reason.into());
    }
    if let Some(reason) = submission.checked_reason() {
        write.note_in_audit("checked_reason", reason.into());
    }
    if let Some(player) = reporting_player {
        // Not the batched writer: the reporter's confirmation is written with the sheet.
        return write
            .write(move |conn| {
                let (status, result) = submission.persist_reported_by(conn, player)?;
                reply(status, &result)
            })
            .await;
    }
    let submission = std::sync::Arc::new(submission);
    let first = std::sync::Arc::clone(&submission);
    let producer = write.producer();
    write
        .write_first_or(
            async |claim, audit| {
                first_sheets
                    .record(&state.pool, first, claim, audit)
                    .await?
                    .map(|first| {
                        reply(StatusCode::CREATED, &first.result)
                            .map(|r| r.written_in(producer, first.txid))
                    })
                    .transpose()
            },
            move |conn| {
                let (status, result) = submission.persist(conn)?;
                reply(status, &result)
            },
        )
        .await
}

/// The player posting a sheet with their own token, or `None` for the event's scorer or director
/// (or the admin); any other key is refused. Whether the player may post this table's sheet
/// depends on the round ([`player_may_post_sheet`]).
fn reporting_player(principal: &Principal, event_id: Uuid) -> Result<Option<Uuid>, ApiError> {
    if principal.role() != Role::Player {
        return principal
            .require_event(event_id, &[Role::Scorer, Role::Director])
            .map(|()| None);
    }
    require_player(principal, event_id, "reporting a result").map(Some)
}

/// The request's If-Match: absent, `*`, or the ETag of a version (`"v3"`).
fn precondition(request: &HttpRequest) -> Precondition {
    let Some(value) = request.headers().get(actix_web::http::header::IF_MATCH) else {
        return Precondition::Absent;
    };
    match String::from_utf8_lossy(value.as_bytes()).trim() {
        "*" => Precondition::AnyVersion,
        tag => Precondition::Version(
            tag.strip_prefix("\"v")
                .and_then(|t| t.strip_suffix('"'))
                .and_then(|v| v.parse().ok()),
        ),
    }
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
    path: web::Path<(Uuid, Ordinal, Ordinal)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(round), Ordinal(table)) = path.into_inner();
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
    page: Page,
    path: web::Path<(Uuid, Ordinal, Ordinal)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, Ordinal(round), Ordinal(table)) = path.into_inner();
    let items = db::run(&state.pool, move |conn| {
        store::history(conn, event_id, round, table)
    })
    .await?;
    // Nothing recorded yet, or no such event or round: pairing knows which.
    parent_exists_if_empty(&items, state.peers.pairing.round(event_id, round)).await?;
    let items = page.slice(items);
    Ok(page.response(items.len()).json(ResultList { items }))
}
