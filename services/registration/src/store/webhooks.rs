//! Webhook subscriptions (with their secrets, which never leave this service) and their
//! deliveries with every try.

use crate::schema::registration::{
    webhook_attempts, webhook_deliveries, webhook_messages, webhooks,
};
use catan_api::{DeliveryAttempt, DeliveryStatus, Webhook, WebhookDelivery, WebhookEventType};
use catan_kit::ApiError;
use catan_kit::db::enum_from_text;
use chrono::{DateTime, Utc};
use diesel::dsl::now;
use diesel::prelude::*;
use uuid::Uuid;

#[derive(Queryable, Selectable)]
#[diesel(table_name = webhooks)]
struct WebhookRow {
    id: Uuid,
    url: String,
    /// A SQL array's elements may be NULL; a subscription's never are.
    event_types: Vec<Option<String>>,
    event_ids: Option<Vec<Option<Uuid>>>,
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
                .flatten()
                .filter_map(|t| WebhookEventType::parse(t))
                .collect(),
            event_ids: self
                .event_ids
                .map(|ids| ids.into_iter().flatten().collect()),
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
    let types: Vec<Option<String>> = new
        .event_types
        .iter()
        .map(|t| Some(t.as_str().to_string()))
        .collect();
    let event_ids: Option<Vec<Option<Uuid>>> =
        new.event_ids.map(|ids| ids.into_iter().map(Some).collect());
    diesel::insert_into(webhooks::table)
        .values((
            webhooks::id.eq(Uuid::new_v4()),
            webhooks::url.eq(new.url),
            webhooks::event_types.eq(types),
            webhooks::event_ids.eq(event_ids),
            webhooks::secret.eq(new.secret),
            webhooks::created_by.eq(new.created_by),
        ))
        .returning(WebhookRow::as_returning())
        .get_result(conn)
        .map(WebhookRow::into_webhook)
}

/// The subscription with the API key that created it, unless it is deleted.
pub fn find(conn: &mut PgConnection, id: Uuid) -> QueryResult<Option<(Webhook, Uuid)>> {
    let row: Option<(WebhookRow, Uuid)> = webhooks::table
        .filter(webhooks::id.eq(id))
        .filter(webhooks::deleted_at.is_null())
        .select((WebhookRow::as_select(), webhooks::created_by))
        .get_result(conn)
        .optional()?;
    Ok(row.map(|(row, created_by)| (row.into_webhook(), created_by)))
}

/// The live subscriptions, oldest first, each with the API key that created it: those `created_by`
/// created, or every one.
pub fn live(
    conn: &mut PgConnection,
    created_by: Option<Uuid>,
) -> QueryResult<Vec<(Webhook, Uuid)>> {
    let mut query = webhooks::table
        .filter(webhooks::deleted_at.is_null())
        .order((webhooks::created_at, webhooks::id))
        .select((WebhookRow::as_select(), webhooks::created_by))
        .into_boxed();
    if let Some(key) = created_by {
        query = query.filter(webhooks::created_by.eq(key));
    }
    let rows: Vec<(WebhookRow, Uuid)> = query.load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(row, created_by)| (row.into_webhook(), created_by))
        .collect())
}

/// How many live subscriptions the API key has created, once no other transaction can add one
/// for it before this one ends (call it in the transaction that inserts).
pub fn count_locked(conn: &mut PgConnection, created_by: Uuid) -> QueryResult<i64> {
    diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended($1::text, 0))")
        .bind::<diesel::sql_types::Uuid, _>(created_by)
        .execute(conn)?;
    webhooks::table
        .filter(webhooks::created_by.eq(created_by))
        .filter(webhooks::deleted_at.is_null())
        .count()
        .get_result(conn)
}

