//! The services' events as registration receives them: each stored once, and fanned out to the
//! subscriptions that want it.

use catan_kit::webhooks::OutboxEvent;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Jsonb, Text, Timestamptz, Uuid as SqlUuid};
use uuid::Uuid;

/// Stores the events that a subscription wants and that are not stored yet, with a pending
/// delivery of each to every subscription that wants it, in one statement (a relayed batch is a
/// round trip, not two for each event): how many deliveries were added. An event nobody
/// subscribes to is not kept: nothing would ever read it.
pub fn fan_out(conn: &mut PgConnection, events: &[OutboxEvent]) -> QueryResult<usize> {
    let ids: Vec<Uuid> = events.iter().map(|e| e.id).collect();
    let types: Vec<&str> = events.iter().map(|e| e.event_type.as_str()).collect();
    let event_ids: Vec<Uuid> = events.iter().map(|e| e.event_id).collect();
    let payloads: Vec<&serde_json::Value> = events.iter().map(|e| &e.data).collect();
    let occurred: Vec<DateTime<Utc>> = events.iter().map(|e| e.occurred_at).collect();
    diesel::sql_query(FAN_OUT)
        .bind::<Array<SqlUuid>, _>(&ids)
        .bind::<Array<Text>, _>(&types)
        .bind::<Array<SqlUuid>, _>(&event_ids)
        .bind::<Array<Jsonb>, _>(&payloads)
        .bind::<Array<Timestamptz>, _>(&occurred)
        .execute(conn)
}

/// [`fan_out`]'s statement: the live subscriptions to each event's type, and to every event or
/// to this one; the messages of those wanted and new; a delivery of each to each subscription.
const FAN_OUT: &str = "\
WITH incoming AS (
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::jsonb[], $5::timestamptz[])
        AS e(id, event_type, event_id, payload, occurred_at)
), wanted AS (
    SELECT incoming.id AS message_id, webhooks.id AS webhook_id
    FROM incoming JOIN webhooks
      ON webhooks.deleted_at IS NULL
     AND webhooks.event_types @> ARRAY[incoming.event_type]
     AND (webhooks.event_ids IS NULL OR webhooks.event_ids @> ARRAY[incoming.event_id])
), stored AS (
    INSERT INTO webhook_messages (id, event_type, event_id, payload, occurred_at)
    SELECT id, event_type, event_id, payload, occurred_at FROM incoming
    WHERE id IN (SELECT message_id FROM wanted)
    ON CONFLICT (id) DO NOTHING
    RETURNING id
)
INSERT INTO webhook_deliveries (id, webhook_id, message_id)
SELECT gen_random_uuid(), wanted.webhook_id, wanted.message_id
FROM wanted JOIN stored ON stored.id = wanted.message_id";
