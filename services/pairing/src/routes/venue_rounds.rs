//! An event's rounds as a venue publishes them (issue 34): read whole from the venue's suite,
//! and taken into the federation's.

use crate::State;
use crate::clock::ClockSettings;
use crate::venue_store;
use actix_web::{HttpRequest, get, put, web};
use catan_api::{Problem, Role, VenueRounds, VenueRoundsTaken, event_shape};
use catan_domain::venue_copy::CopyPlan;
use catan_domain::venue_rounds::{
    RoundFault, RoundFaultKind, clock_faults, keep_apart_faults, participant_faults,
    plan_rounds_copy, round_faults,
};
use catan_kit::auth::Principal;
use catan_kit::peer::parent_exists_if_empty;
use catan_kit::problem::{ErrorCode, FieldError};
use catan_kit::venue_signed::{ImportQuery, read_authorised_import};
use catan_kit::{ApiError, db};
use chrono::SubsecRound;
use diesel::Connection;
use std::collections::HashSet;
use uuid::Uuid;

/// What the 409 of a part that differs calls it.
const PART: &str = "the venue's rounds";

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(venue_rounds).service(take_in_venue_rounds);
}

/// Every round of the event as pairing keeps it (the event's director or scorer, or the admin):
/// seeds, tables and seats, the engine's number of each entry, the keep-apart pairs and each
/// round's clock log: what a venue publishes to the federation.
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 200, body = VenueRounds),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the event's director or scorer, nor the admin", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/venue-copy/rounds")]
async fn venue_rounds(
    state: web::Data<State>,
    principal: Principal,
    path: web::Path<Uuid>,
) -> Result<web::Json<VenueRounds>, ApiError> {
    let event_id = path.into_inner();
    principal.require_event(event_id, &[Role::Director, Role::Scorer])?;
    let copy = db::run(&state.pool, move |conn| {
        venue_store::venue_rounds(conn, event_id)
    })
    .await?;
    // Nothing drawn yet, or no such event: registration knows which.
    parent_exists_if_empty(&copy.rounds, state.peers.registration.event(event_id)).await?;
    Ok(web::Json(copy))
}

