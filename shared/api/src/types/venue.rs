//! Venue mode (issue 34): an event checked out to a venue, which runs it without the federation
//! and publishes it back; meanwhile the federation's copy refuses writes.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Checks an event out to a venue.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"venue": "Casal de Gràcia", "public_key": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}))]
pub struct CheckOutEvent {
    /// The venue's name, as the federation's refusals name it (1 to 200 characters).
    #[schema(min_length = 1, max_length = 200)]
    pub venue: String,
    /// The venue's Ed25519 public key (32 bytes, base64url without padding), which its publish
    /// is signed with. The venue keeps the private key: the federation never holds a secret of it.
    pub public_key: String,
}

/// An event checked out to a venue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Checkout {
    pub event_id: Uuid,
    pub venue: String,
    /// The venue's Ed25519 public key, base64url without padding.
    pub public_key: String,
    pub checked_out_at: DateTime<Utc>,
}

/// What an event shows of its checkout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CheckoutSummary {
    pub venue: String,
    pub since: DateTime<Utc>,
}

/// What registration tells pairing and results of a checkout (internal: not in the contract).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckedOutVenue {
    pub venue: String,
}

/// Where registration tells pairing and results that an event is checked out (`PUT`, body
/// [`CheckedOutVenue`]) or released (`DELETE`); `{event_id}` is the event's id.
pub const INTERNAL_CHECKOUT_PATH: &str = "/internal/events/{event_id}/checkout";

impl Checkout {
    pub fn summary(&self) -> CheckoutSummary {
        CheckoutSummary {
            venue: self.venue.clone(),
            since: self.checked_out_at,
        }
    }
}
