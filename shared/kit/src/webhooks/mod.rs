//! Webhooks: the outbox every producing service writes in its own transactions, the relay that
//! hands the outbox to registration, and what registration needs to sign and send deliveries.
//!
//! Design: subscriptions and their secrets live in registration only. A producing service
//! (pairing, results) calls [`enqueue`] inside the transaction of its change, so the event exists
//! exactly when the change does. Its [`spawn_relay`] task claims due outbox rows with
//! `FOR UPDATE SKIP LOCKED` (replicas share the work), posts them to registration's internal
//! inbox (`POST /internal/webhook-events`, authenticated by `CATAN_INTERNAL_KEY`, not routed by
//! the gateway) in calls of at most [`RELAY_BATCH_BYTES`], and deletes them once registration has
//! stored them; a call refused for its body is halved until the event at fault is alone, so no
//! event holds back the others. A failure reschedules the events with backoff, so they survive
//! restarts of either side; after `CATAN_WEBHOOKS_RELAY_MAX_ATTEMPTS` failures an event is a dead
//! letter, kept but no longer tried, which registration lists and replays for the admin through
//! the service's [`internal_routes`]. Registration fans each event out to the matching
//! subscriptions and alone signs and delivers them, with bounded retries.

mod batches;
mod internal;
mod relay;
mod signing;
mod urls;

pub use crate::settings::WebhookSettings;
pub use batches::{Answer, batches, refuses_the_body, send_halving};
pub use internal::{internal_routes, require_internal_key};
pub use relay::{RELAY_BATCH_BYTES, spawn_relay};
pub use signing::{new_secret, secret_key, signature, verify_signature};
pub use urls::{UrlRefusal, VettedUrl, check_url, is_private, vet_url};

use crate::ApiError;
use crate::schema::outbox;
use catan_api::WebhookEventType;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use uuid::Uuid;

/// The path of registration's internal inbox.
pub const INBOX_PATH: &str = "/internal/webhook-events";
/// The largest batch registration's inbox takes: more than the relay ever sends in one call
/// ([`RELAY_BATCH_BYTES`]), so only an event larger than this alone is refused.
pub const INBOX_BODY_LIMIT_BYTES: usize = 8 * 1024 * 1024;

/// An event as it travels from a service's outbox to registration's inbox.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutboxEvent {
    pub id: Uuid,
    pub event_type: WebhookEventType,
    pub event_id: Uuid,
    pub occurred_at: DateTime<Utc>,
    pub data: serde_json::Value,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InboxBatch {
    pub events: Vec<OutboxEvent>,
}

/// Records that `event_type` happened in event `event_id`, with `data` as the webhook's `data`.
/// Call it inside the transaction of the change: the event is sent if and only if it commits.
pub fn enqueue(
    conn: &mut PgConnection,
    event_type: WebhookEventType,
    event_id: Uuid,
    data: &impl Serialize,
) -> Result<(), ApiError> {
    let data = serde_json::to_value(data).map_err(ApiError::internal)?;
    diesel::insert_into(outbox::table)
        .values((
            outbox::id.eq(Uuid::new_v4()),
            outbox::event_type.eq(event_type.as_str()),
            outbox::event_id.eq(event_id),
            outbox::payload.eq(data),
        ))
        .execute(conn)?;
    Ok(())
}

/// A duration as a Postgres interval.
pub fn pg_interval(d: Duration) -> diesel::pg::data_types::PgInterval {
    diesel::pg::data_types::PgInterval::from_microseconds(
        i64::try_from(d.as_micros()).unwrap_or(i64::MAX),
    )
}

/// At most `max` characters of `text`.
pub fn truncate(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}