/// Deletes the subscription and cancels its pending deliveries (call it in a transaction).
pub fn delete(conn: &mut PgConnection, id: Uuid) -> QueryResult<()> {
    diesel::update(
        webhooks::table
            .filter(webhooks::id.eq(id))
            .filter(webhooks::deleted_at.is_null()),
    )
    .set(webhooks::deleted_at.eq(now))
    .execute(conn)?;
    diesel::update(
        webhook_deliveries::table
            .filter(webhook_deliveries::webhook_id.eq(id))
            .filter(webhook_deliveries::status.eq("pending")),
    )
    .set((
        webhook_deliveries::status.eq("cancelled"),
        webhook_deliveries::next_attempt_at.eq(None::<DateTime<Utc>>),
    ))
    .execute(conn)?;
    Ok(())
}

/// A delivery with its message's type and event, as listed.
#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_deliveries)]
struct DeliveryRow {
    id: Uuid,
    message_id: Uuid,
    #[diesel(select_expression = webhook_messages::event_type)]
    event_type: String,
    #[diesel(select_expression = webhook_messages::event_id)]
    event_id: Uuid,
    status: String,
    attempts: i32,
    last_status_code: Option<i32>,
    last_error: Option<String>,
    next_attempt_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    delivered_at: Option<DateTime<Utc>>,
}

/// One try of a delivery.
#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_attempts)]
struct AttemptRow {
    number: i32,
    attempted_at: DateTime<Utc>,
    status_code: Option<i32>,
    error: Option<String>,
    duration_ms: i64,
}

impl AttemptRow {
    fn into_attempt(self) -> Result<DeliveryAttempt, ApiError> {
        Ok(DeliveryAttempt {
            number: u32::try_from(self.number).map_err(ApiError::internal)?,
            attempted_at: self.attempted_at,
            status_code: self
                .status_code
                .map(u16::try_from)
                .transpose()
                .map_err(ApiError::internal)?,
            error: self.error,
            duration_ms: u64::try_from(self.duration_ms).map_err(ApiError::internal)?,
        })
    }
}

impl DeliveryRow {
    fn into_delivery(self, attempt_log: Vec<DeliveryAttempt>) -> Result<WebhookDelivery, ApiError> {
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
            attempt_log,
        })
    }
}

/// The subscription's latest `limit` deliveries, newest first, each with its tries.
pub fn deliveries(
    conn: &mut PgConnection,
    webhook_id: Uuid,
    limit: i64,
) -> Result<Vec<WebhookDelivery>, ApiError> {
    // One statement, so the deliveries and their tries come from one snapshot: the latest
    // deliveries, each joined to its message and to its tries (if any) in their order.
    let latest = diesel::alias!(webhook_deliveries as latest);
    let latest = latest
        .filter(latest.field(webhook_deliveries::webhook_id).eq(webhook_id))
        .order((
            latest.field(webhook_deliveries::created_at).desc(),
            latest.field(webhook_deliveries::id),
        ))
        .limit(limit)
        .select(latest.field(webhook_deliveries::id));
    let rows: Vec<(DeliveryRow, Option<AttemptRow>)> = webhook_deliveries::table
        .inner_join(webhook_messages::table)
        .left_join(webhook_attempts::table)
        .filter(webhook_deliveries::id.eq_any(latest))
        .order((
            webhook_deliveries::created_at.desc(),
            webhook_deliveries::id,
            webhook_attempts::number,
        ))
        .select((DeliveryRow::as_select(), Option::<AttemptRow>::as_select()))
        .load(conn)?;
    let mut listed: Vec<(DeliveryRow, Vec<DeliveryAttempt>)> = Vec::new();
    for (delivery, attempt) in rows {
        let attempt = attempt.map(AttemptRow::into_attempt).transpose()?;
        match listed.last_mut() {
            Some((last, log)) if last.id == delivery.id => log.extend(attempt),
            _ => listed.push((delivery, attempt.into_iter().collect())),
        }
    }
    listed
        .into_iter()
        .map(|(delivery, log)| delivery.into_delivery(log))
        .collect()
}
