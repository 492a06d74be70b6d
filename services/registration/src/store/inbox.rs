//! The services' events as registration receives them: each stored once, and fanned out to the
//! subscriptions that want it.

use catan_kit::webhooks::OutboxEvent;
use diesel::prelude::*;
use diesel::sql_types::{Jsonb, Text, Timestamptz, Uuid as SqlUuid};

/// Stores the events not stored yet and a pending delivery of each to every subscription that
/// wants it (call it in a transaction): how many deliveries were added.
pub fn fan_out(conn: &mut PgConnection, events: &[OutboxEvent]) -> QueryResult<usize> {
    let mut deliveries = 0;
    for event in events {
        let inserted = diesel::sql_query(
            "INSERT INTO webhook_messages (id, event_type, event_id, payload, occurred_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING",
        )
        .bind::<SqlUuid, _>(event.id)
        .bind::<Text, _>(event.event_type.as_str())
        .bind::<SqlUuid, _>(event.event_id)
        .bind::<Jsonb, _>(&event.data)
        .bind::<Timestamptz, _>(event.occurred_at)
        .execute(conn)?;
        if inserted == 0 {
            continue;
        }
        deliveries += diesel::sql_query(
            "INSERT INTO webhook_deliveries (id, webhook_id, message_id) \
             SELECT gen_random_uuid(), w.id, $1 FROM webhooks w \
             WHERE w.deleted_at IS NULL AND $2 = ANY (w.event_types) \
               AND (w.event_ids IS NULL OR $3 = ANY (w.event_ids))",
        )
        .bind::<SqlUuid, _>(event.id)
        .bind::<Text, _>(event.event_type.as_str())
        .bind::<SqlUuid, _>(event.event_id)
        .execute(conn)?;
    }
    Ok(deliveries)
}
