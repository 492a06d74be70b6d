//! Entries into an event: late entries, drops and exclusions by the tournament director, and a
//! player's own drop where the event allows it.

use crate::State;
use crate::access;
use crate::store;
use crate::validate::{refuse_foreign, valid_name};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use catan_api::{
    CreateEntry, DropEntry, Entry, EntryStatus, EventFormat, PlayerPin, Problem, Role,
};
use catan_domain::reinstate::may_reinstate;
use catan_domain::reporting::player_may_drop;
use catan_kit::idempotency::Reply;
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::pin_key::PinKey;
use catan_kit::player_token::require_player;
use catan_kit::problem::ErrorCode;
use catan_kit::{ApiError, IdempotentWrite, db};
use diesel::PgConnection;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_entry)
        .service(list_entries)
        .service(drop_entry)
        .service(reinstate_entry)
        .service(reissue_pin);
}

/// What a retry of an entry with its `Idempotency-Key` is told: the PINs are not kept for
/// replays.
const ENTRY_SHOWN_ONCE: &str = "an entry was already made with this Idempotency-Key, and its \
                                PINs were shown once; GET /v1/events/{event_id}/entries shows \
                                the entry, and POST /v1/events/{event_id}/players/{player_id}/pin \
                                gives a player a new PIN";
/// What a retry of a PIN's reissue with its `Idempotency-Key` is told.
const PIN_SHOWN_ONCE: &str = "a PIN was already reissued with this Idempotency-Key, and it was \
                              shown once; reissue again (with another key) for a new one";

/// Who an entry request enters: (team name, players), checked against the event's format.
fn entrants(
    format: EventFormat,
    body: &CreateEntry,
) -> Result<(Option<String>, Vec<Uuid>), ApiError> {
    match format {
        EventFormat::Classic => {
            refuse_foreign(
                &[
                    ("team_name", body.team_name.is_some()),
                    ("player_ids", body.player_ids.is_some()),
                ],
                "classic",
            )?;
            let player = body.player_id.ok_or_else(|| {
                ApiError::field(
                    "player_id",
                    ErrorCode::Required,
                    "a classic entry names its player",
                )
            })?;
            Ok((None, vec![player]))
        }
        EventFormat::Partner => {
            refuse_foreign(&[("player_id", body.player_id.is_some())], "partner")?;
            let name = valid_name("team_name", body.team_name.as_deref().unwrap_or_default())?;
            let players = body.player_ids.clone().unwrap_or_default();
            match players.as_slice() {
                [first, second] if first == second => Err(ApiError::field(
                    "player_ids[1]",
                    ErrorCode::DuplicatePlayer,
                    "a team has two different players",
                )),
                [_, _] => Ok((Some(name), players)),
                _ => Err(ApiError::field(
                    "player_ids",
                    ErrorCode::TeamOfTwo,
                    "a team has exactly two players",
                )),
            }
        }
    }
}

/// The 422 for the entry's `index`-th player, who does not exist.
fn unknown_player(team: bool, index: usize, player: Uuid) -> ApiError {
    let field = if team {
        format!("player_ids[{index}]")
    } else {
        "player_id".to_string()
    };
    ApiError::field(
        &field,
        ErrorCode::UnknownPlayer,
        format!("there is no player {player}"),
    )
}

/// Enters the request's player or team into the event, if the event, the request's format and
/// its players allow it.
fn enter(
    conn: &mut PgConnection,
    key: &PinKey,
    event_id: Uuid,
    body: &CreateEntry,
) -> Result<Reply, ApiError> {
    let event = store::events::load(conn, event_id)?;
    let (team_name, members) = entrants(event.format, body)?;
    if let Some(i) = store::people::first_unknown_player(conn, &members)? {
        return Err(unknown_player(team_name.is_some(), i, members[i]));
    }
    if let Some(player) = store::entries::first_entered(conn, event_id, &members)? {
        return Err(ApiError::Conflict(format!(
            "player {player} is already entered in this event"
        )));
    }
    let entry = store::entries::insert(conn, key, event_id, team_name, &members)?;
    // The PINs are shown now only: the key keeps a refusal for retries, never the PINs.
    Ok(Reply::new(StatusCode::CREATED, &entry)?.shown_once(ENTRY_SHOWN_ONCE))
}