/// Takes in a venue's rounds of the event, the second part of its publishing, after its
/// registration (the admin, or anyone whose body carries the `Catan-Venue-Signature` of the
/// event's current checkout; taken while the event is checked out). Every round must be one the
/// draw could have made: numbered on from 1, of the event's format and stages, each seat an
/// entrant's player in play order, tables of the sizes the draw seats. A round this suite lacks
/// is stored with its seed, tables and the venue's times as a draw stores it (with the
/// `round.drawn` webhook); records it has alike change nothing, so the same part again changes
/// nothing. If anything differs, or this suite has a round the part lacks, nothing is taken in
/// and the 409 lists every difference (on `<record>.<field>`, code `differs`).
#[utoipa::path(
    tag = "pairing",
    params(("event_id" = Uuid, Path), ImportQuery),
    request_body = VenueRounds,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "What was added (with `dry_run`, would be) and what was here alike", body = VenueRoundsTaken),
        (status = 400, description = "The body is not a venue's rounds", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token and no signature", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the admin, or a signature that is not the checkout's key's", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Records differ from this suite's: every difference listed", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "A body over 32 MiB", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A round the draw could not have made (a seat of no entrant, tables of other sizes, rounds not following on), or rounds of another event than the path's: every fault listed", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Registration is unavailable; nothing was taken in", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/events/{event_id}/venue-copy/rounds")]
async fn take_in_venue_rounds(
    state: web::Data<State>,
    clock: web::Data<ClockSettings>,
    request: HttpRequest,
    payload: web::Payload,
    path: web::Path<Uuid>,
    query: web::Query<ImportQuery>,
) -> Result<web::Json<VenueRoundsTaken>, ApiError> {
    let event_id = path.into_inner();
    let copy: VenueRounds = read_authorised_import(&request, payload, async {
        Ok(state.peers.registration.checkout_key(event_id).await?)
    })
    .await?;
    let copy = normalised(copy);
    check(&state, event_id, &copy).await?;
    let (dry_run, lead) = (query.dry_run, clock.ending_lead);
    let taken = db::run(&state.pool, move |conn| {
        conn.transaction(|conn| {
            catan_kit::db::lock_event(conn, event_id)?;
            let ours = venue_store::venue_rounds(conn, event_id)?.records();
            let theirs = copy.records();
            let create: HashSet<String> = match plan_rounds_copy(&ours, &theirs) {
                CopyPlan::Create(keys) => keys.into_iter().collect(),
                CopyPlan::Refuse(differences) => {
                    return Err(catan_kit::venue_signed::contradicts(PART, differences));
                }
            };
            let added = if dry_run {
                would_add(&copy, &create)
            } else {
                venue_store::insert(conn, &copy, &create, lead)?
            };
            Ok(VenueRoundsTaken {
                event_id,
                dry_run,
                unchanged: counts(&copy, &|key| !create.contains(key)),
                added,
            })
        })
    })
    .await?;
    Ok(web::Json(taken))
}

/// The copy with its times as PostgreSQL keeps them (microseconds), so that what is stored
/// compares equal to what is sent when the same part comes again.
fn normalised(mut copy: VenueRounds) -> VenueRounds {
    for round in &mut copy.rounds {
        round.drawn_at = round.drawn_at.trunc_subsecs(6);
    }
    for log in &mut copy.clocks {
        for entry in &mut log.actions {
            entry.at = entry.at.trunc_subsecs(3);
        }
    }
    copy
}

/// The copy is of the path's event and every round of it one the draw could have made for the
/// event's entries as registration has them; else the 422 listing every fault.
async fn check(state: &State, event_id: Uuid, copy: &VenueRounds) -> Result<(), ApiError> {
    let mut errors = Vec::new();
    let other_event = |field: String, id: Uuid| FieldError {
        field,
        code: ErrorCode::UnknownEvent,
        message: format!("of event {id}, not {event_id}"),
    };
    if copy.event_id != event_id {
        errors.push(other_event("event_id".into(), copy.event_id));
    }
    for (i, round) in copy.rounds.iter().enumerate() {
        if round.event_id != event_id {
            errors.push(other_event(format!("rounds[{i}].event_id"), round.event_id));
        }
    }
    let event = state.peers.registration.event(event_id).await?;
    let entries = state.peers.registration.entries(event_id).await?;
    let shape = event_shape(&event, &entries);
    let participants: Vec<(Uuid, Uuid, u32)> = copy
        .participants
        .iter()
        .map(|p| (p.entry_id, p.player_id, p.number))
        .collect();
    let numbers: Vec<u32> = copy.rounds.iter().map(|r| r.number).collect();
    let faults = participant_faults(&shape, &participants)
        .into_iter()
        .chain(keep_apart_faults(&shape, &copy.keep_apart.pairs))
        .chain(round_faults(&shape, &copy.shapes()))
        .chain(clock_faults(&numbers, &copy.clock_logs()));
    errors.extend(faults.map(field_error));
    if errors.is_empty() {
        return Ok(());
    }
    let detail = match errors.as_slice() {
        [one] => one.message.clone(),
        many => format!("{} rules broken; see errors", many.len()),
    };
    Err(ApiError::Validation { detail, errors })
}

fn field_error(fault: RoundFault) -> FieldError {
    let code = match fault.kind {
        RoundFaultKind::NotEntered => ErrorCode::NotEntered,
        RoundFaultKind::DuplicatePlayer => ErrorCode::DuplicatePlayer,
        RoundFaultKind::Unplayable | RoundFaultKind::Clock => ErrorCode::Unplayable,
        RoundFaultKind::Teams => ErrorCode::TeamOfTwo,
        RoundFaultKind::OutOfRange => ErrorCode::OutOfRange,
        RoundFaultKind::NotForFormat => ErrorCode::NotForFormat,
    };
    FieldError {
        field: fault.field,
        code,
        message: fault.message,
    }
}

/// The records of `copy` by kind, those whose key `counted` takes.
fn counts(copy: &VenueRounds, counted: &dyn Fn(&str) -> bool) -> catan_api::RoundsCounts {
    let count = |records: Vec<catan_domain::venue_copy::CopyRecord>| {
        u32::try_from(records.iter().filter(|r| counted(&r.key)).count()).unwrap_or(u32::MAX)
    };
    let rounds: Vec<_> = copy
        .rounds
        .iter()
        .flat_map(VenueRounds::round_records)
        .collect();
    let (own, tables): (Vec<_>, Vec<_>) = rounds
        .into_iter()
        .partition(|r| !r.key.contains(".tables["));
    catan_api::RoundsCounts {
        participants: count(
            copy.participants
                .iter()
                .map(VenueRounds::participant_record)
                .collect(),
        ),
        keep_apart: count(
            VenueRounds::keep_apart_record(&copy.keep_apart.pairs)
                .into_iter()
                .collect(),
        ),
        rounds: count(own),
        tables: count(tables),
        clock_actions: count(
            copy.clocks
                .iter()
                .flat_map(VenueRounds::clock_records)
                .collect(),
        ),
    }
}

/// What taking in `copy` would add: the records whose keys are in `create`.
fn would_add(copy: &VenueRounds, create: &HashSet<String>) -> catan_api::RoundsCounts {
    counts(copy, &|key| create.contains(key))
}
