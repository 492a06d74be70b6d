//! Roles, tokens and API keys.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// What an API key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The federation: everything.
    Admin,
    /// A tournament director: runs the events the key names.
    Director,
    /// A table app: posts results for the events the key names.
    Scorer,
    /// A regional organiser: runs the events of the regions the key names (creates them,
    /// registers and enters players, issues their director and scorer keys, regional seasons).
    Organiser,
    /// A player signed in with his PIN for one event (no API key): confirms or disputes the
    /// results of his tables.
    Player,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Player => "player",
            Role::Director => "director",
            Role::Scorer => "scorer",
            Role::Organiser => "organiser",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        [
            Role::Admin,
            Role::Director,
            Role::Scorer,
            Role::Organiser,
            Role::Player,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"api_key": "ck_9Qz4w3WZKc1b2m8e5Jt0aVxY7u6pLr2sNdHfGkQbXyE"}))]
pub struct TokenRequest {
    pub api_key: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"access_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjlqRTQzSTcxIn0.eyJzdWIiOiIuLi4ifQ.c2ln", "token_type": "Bearer", "expires_in": 3600}))]
pub struct TokenResponse {
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// Seconds until the token expires.
    pub expires_in: u64,
}

/// A player signs in for one event with the PIN he was given when entered.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"event_id": "00000000-0000-4000-8000-0000000000e1", "player_id": "00000000-0000-4000-8000-000000000001", "pin": "7KQ4WM9R"}))]
pub struct PlayerTokenRequest {
    pub event_id: Uuid,
    pub player_id: Uuid,
    /// 8 characters of an alphabet without look-alikes (no 0/O, 1/I/L), read in upper case.
    #[schema(pattern = "^[23456789ABCDEFGHJKMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz]{8}$")]
    pub pin: String,
}

/// The role of an API key: any role but `player` (players sign in with their PIN).
// The schema of `CreateApiKey.role`, which is a `Role` the handler checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeyRole {
    Admin,
    Director,
    Scorer,
    Organiser,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"name": "Table app, hall B", "role": "scorer", "event_ids": ["00000000-0000-4000-8000-0000000000e1"]}))]
pub struct CreateApiKey {
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    #[schema(value_type = KeyRole)]
    pub role: Role,
    /// Required for director and scorer keys: the events the key may act on. Not allowed for admin
    /// and organiser keys.
    #[serde(default)]
    pub event_ids: Option<Vec<Uuid>>,
    /// Required for organiser keys (which only the admin issues): the regions the key runs. Not
    /// allowed for the other keys.
    #[serde(default)]
    pub region_ids: Option<Vec<Uuid>>,
}

/// An API key as the admin or an organiser lists it: never its secret.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ListedApiKey {
    pub id: Uuid,
    pub name: String,
    pub role: Role,
    /// The events a director or scorer key may act on; absent for admin and organiser keys.
    pub event_ids: Option<Vec<Uuid>>,
    /// The regions an organiser key runs; absent for the other keys.
    pub region_ids: Option<Vec<Uuid>>,
    pub created_at: chrono::DateTime<chrono::Utc>,
    /// When it was revoked: from then on it signs in no more, and its tokens are refused.
    pub revoked_at: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ApiKeyCreated {
    pub id: Uuid,
    pub name: String,
    pub role: Role,
    pub event_ids: Option<Vec<Uuid>>,
    pub region_ids: Option<Vec<Uuid>>,
    /// The secret, shown once: store it now.
    pub api_key: String,
}

/// Who a token speaks for, as its claims say: what a console shows and offers its holder.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"subject": "00000000-0000-4000-8000-00000000000a", "role": "organiser", "event_ids": null, "region_ids": ["00000000-0000-4000-8000-0000000000a1"], "expires_at": "2026-12-03T15:00:00Z"}))]
pub struct Caller {
    /// The API key's id, or the player's for a player token.
    pub subject: Uuid,
    pub role: Role,
    /// The events a director, scorer or player token is limited to; absent for the others.
    pub event_ids: Option<Vec<Uuid>>,
    /// The regions an organiser token runs; absent for the others.
    pub region_ids: Option<Vec<Uuid>>,
    /// When the token stops being accepted.
    pub expires_at: chrono::DateTime<chrono::Utc>,
}
