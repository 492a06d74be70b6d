//! An event's results with their whole history, as a venue publishes them (issue 34): read whole
//! from the venue's suite, and taken into the federation's.

use crate::State;
use crate::drawn_rounds::DrawnRounds;
use crate::{store, venue_import};
use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpRequest, HttpResponse, get, put, web};
use catan_api::{Problem, Producer, Role, VenueResults, VenueResultsTaken};
use catan_kit::audit::AuditEntry;
use catan_kit::auth::Principal;
use catan_kit::peer::parent_exists_if_empty;
use catan_kit::problem::ErrorCode;
use catan_kit::venue_signature::VENUE_SIGNATURE_HEADER;
use catan_kit::venue_signed::{ImportQuery, read_authorised_import, taken_in, writing_transaction};
use catan_kit::{ApiError, db};
use diesel::Connection;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(venue_results).service(take_in_venue_results);
}

/// Every table's results of the event with everything kept of them (the event's director or
/// scorer, or the admin): each version of its sheet as posted, who recorded it and when, and the
/// players' confirmations and disputes: what a venue publishes to the federation.
#[utoipa::path(
    tag = "results",
    params(("event_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 200, body = VenueResults),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the event's director or scorer, nor the admin", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/venue-copy/results")]
async fn venue_results(
    state: web::Data<State>,
    principal: Principal,
    path: web::Path<Uuid>,
) -> Result<web::Json<VenueResults>, ApiError> {
    let event_id = path.into_inner();
    principal.require_event(event_id, &[Role::Director, Role::Scorer])?;
    let kept = db::run(&state.pool, move |conn| {
        store::venue_results::kept(conn, event_id)
    })
    .await?;
    // Nothing recorded yet, or no such event: registration knows which.
    parent_exists_if_empty(&kept, state.peers.registration.event(event_id)).await?;
    let tables = kept.into_iter().map(|kept| kept.copy).collect();
    Ok(web::Json(VenueResults { event_id, tables }))
}

/// Takes in a venue's results of the event, the third part of its publishing, after its
/// registration and its rounds (the admin, or anyone whose body carries the
/// `Catan-Venue-Signature` of the event's current checkout; taken while the event is checked
/// out). Every sheet version is checked against the rules and the round as drawn here, as if it
/// were posted here: a sheet that breaks them is a 422 naming its round, table and version. What
/// this suite lacks is recorded in the order the venue made it, with the venue's version numbers,
/// keys and times, and reaches the change feed and webhooks as ordinary writes do; what it has
/// alike changes nothing, so the same part again changes nothing. If anything differs (a version,
/// a confirmation or a dispute), nothing is taken in and the 409 lists every difference (on
/// `<record>.<field>`, code `differs`).
#[utoipa::path(
    tag = "results",
    params(("event_id" = Uuid, Path), ImportQuery),
    request_body = VenueResults,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "What was added (with `dry_run`, would be) and what was here alike", body = VenueResultsTaken),
        (status = 400, description = "The body is not a venue's results", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token and no signature", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the admin, or a signature that is not the checkout's key's", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Records differ from this suite's: every difference listed", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "A body over 32 MiB", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A sheet breaks a rule, a history is not one the rules make, a round is not drawn here, or the results are of another event than the path's: every fault listed", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/events/{event_id}/venue-copy/results")]
async fn take_in_venue_results(
    state: web::Data<State>,
    rounds: web::Data<DrawnRounds>,
    request: HttpRequest,
    payload: web::Payload,
    path: web::Path<Uuid>,
    query: web::Query<ImportQuery>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    let results: VenueResults = read_authorised_import(&request, payload, async {
        Ok(state.peers.registration.checkout_key(event_id).await?)
    })
    .await?;
    if results.event_id != event_id {
        return Err(ApiError::field(
            "event_id",
            ErrorCode::UnknownEvent,
            format!(
                "the results are of event {}, not {event_id}",
                results.event_id
            ),
        ));
    }
    let results = venue_import::normalised(results);
    let (drawn, faults) =
        venue_import::drawn_rounds(&state.peers.pairing, &state.pool, &rounds, &results).await?;
    let checked = venue_import::checked(results, drawn, faults)?;
    let dry_run = query.dry_run;
    let audit = admins_audit(&request).await?;
    let (taken, written) = db::run(&state.pool, move |conn| {
        conn.transaction(|conn| {
            let taken = venue_import::take_in(conn, &checked, dry_run)?;
            if taken.added == 0 || dry_run {
                return Ok((taken, None));
            }
            if let Some(audit) = audit {
                audit.record(conn, StatusCode::OK)?;
            }
            let txid = writing_transaction(conn)?;
            Ok((taken, Some((Producer::Results, txid))))
        })
    })
    .await?;
    Ok(taken_in(&taken, written))
}

/// The audit record of an import the admin sent with its token: a change made with a key is
/// audited as any other. A venue's signed import is made with no key of the federation's.
async fn admins_audit(request: &HttpRequest) -> Result<Option<AuditEntry>, ApiError> {
    if request.headers().contains_key(VENUE_SIGNATURE_HEADER) {
        return Ok(None);
    }
    let principal = Principal::from_request(request, &mut Payload::None).await?;
    Ok(Some(AuditEntry::of(request, &principal)))
}
