//! Webhooks of the v1 API: subscriptions, the events they receive, and their deliveries.

use crate::client::{ApiClient, ClientError};
use chrono::{DateTime, Utc};
use reqwest::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// What happened, as a webhook names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub enum WebhookEventType {
    /// A round was drawn: `data` is the round.
    #[serde(rename = "round.drawn")]
    RoundDrawn,
    /// A table's result was recorded or corrected: `data` is the result.
    #[serde(rename = "result.posted")]
    ResultPosted,
    /// A table's result was confirmed.
    #[serde(rename = "result.confirmed")]
    ResultConfirmed,
    /// A table's result was disputed.
    #[serde(rename = "result.disputed")]
    ResultDisputed,
    /// A qualifying or Swiss result changed the standings: read them again.
    #[serde(rename = "standings.updated")]
    StandingsUpdated,
    /// The event's placements are complete (the final has a result, or the last round of an
    /// event without a playoff): `data` is the placements. Sent once an event.
    #[serde(rename = "event.finished")]
    EventFinished,
    /// The director started a round's clock: `data` is a `RoundClockNotice`.
    #[serde(rename = "round.started")]
    RoundStarted,
    /// A round's own time will be up at `data.announces` (a `RoundClockNotice`), sent
    /// `CATAN_ROUND_ENDING_MINUTES` before it (5); again if the end moves.
    #[serde(rename = "round.ending")]
    RoundEnding,
    /// Play in a round stopped at `data.announces` (a `RoundClockNotice`): every table's time is
    /// up, or the director ended the round.
    #[serde(rename = "round.ended")]
    RoundEnded,
}

impl WebhookEventType {
    pub const ALL: [WebhookEventType; 9] = [
        WebhookEventType::RoundDrawn,
        WebhookEventType::ResultPosted,
        WebhookEventType::ResultConfirmed,
        WebhookEventType::ResultDisputed,
        WebhookEventType::StandingsUpdated,
        WebhookEventType::EventFinished,
        WebhookEventType::RoundStarted,
        WebhookEventType::RoundEnding,
        WebhookEventType::RoundEnded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WebhookEventType::RoundDrawn => "round.drawn",
            WebhookEventType::ResultPosted => "result.posted",
            WebhookEventType::ResultConfirmed => "result.confirmed",
            WebhookEventType::ResultDisputed => "result.disputed",
            WebhookEventType::StandingsUpdated => "standings.updated",
            WebhookEventType::EventFinished => "event.finished",
            WebhookEventType::RoundStarted => "round.started",
            WebhookEventType::RoundEnding => "round.ending",
            WebhookEventType::RoundEnded => "round.ended",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == text)
    }
}

/// A subscription to create. Only http and https URLs; loopback and private addresses are
/// refused unless the deployment allows them.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"url": "https://example.org/catan-hook", "event_types": ["result.posted", "standings.updated"], "event_ids": ["00000000-0000-4000-8000-0000000000e1"]}))]
pub struct CreateWebhook {
    #[schema(
        example = "https://dashboard.example.org/hooks/catan",
        max_length = 2000
    )]
    pub url: String,
    /// At least one.
    #[schema(min_items = 1)]
    pub event_types: Vec<WebhookEventType>,
    /// Only these events (tournaments); absent for every event (admins only). A director's
    /// subscription must name events of its key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_items = 1)]
    pub event_ids: Option<Vec<Uuid>>,
}

/// A subscription.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Webhook {
    pub id: Uuid,
    pub url: String,
    pub event_types: Vec<WebhookEventType>,
    pub event_ids: Option<Vec<Uuid>>,
    pub created_at: DateTime<Utc>,
}

/// A new subscription with its signing secret, shown once: store it now.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WebhookCreated {
    pub id: Uuid,
    pub url: String,
    pub event_types: Vec<WebhookEventType>,
    pub event_ids: Option<Vec<Uuid>>,
    pub created_at: DateTime<Utc>,
    /// `whsec_` and the base64 of the key: each delivery carries `webhook-signature: v1,<base64
    /// HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` under the decoded key.
    #[schema(example = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")]
    pub secret: String,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Not yet answered with 2xx; tried again at `next_attempt_at`.
    Pending,
    /// Answered with 2xx.
    Delivered,
    /// Every attempt failed: a dead letter, tried again only if the admin replays it.
    Failed,
    /// The subscription was deleted before it was delivered.
    Cancelled,
}

/// One try of a delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DeliveryAttempt {
    /// 1 for the first try.
    pub number: u32,
    pub attempted_at: DateTime<Utc>,
    /// The receiver's HTTP status, if it answered.
    pub status_code: Option<u16>,
    /// Why the try failed: a status that is not 2xx, a timeout, a refused connection.
    pub error: Option<String>,
    pub duration_ms: u64,
}

/// One event sent (or to be sent) to one subscription.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WebhookDelivery {
    pub id: Uuid,
    /// The `webhook-id` header and the body's `id`: the same on every try.
    pub message_id: Uuid,
    pub event_type: WebhookEventType,
    pub event_id: Uuid,
    pub status: DeliveryStatus,
    /// Tries made so far (since the admin last replayed it, if it was a dead letter).
    pub attempts: u32,
    pub last_status_code: Option<u16>,
    pub last_error: Option<String>,
    /// When the next try is due; absent once delivered, failed or cancelled.
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    /// Every try, oldest first.
    pub attempt_log: Vec<DeliveryAttempt>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WebhookDeliveryList {
    /// Newest first.
    pub items: Vec<WebhookDelivery>,
}

/// The body of every delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WebhookMessage {
    /// The same as the `webhook-id` header: receivers deduplicate by it.
    pub id: Uuid,
    #[serde(rename = "type")]
    pub event_type: WebhookEventType,
    /// When it happened.
    pub timestamp: DateTime<Utc>,
    /// The event (tournament) it happened in.
    pub event_id: Uuid,
    /// The round, the result, `{event_id, round, table}` for `standings.updated`, or the
    /// placements for `event.finished`.
    pub data: serde_json::Value,
}

impl ApiClient {
    pub async fn create_webhook(
        &self,
        body: &CreateWebhook,
    ) -> Result<WebhookCreated, ClientError> {
        self.call(Method::POST, "/v1/webhooks", Some(body)).await
    }

    /// Every subscription the caller may see (its own; the admin's, all), never their secrets.
    pub async fn webhooks(&self) -> Result<Vec<Webhook>, ClientError> {
        self.all_pages("/v1/webhooks").await
    }

    pub async fn webhook(&self, id: Uuid) -> Result<Webhook, ClientError> {
        self.call::<(), _>(Method::GET, &format!("/v1/webhooks/{id}"), None)
            .await
    }

    pub async fn webhook_deliveries(&self, id: Uuid) -> Result<WebhookDeliveryList, ClientError> {
        self.call::<(), _>(Method::GET, &format!("/v1/webhooks/{id}/deliveries"), None)
            .await
    }
}
