//! An event's checkout to a venue (issue 34), kept on the event's row: a write to the event
//! checks it holding the row (`FOR SHARE`), and a checkout changes it holding the row, so that no
//! write checked before the checkout commits after it.

use crate::schema::registration::events;
use catan_api::Checkout;
use catan_domain::venue_checkout::{may_check_out, may_write};
use catan_kit::ApiError;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

type CheckoutColumns = (Option<String>, Option<String>, Option<DateTime<Utc>>);

/// The event's checkout columns, holding its row (for a checkout's change) or sharing it (for a
/// write's check); 404 when there is no event.
fn held(
    conn: &mut PgConnection,
    event_id: Uuid,
    change: bool,
) -> Result<CheckoutColumns, ApiError> {
    let query = events::table.find(event_id).select((
        events::checkout_venue,
        events::checkout_public_key,
        events::checked_out_at,
    ));
    let found = if change {
        query.for_no_key_update().first(conn).optional()?
    } else {
        query.for_share().first(conn).optional()?
    };
    found.ok_or_else(|| ApiError::NotFound(format!("there is no event {event_id}")))
}

fn checkout_of(event_id: Uuid, columns: CheckoutColumns) -> Option<Checkout> {
    match columns {
        (Some(venue), Some(public_key), Some(checked_out_at)) => Some(Checkout {
            event_id,
            venue,
            public_key,
            checked_out_at,
        }),
        _ => None,
    }
}

/// The event's checkout, `None` when it is not checked out; 404 when there is no event.
pub fn find(conn: &mut PgConnection, event_id: Uuid) -> Result<Option<Checkout>, ApiError> {
    let columns: Option<CheckoutColumns> = events::table
        .find(event_id)
        .select((
            events::checkout_venue,
            events::checkout_public_key,
            events::checked_out_at,
        ))
        .first(conn)
        .optional()?;
    let columns =
        columns.ok_or_else(|| ApiError::NotFound(format!("there is no event {event_id}")))?;
    Ok(checkout_of(event_id, columns))
}

/// The refusal of a second checkout: 409 naming the venue that holds the event.
pub fn already_checked_out(event_id: Uuid, venue: &str) -> ApiError {
    ApiError::Conflict(format!(
        "event {event_id} is checked out already, to the venue \"{venue}\": it is released first \
         (DELETE /v1/events/{event_id}/checkout)"
    ))
}

/// Checks the event out to `venue` with its `public_key`: the checkout; 409 when it is checked
/// out already, 404 when there is no event.
pub fn check_out(
    conn: &mut PgConnection,
    event_id: Uuid,
    venue: &str,
    public_key: &str,
) -> Result<Checkout, ApiError> {
    let (current, _, _) = held(conn, event_id, true)?;
    may_check_out(current.as_deref())
        .map_err(|checked_out| already_checked_out(event_id, &checked_out.venue))?;
    let columns: CheckoutColumns = diesel::update(events::table.find(event_id))
        .set((
            events::checkout_venue.eq(venue),
            events::checkout_public_key.eq(public_key),
            events::checked_out_at.eq(diesel::dsl::now),
        ))
        .returning((
            events::checkout_venue,
            events::checkout_public_key,
            events::checked_out_at,
        ))
        .get_result(conn)?;
    checkout_of(event_id, columns).ok_or_else(|| ApiError::internal("checkout vanished"))
}

/// Releases the event's checkout: whether it was checked out; 404 when there is no event.
pub fn release(conn: &mut PgConnection, event_id: Uuid) -> Result<bool, ApiError> {
    let (current, _, _) = held(conn, event_id, true)?;
    if current.is_none() {
        return Ok(false);
    }
    diesel::update(events::table.find(event_id))
        .set((
            events::checkout_venue.eq(None::<String>),
            events::checkout_public_key.eq(None::<String>),
            events::checked_out_at.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    Ok(true)
}

/// Refuses (409 `event_checked_out`) a write to the event while it is checked out, sharing its
/// row until the write's transaction ends. An event that does not exist passes: the write then
/// finds it missing.
pub fn refuse_if_checked_out(conn: &mut PgConnection, event_id: Uuid) -> Result<(), ApiError> {
    refuse_holding(conn, event_id, false)
}

/// [`refuse_if_checked_out`] for a write that changes the event's own row: it holds the row as
/// the change will, so that two such writes wait for each other rather than deadlock.
pub fn refuse_if_checked_out_before_changing_it(
    conn: &mut PgConnection,
    event_id: Uuid,
) -> Result<(), ApiError> {
    refuse_holding(conn, event_id, true)
}

fn refuse_holding(conn: &mut PgConnection, event_id: Uuid, change: bool) -> Result<(), ApiError> {
    match held(conn, event_id, change) {
        Ok((venue, _, _)) => may_write(venue.as_deref())
            .map_err(|checked_out| catan_kit::checkouts::refusal(event_id, &checked_out.venue)),
        Err(ApiError::NotFound(_)) => Ok(()),
        Err(e) => Err(e),
    }
}