/// Enters a player (classic) or a team of two (partner) into the event (the event's director, or
/// the organiser of its region).
/// An entry made after a round was drawn joins from the next round. A player plays for one
/// entry of an event. The answer shows each player's PIN once: a retry with the same
/// `Idempotency-Key` is 409, as the PINs are not kept for replays (the director reissues a PIN
/// with `POST /v1/events/{event_id}/players/{player_id}/pin`).
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path)),
    request_body = CreateEntry,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Entered; each player's PIN is shown only now", body = Entry),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A player is already entered in this event, or this Idempotency-Key made an entry before (its PINs were shown once); or the event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/entries")]
async fn create_entry(
    state: web::Data<State>,
    write: IdempotentWrite<web::Json<CreateEntry>>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    access::require_event(&state, write.principal(), event_id, &[Role::Director]).await?;
    let body = write.body().0.clone();
    let key = state.pin_key.clone();
    write
        .write(move |conn| {
            store::checkouts::refuse_if_checked_out(conn, event_id)?;
            enter(conn, &key, event_id, &body)
        })
        .await
}

/// The event's entries, in the order they were made.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path), PageQuery),
    responses((status = 200, body = Vec<Entry>), (status = 404, body = Problem, content_type = "application/problem+json"))
)]
#[get("/v1/events/{event_id}/entries")]
async fn list_entries(
    state: web::Data<State>,
    path: web::Path<Uuid>,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    let query = page.query();
    let entries = db::run(&state.pool, move |conn| {
        store::events::load(conn, event_id)?;
        store::entries::page(conn, event_id, query.limit(), query.offset())
    })
    .await?;
    Ok(page.respond(&entries))
}

/// Drops a player from the event, or excludes him (the event's director, or the organiser of its
/// region). He is not seated in later rounds; the games he played stay. Where the event has
/// `players_may_drop`, a player may drop their own entry (a classic entry's player, or either
/// member of a partner team) with their PIN token; only the director excludes.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path), ("entry_id" = Uuid, Path)),
    request_body = DropEntry,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Entry),
        (status = 403, description = "Not the event's director nor its region's organiser; or a player's token when the event does not have `players_may_drop`, for an entry not their own, or asking to `exclude`", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already dropped or excluded; or the event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/entries/{entry_id}/drop")]
async fn drop_entry(
    state: web::Data<State>,
    write: IdempotentWrite<web::Json<DropEntry>>,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, entry_id) = path.into_inner();
    let principal = write.principal();
    let dropping_player = if principal.role() == Role::Player {
        Some(require_player(principal, event_id, "dropping oneself")?)
    } else {
        access::require_event(&state, principal, event_id, &[Role::Director]).await?;
        None
    };
    let reason = valid_name("reason", &write.body().reason)?;
    let exclude = write.body().exclude;
    let status = if exclude {
        EntryStatus::Excluded
    } else {
        EntryStatus::Dropped
    };
    write
        .write(move |conn| {
            store::checkouts::refuse_if_checked_out(conn, event_id)?;
            if let Some(player) = dropping_player {
                let event = store::events::load(conn, event_id)?;
                let entry = store::entries::load(conn, event_id, entry_id)?;
                player_may_drop(
                    event.players_may_drop,
                    entry.player_ids.contains(&player),
                    exclude,
                )
                .map_err(|refusal| ApiError::Forbidden(refusal.to_string()))?;
            }
            let changed = store::entries::end(conn, event_id, entry_id, status, &reason)?;
            let entry = store::entries::load(conn, event_id, entry_id)?;
            if !changed {
                return Err(ApiError::Conflict(
                    format!("entry {entry_id} is already {:?}", entry.status).to_lowercase(),
                ));
            }
            Reply::new(StatusCode::OK, &entry)
        })
        .await
}

/// Takes a dropped or excluded entry back into the event (the event's director, or the organiser
/// of its region), before the next round is drawn: it is seated again from that round on, as if
/// it had never left. The audit trail keeps the drop and the reinstatement.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path), ("entry_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The entry, active again", body = Entry),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the event's director nor its region's organiser", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The entry is active; or a round was drawn after it left (the message says which); or the event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/entries/{entry_id}/reinstate")]
async fn reinstate_entry(
    state: web::Data<State>,
    write: IdempotentWrite<()>,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, entry_id) = path.into_inner();
    access::require_event(&state, write.principal(), event_id, &[Role::Director]).await?;
    let rounds: Vec<(u32, chrono::DateTime<chrono::Utc>)> = state
        .pairing
        .rounds(event_id)
        .await?
        .into_iter()
        .map(|round| (round.number, round.drawn_at))
        .collect();
    write
        .write(move |conn| {
            store::checkouts::refuse_if_checked_out(conn, event_id)?;
            let left_at = store::entries::lock_left_at(conn, event_id, entry_id)?;
            may_reinstate(left_at.as_ref(), &rounds)
                .map_err(|refusal| ApiError::Conflict(refusal.to_string()))?;
            store::entries::reinstate(conn, event_id, entry_id)?;
            Reply::new(
                StatusCode::OK,
                &store::entries::load(conn, event_id, entry_id)?,
            )
        })
        .await
}

