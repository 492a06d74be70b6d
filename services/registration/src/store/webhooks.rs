//! Webhook subscriptions (with their secrets, which never leave this service) and their
//! deliveries with every try.

use catan_api::{DeliveryAttempt, DeliveryStatus, Webhook, WebhookDelivery, WebhookEventType};
use catan_kit::ApiError;
use catan_kit::db::enum_from_text;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{
    Array, BigInt, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid,
};
use serde::Deserialize;
use uuid::Uuid;

#[derive(QueryableByName)]
struct WebhookRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    url: String,
    #[diesel(sql_type = Array<Text>)]
    event_types: Vec<String>,
    #[diesel(sql_type = Nullable<Array<SqlUuid>>)]
    event_ids: Option<Vec<Uuid>>,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
}

impl WebhookRow {
    fn into_webhook(self) -> Webhook {
        Webhook {
            id: self.id,
            url: self.url,
            event_types: self
                .event_types
                .iter()
                .filter_map(|t| WebhookEventType::parse(t))
                .collect(),
            event_ids: self.event_ids,
            created_at: self.created_at,
        }
    }
}

/// A subscription to store.
pub struct NewWebhook {
    pub url: String,
    pub event_types: Vec<WebhookEventType>,
    pub event_ids: Option<Vec<Uuid>>,
    pub secret: String,
    pub created_by: Uuid,
}

/// Stores the subscription under a new id.
pub fn insert(conn: &mut PgConnection, new: NewWebhook) -> QueryResult<Webhook> {
    let types: Vec<String> = new
        .event_types
        .iter()
        .map(|t| t.as_str().to_string())
        .collect();
    diesel::sql_query(
        "INSERT INTO webhooks (id, url, event_types, event_ids, secret, created_by) VALUES ($1, $2, $3, $4, $5, $6) \
         RETURNING id, url, event_types, event_ids, created_at",
    )
    .bind::<SqlUuid, _>(Uuid::new_v4())
    .bind::<Text, _>(new.url)
    .bind::<Array<Text>, _>(types)
    .bind::<Nullable<Array<SqlUuid>>, _>(new.event_ids)
    .bind::<Text, _>(new.secret)
    .bind::<SqlUuid, _>(new.created_by)
    .get_result::<WebhookRow>(conn)
    .map(WebhookRow::into_webhook)
}

/// The subscription, unless it is deleted.
pub fn find(conn: &mut PgConnection, id: Uuid) -> QueryResult<Option<Webhook>> {
    let row: Option<WebhookRow> = diesel::sql_query(
        "SELECT id, url, event_types, event_ids, created_at FROM webhooks WHERE id = $1 AND deleted_at IS NULL",
    )
    .bind::<SqlUuid, _>(id)
    .get_result(conn)
    .optional()?;
    Ok(row.map(WebhookRow::into_webhook))
}

/// Deletes the subscription and cancels its pending deliveries (call it in a transaction).
pub fn delete(conn: &mut PgConnection, id: Uuid) -> QueryResult<()> {
    diesel::sql_query(
        "UPDATE webhooks SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL",
    )
    .bind::<SqlUuid, _>(id)
    .execute(conn)?;
    diesel::sql_query(
        "UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL \
         WHERE webhook_id = $1 AND status = 'pending'",
    )
    .bind::<SqlUuid, _>(id)
    .execute(conn)?;
    Ok(())
}

#[derive(QueryableByName)]
struct DeliveryRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    message_id: Uuid,
    #[diesel(sql_type = Text)]
    event_type: String,
    #[diesel(sql_type = SqlUuid)]
    event_id: Uuid,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Nullable<Integer>)]
    last_status_code: Option<i32>,
    #[diesel(sql_type = Nullable<Text>)]
    last_error: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    next_attempt_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    delivered_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Jsonb)]
    attempt_log: serde_json::Value,
}

#[derive(Deserialize)]
struct AttemptRow {
    number: u32,
    attempted_at: DateTime<Utc>,
    status_code: Option<u16>,
    error: Option<String>,
    duration_ms: u64,
}

impl DeliveryRow {
    fn into_delivery(self) -> Result<WebhookDelivery, ApiError> {
        let attempt_log: Vec<AttemptRow> =
            serde_json::from_value(self.attempt_log).map_err(ApiError::internal)?;
        Ok(WebhookDelivery {
            id: self.id,
            message_id: self.message_id,
            event_type: WebhookEventType::parse(&self.event_type).ok_or_else(|| {
                ApiError::internal(format!("stored event type {}", self.event_type))
            })?,
            event_id: self.event_id,
            status: enum_from_text::<DeliveryStatus>(&self.status)?,
            attempts: u32::try_from(self.attempts).map_err(ApiError::internal)?,
            last_status_code: self
                .last_status_code
                .map(u16::try_from)
                .transpose()
                .map_err(ApiError::internal)?,
            last_error: self.last_error,
            next_attempt_at: self.next_attempt_at,
            created_at: self.created_at,
            delivered_at: self.delivered_at,
            attempt_log: attempt_log
                .into_iter()
                .map(|a| DeliveryAttempt {
                    number: a.number,
                    attempted_at: a.attempted_at,
                    status_code: a.status_code,
                    error: a.error,
                    duration_ms: a.duration_ms,
                })
                .collect(),
        })
    }
}

/// The subscription's latest `limit` deliveries, newest first, each with its tries.
pub fn deliveries(
    conn: &mut PgConnection,
    webhook_id: Uuid,
    limit: i64,
) -> Result<Vec<WebhookDelivery>, ApiError> {
    let rows: Vec<DeliveryRow> = diesel::sql_query(
        "SELECT d.id, d.message_id, m.event_type, m.event_id, d.status, d.attempts, d.last_status_code, \
                d.last_error, d.next_attempt_at, d.created_at, d.delivered_at, \
                COALESCE((SELECT jsonb_agg(jsonb_build_object('number', a.number, 'attempted_at', a.attempted_at, \
                             'status_code', a.status_code, 'error', a.error, 'duration_ms', a.duration_ms) ORDER BY a.number) \
                          FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::jsonb) AS attempt_log \
         FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id \
         WHERE d.webhook_id = $1 ORDER BY d.created_at DESC, d.id LIMIT $2",
    )
    .bind::<SqlUuid, _>(webhook_id)
    .bind::<BigInt, _>(limit)
    .load(conn)?;
    rows.into_iter().map(DeliveryRow::into_delivery).collect()
}
