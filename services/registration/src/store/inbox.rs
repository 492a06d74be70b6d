//! The services' events as registration receives them: each stored once, and fanned out to the
//! subscriptions that want it.

use crate::schema::registration::{webhook_deliveries, webhook_messages, webhooks};
use catan_kit::webhooks::OutboxEvent;
use diesel::prelude::*;
use diesel::sql_types::Uuid as SqlUuid;

diesel::define_sql_function! {
    /// PostgreSQL's random (version 4) UUID.
    fn gen_random_uuid() -> SqlUuid;
}

/// Stores the events not stored yet and a pending delivery of each to every subscription that
/// wants it (call it in a transaction): how many deliveries were added.
pub fn fan_out(conn: &mut PgConnection, events: &[OutboxEvent]) -> QueryResult<usize> {
    let mut deliveries = 0;
    for event in events {
        let inserted = diesel::insert_into(webhook_messages::table)
            .values((
                webhook_messages::id.eq(event.id),
                webhook_messages::event_type.eq(event.event_type.as_str()),
                webhook_messages::event_id.eq(event.event_id),
                webhook_messages::payload.eq(&event.data),
                webhook_messages::occurred_at.eq(event.occurred_at),
            ))
            .on_conflict(webhook_messages::id)
            .do_nothing()
            .execute(conn)?;
        if inserted == 0 {
            continue;
        }
        // The live subscriptions to the event's type, and to every event or to this one.
        let wanted_by = webhooks::table
            .filter(webhooks::deleted_at.is_null())
            .filter(
                webhooks::event_types.contains(vec![Some(event.event_type.as_str().to_string())]),
            )
            .filter(
                webhooks::event_ids
                    .is_null()
                    .or(webhooks::event_ids.contains(vec![Some(event.event_id)])),
            )
            .select((
                gen_random_uuid(),
                webhooks::id,
                event.id.into_sql::<SqlUuid>(),
            ));
        deliveries += diesel::insert_into(webhook_deliveries::table)
            .values(wanted_by)
            .into_columns((
                webhook_deliveries::id,
                webhook_deliveries::webhook_id,
                webhook_deliveries::message_id,
            ))
            .execute(conn)?;
    }
    Ok(deliveries)
}