/// Gives the player a new PIN for the event (the event's director, the organiser of its region,
/// or the admin), e.g. for a
/// player who lost his: the old PIN stops working at once. The answer shows the PIN once; a retry
/// with the same `Idempotency-Key` is 409, as the PIN is not kept for replays.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path), ("player_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The player's new PIN, shown only now", body = PlayerPin),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the event's director, its region's organiser or the admin", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "The player has no entry in this event", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "This Idempotency-Key reissued a PIN before (it was shown once); or the event is checked out to a venue (`event_checked_out`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events/{event_id}/players/{player_id}/pin")]
async fn reissue_pin(
    state: web::Data<State>,
    write: IdempotentWrite<()>,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (event_id, player_id) = path.into_inner();
    access::require_event(&state, write.principal(), event_id, &[Role::Director]).await?;
    let key = state.pin_key.clone();
    write
        .write(move |conn| {
            store::events::load(conn, event_id)?;
            store::checkouts::refuse_if_checked_out(conn, event_id)?;
            let pin = store::entries::reissue_pin(conn, &key, event_id, player_id)?;
            tracing::info!(event = %event_id, player = %player_id, "PIN reissued");
            Ok(Reply::new(StatusCode::OK, &pin)?.shown_once(PIN_SHOWN_ONCE))
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::tests::{broken, field_and_code};

    #[test]
    fn a_classic_entry_names_one_player() {
        let player = Uuid::new_v4();
        assert_eq!(
            entrants(EventFormat::Classic, &CreateEntry::player(player)).unwrap(),
            (None, vec![player])
        );
        assert_eq!(
            field_and_code(entrants(EventFormat::Classic, &CreateEntry::default()).unwrap_err()),
            ("player_id".into(), ErrorCode::Required)
        );
        let team = CreateEntry::team("Two", [Uuid::new_v4(), Uuid::new_v4()]);
        assert_eq!(
            field_and_code(entrants(EventFormat::Classic, &team).unwrap_err()),
            ("team_name".into(), ErrorCode::NotForFormat)
        );
    }

    #[test]
    fn a_partner_entry_names_a_team_of_two_different_players() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        assert_eq!(
            entrants(EventFormat::Partner, &CreateEntry::team(" Two ", [a, b])).unwrap(),
            (Some("Two".into()), vec![a, b])
        );
        assert_eq!(
            field_and_code(
                entrants(EventFormat::Partner, &CreateEntry::team("T", [a, a])).unwrap_err()
            ),
            ("player_ids[1]".into(), ErrorCode::DuplicatePlayer)
        );
        let three = CreateEntry {
            player_ids: Some(vec![a, b, Uuid::new_v4()]),
            ..CreateEntry::team("T", [a, b])
        };
        assert_eq!(
            field_and_code(entrants(EventFormat::Partner, &three).unwrap_err()),
            ("player_ids".into(), ErrorCode::TeamOfTwo)
        );
        assert_eq!(
            field_and_code(entrants(EventFormat::Partner, &CreateEntry::player(a)).unwrap_err()),
            ("player_id".into(), ErrorCode::NotForFormat)
        );
        let unnamed = CreateEntry {
            team_name: None,
            ..CreateEntry::team("T", [a, b])
        };
        assert_eq!(
            field_and_code(entrants(EventFormat::Partner, &unnamed).unwrap_err()),
            ("team_name".into(), ErrorCode::InvalidName)
        );
    }

    #[test]
    fn an_unknown_player_is_named_by_his_field() {
        let player = Uuid::new_v4();
        assert_eq!(
            broken(unknown_player(true, 1, player)),
            (
                "player_ids[1]".into(),
                ErrorCode::UnknownPlayer,
                format!("there is no player {player}")
            )
        );
        assert_eq!(
            field_and_code(unknown_player(false, 0, player)),
            ("player_id".into(), ErrorCode::UnknownPlayer)
        );
    }
}
