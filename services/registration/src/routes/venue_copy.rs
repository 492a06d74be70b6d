//! A venue's copy of one event (issue 34), taken in under the federation's ids: what
//! `catan-suite venue pull` sends to the venue's suite.

use crate::{State, store, validate_copy};
use actix_web::{HttpRequest, HttpResponse, put, web};
use catan_api::{CopyCounts, Problem, Producer, VenueCopy, VenueCopyTaken};
use catan_domain::venue_copy::{entry_left_at_the_venue, plan_copy_moving_on};
use catan_kit::problem::ErrorCode;
use catan_kit::venue_signed::{ImportQuery, read_authorised_import, taken_in, writing_transaction};
use catan_kit::{ApiError, db};
use std::collections::HashSet;
use uuid::Uuid;

/// What the 409 of a part that differs calls it.
const PART: &str = "the copy";

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(take_in_copy);
}

/// Takes in a copy of one event with its regions, players and entries, under the ids they have
/// in the federation: the first part of a venue's publishing, and what `venue pull` sends to the
/// venue's suite (the admin, or anyone whose body carries the `Catan-Venue-Signature` of the
/// event's current checkout; taken while the event is checked out). A record the suite lacks is
/// created with its id; one it has alike changes nothing, so that the same copy taken in again
/// changes nothing; an entry that left the event at the venue (dropped or excluded there) takes
/// the copy's status. The venue's audit records of the event are kept as they were, each once
/// by its id (one the suite has under that id is unchanged), and `GET /v1/audit` lists them. If any record differs otherwise, nothing is taken in and the 409 lists
/// every difference (on `<record>.<field>`, code `differs`, saying ours and theirs).
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path, description = "The event the copy is of"), ImportQuery),
    request_body = VenueCopy,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "What the copy created (with `dry_run`, would create), the entries that left at the venue, and what the suite had alike", body = VenueCopyTaken),
        (status = 400, description = "The body is not a venue's copy", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token and no signature", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the admin, or a signature that is not the checkout's key's", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Records of the copy differ from the suite's: every difference listed", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "A body over 32 MiB", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The copy breaks a rule, or is of another event than the path's", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/events/{event_id}/venue-copy")]
async fn take_in_copy(
    state: web::Data<State>,
    request: HttpRequest,
    payload: web::Payload,
    path: web::Path<Uuid>,
    query: web::Query<ImportQuery>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    let checkout_key = async {
        let checkout = db::run(&state.pool, move |conn| {
            store::checkouts::find(conn, event_id)
        });
        Ok(checkout.await?.map(|checkout| checkout.public_key))
    };
    let copy: VenueCopy = read_authorised_import(&request, payload, checkout_key).await?;
    if copy.event.id != event_id {
        return Err(ApiError::field(
            "event.id",
            ErrorCode::UnknownEvent,
            format!("the copy is of event {}, not {event_id}", copy.event.id),
        ));
    }
    validate_copy::check(&copy)?;
    let dry_run = query.dry_run;
    let (taken, written) = db::transaction(&state.pool, move |conn| {
        // Copies of the same event are taken in one after the other.
        db::lock_event(conn, event_id)?;
        let ours = store::venue_copy::ours(conn, &copy)?;
        let changes = plan_copy_moving_on(&ours, &copy.records(), entry_left_at_the_venue)
            .map_err(|differences| catan_kit::venue_signed::contradicts(PART, differences))?;
        let create: HashSet<String> = changes.create.into_iter().collect();
        // Records new by their ids that clash with others the suite has: a region's name,
        // a player's entry in the event.
        let mut clashes = store::venue_copy::named_otherwise(conn, &copy, &create)?;
        clashes.extend(store::venue_copy::entered_otherwise(conn, &copy, &create)?);
        if !clashes.is_empty() {
            return Err(catan_kit::venue_signed::contradicts(PART, clashes));
        }
        let left = changes.move_on.len();
        let created = if dry_run {
            CopyCounts {
                audit_records: catan_kit::audit::count_new(conn, &copy.audit)?,
                ..counted(&create)
            }
        } else {
            let created = store::venue_copy::insert(conn, &copy, create)?;
            store::venue_copy::end_entries(conn, &copy, &changes.move_on)?;
            let venue = venue_of(conn, &copy)?;
            CopyCounts {
                audit_records: catan_kit::audit::import(conn, &venue, &copy.audit)?,
                ..created
            }
        };
        let taken = VenueCopyTaken {
            event_id,
            dry_run,
            unchanged: unchanged(&copy, created, left),
            created,
            entries_left: u32::try_from(left).unwrap_or(u32::MAX),
        };
        let wrote = !dry_run && (created != CopyCounts::default() || left > 0);
        let written = match wrote {
            true => Some((Producer::Registration, writing_transaction(conn)?)),
            false => None,
        };
        Ok((taken, written))
    })
    .await?;
    Ok(taken_in(&taken, written))
}

/// The venue the copy's audit records were made at: the checkout's (a publish is taken while
/// the event is checked out), else the event's own venue.
fn venue_of(conn: &mut diesel::PgConnection, copy: &VenueCopy) -> Result<String, ApiError> {
    if copy.audit.is_empty() {
        return Ok(String::new());
    }
    let checkout = store::checkouts::find(conn, copy.event.id)?;
    Ok(checkout
        .map(|checkout| checkout.venue)
        .or_else(|| copy.event.venue.clone())
        .unwrap_or_else(|| "venue".to_owned()))
}

/// The records of `keys` by kind, as the copy's records name them.
fn counted(keys: &HashSet<String>) -> CopyCounts {
    let of = |kind: &str| {
        let count = keys.iter().filter(|key| key.starts_with(kind)).count();
        u32::try_from(count).unwrap_or(u32::MAX)
    };
    CopyCounts {
        regions: of("regions["),
        events: of("event["),
        players: of("players["),
        entries: of("entries["),
        audit_records: 0,
    }
}

/// The records of the copy that were the suite's already, by kind: those neither created nor
/// left at the venue (`left`, entries).
fn unchanged(copy: &VenueCopy, created: CopyCounts, left: usize) -> CopyCounts {
    let distinct = |ids: &mut dyn Iterator<Item = Uuid>, created: u32| {
        let count = ids.collect::<HashSet<_>>().len();
        u32::try_from(count)
            .unwrap_or(u32::MAX)
            .saturating_sub(created)
    };
    CopyCounts {
        regions: distinct(&mut copy.regions.iter().map(|r| r.id), created.regions),
        events: 1u32.saturating_sub(created.events),
        players: distinct(&mut copy.players.iter().map(|p| p.id), created.players),
        entries: distinct(&mut copy.entries.iter().map(|e| e.id), created.entries)
            .saturating_sub(u32::try_from(left).unwrap_or(u32::MAX)),
        audit_records: distinct(&mut copy.audit.iter().map(|r| r.id), created.audit_records),
    }
}
