//! Events checked out to a venue (issue 34), as registration tells pairing and results: each
//! keeps the events checked out in its own `event_checkouts`, written through an internal route
//! before registration answers the checkout, and refuses every write to them.
//!
//! No write lands after the checkout is told: a write checks the table with `FOR SHARE` (a
//! ROW SHARE lock on the table, taken before the statement's snapshot) in its own transaction,
//! before it writes; telling a checkout takes the table's EXCLUSIVE lock, which waits for every
//! write that checked already to commit, and holds back those that come meanwhile until the
//! checkout is committed, when they see it.

use crate::ApiError;
use crate::db::{self, PgPool};
use crate::schema::event_checkouts;
use actix_web::{HttpRequest, web};
use catan_api::{CheckedOutVenue, INTERNAL_CHECKOUT_PATH};
use diesel::prelude::*;
use secrecy::SecretString;
use utoipa_actix_web::service_config::ServiceConfig;
use uuid::Uuid;

/// The refusal of a write to `event_id`, checked out to `venue`: what to do instead.
pub fn refusal(event_id: Uuid, venue: &str) -> ApiError {
    ApiError::CheckedOut(format!(
        "event {event_id} is checked out to the venue \"{venue}\": the federation takes no writes \
         to it until its checkout is released, once the venue has published it (catan-suite \
         venue publish --release, or DELETE /v1/events/{event_id}/checkout: the admin or its \
         organiser); a publish alone leaves it checked out"
    ))
}

/// Refuses (409 `event_checked_out`) a write to `event_id` while it is checked out. Call it in
/// the write's transaction, before it writes: see the module.
pub fn refuse_if_checked_out(conn: &mut PgConnection, event_id: Uuid) -> Result<(), ApiError> {
    let venue: Option<String> = event_checkouts::table
        .find(event_id)
        .select(event_checkouts::venue)
        .for_share()
        .first(conn)
        .optional()?;
    catan_domain::venue_checkout::may_write(venue.as_deref())
        .map_err(|checked_out| refusal(event_id, &checked_out.venue))
}

/// Records that `event_id` is checked out to `venue` (again: the venue named last), once every
/// write that checked before is committed.
pub fn check_out(conn: &mut PgConnection, event_id: Uuid, venue: &str) -> QueryResult<()> {
    conn.transaction(|tx| {
        diesel::sql_query("LOCK TABLE event_checkouts IN EXCLUSIVE MODE").execute(tx)?;
        diesel::insert_into(event_checkouts::table)
            .values((
                event_checkouts::event_id.eq(event_id),
                event_checkouts::venue.eq(venue),
            ))
            .on_conflict(event_checkouts::event_id)
            .do_update()
            .set(event_checkouts::venue.eq(venue))
            .execute(tx)?;
        Ok(())
    })
}

/// Forgets `event_id`'s checkout: its writes are taken again.
pub fn release(conn: &mut PgConnection, event_id: Uuid) -> QueryResult<()> {
    diesel::delete(event_checkouts::table.find(event_id)).execute(conn)?;
    Ok(())
}

/// The key the internal routes check.
struct InternalKey(Option<SecretString>);

/// Registers registration's internal routes to tell this service of checkouts
/// ([`INTERNAL_CHECKOUT_PATH`]: `PUT` checks out, `DELETE` releases; both answer 200 and may be
/// repeated). They read the service's pool (`web::Data<PgPool>`).
pub fn internal_routes(cfg: &mut ServiceConfig, internal_key: Option<SecretString>) {
    cfg.app_data(web::Data::new(InternalKey(internal_key)))
        .route(INTERNAL_CHECKOUT_PATH, web::put().to(put_checkout))
        .route(INTERNAL_CHECKOUT_PATH, web::delete().to(delete_checkout));
}

async fn put_checkout(
    request: HttpRequest,
    key: web::Data<InternalKey>,
    pool: web::Data<PgPool>,
    path: web::Path<Uuid>,
    body: web::Json<CheckedOutVenue>,
) -> Result<web::Json<CheckedOutVenue>, ApiError> {
    crate::webhooks::require_internal_key(&request, key.0.as_ref())?;
    let (event_id, body) = (path.into_inner(), body.into_inner());
    let venue = body.venue.clone();
    db::run(&pool, move |conn| Ok(check_out(conn, event_id, &venue)?)).await?;
    Ok(web::Json(body))
}

async fn delete_checkout(
    request: HttpRequest,
    key: web::Data<InternalKey>,
    pool: web::Data<PgPool>,
    path: web::Path<Uuid>,
) -> Result<web::Json<()>, ApiError> {
    crate::webhooks::require_internal_key(&request, key.0.as_ref())?;
    let event_id = path.into_inner();
    db::run(&pool, move |conn| Ok(release(conn, event_id)?)).await?;
    Ok(web::Json(()))
}
