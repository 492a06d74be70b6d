//! Dead letters: webhook events that stopped moving. Either a service's relay could not hand an
//! event to registration within its tries (kind `relay`), or a delivery to a subscription failed
//! its last try (kind `delivery`). The admin lists them and replays them.
//!
//! The services with an outbox (pairing, results) serve their own dead relay events on internal
//! routes, authenticated by `CATAN_INTERNAL_KEY` and never routed by the gateway; registration
//! reads them through the calls below and answers for all of them.

use crate::client::{ApiClient, ClientResult};
use crate::webhooks::WebhookEventType;
use chrono::{DateTime, Utc};
use reqwest::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The path of a service's dead relay events.
pub const INTERNAL_DEAD_LETTERS_PATH: &str = "/internal/dead-letters";
/// The largest page of the internal route (the largest page of every list).
const INTERNAL_PAGE: usize = 1000;

/// Where an event stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeadLetterKind {
    /// The service named by `service` could not hand the event to registration.
    Relay,
    /// The subscription named by `webhook_id` never answered the delivery with 2xx.
    Delivery,
}

/// An event that stopped moving, or (once replayed) is due again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "id": "00000000-0000-4000-8000-0000000000d1", "kind": "relay", "service": "results",
    "webhook_id": null, "event_type": "result.posted",
    "message_id": "00000000-0000-4000-8000-0000000000d1",
    "event_id": "00000000-0000-4000-8000-0000000000e1", "attempts": 60,
    "last_error": "error sending request: connection refused",
    "dead_at": "2027-03-06T10:15:00Z", "next_attempt_at": null}))]
pub struct DeadLetter {
    /// What to replay it by: the outbox event's id (`relay`) or the delivery's (`delivery`).
    pub id: Uuid,
    pub kind: DeadLetterKind,
    /// The service whose outbox holds it (`relay` only).
    #[schema(example = "results")]
    pub service: Option<String>,
    /// The subscription it is for (`delivery` only).
    pub webhook_id: Option<Uuid>,
    pub event_type: WebhookEventType,
    /// The webhook message's id (its `webhook-id` header).
    pub message_id: Uuid,
    /// The event (tournament) it happened in.
    pub event_id: Uuid,
    /// Tries made; 0 once replayed.
    pub attempts: u32,
    /// Why the last try failed.
    pub last_error: Option<String>,
    /// When it stopped being tried; absent once replayed.
    pub dead_at: Option<DateTime<Utc>>,
    /// When it is tried again: absent while it is dead.
    pub next_attempt_at: Option<DateTime<Utc>>,
}

/// A page of dead letters, the latest to die first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DeadLetterList {
    pub items: Vec<DeadLetter>,
    /// The services whose dead letters could not be read just now: the page lacks theirs.
    #[schema(example = json!([]))]
    pub unavailable: Vec<String>,
}

impl ApiClient {
    /// The admin's page of dead letters of every kind.
    pub async fn dead_letters(&self, limit: u32, offset: u32) -> ClientResult<DeadLetterList> {
        let path = format!("/v1/admin/dead-letters?limit={limit}&offset={offset}");
        self.call::<(), _>(Method::GET, &path, None).await
    }

    /// Makes a dead letter due again (the admin), with its tries counted from 0.
    pub async fn replay_dead_letter(&self, id: Uuid) -> ClientResult<DeadLetter> {
        self.call::<(), _>(
            Method::POST,
            &format!("/v1/admin/dead-letters/{id}/replay"),
            None,
        )
        .await
    }

    /// A service's dead relay events, the latest first: its first `at_most` (a client holding
    /// the internal key).
    pub async fn internal_dead_letters(&self, at_most: usize) -> ClientResult<Vec<DeadLetter>> {
        let mut items: Vec<DeadLetter> = Vec::new();
        while items.len() < at_most {
            let limit = (at_most - items.len()).min(INTERNAL_PAGE);
            let path = format!(
                "{INTERNAL_DEAD_LETTERS_PATH}?limit={limit}&offset={}",
                items.len()
            );
            let page: Vec<DeadLetter> = self.call::<(), _>(Method::GET, &path, None).await?;
            let short = page.len() < limit;
            items.extend(page);
            if short {
                break;
            }
        }
        Ok(items)
    }

    /// Makes one of a service's dead relay events due again (a client holding the internal key).
    pub async fn internal_replay_dead_letter(&self, id: Uuid) -> ClientResult<DeadLetter> {
        self.call::<(), _>(
            Method::POST,
            &format!("{INTERNAL_DEAD_LETTERS_PATH}/{id}/replay"),
            None,
        )
        .await
    }
}
