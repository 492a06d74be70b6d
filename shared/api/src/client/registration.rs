//! The registration service's calls: tokens, keys, regions, players, events, entries, webhooks.

use super::{ApiClient, ClientError};
use crate::types::*;
use uuid::Uuid;

impl ApiClient {
    pub async fn token(&self, api_key: &str) -> Result<TokenResponse, ClientError> {
        self.post(
            "/v1/auth/token",
            &TokenRequest {
                api_key: api_key.to_string(),
            },
        )
        .await
    }

    /// A player's token for one event, from his PIN.
    pub async fn player_token(
        &self,
        event_id: Uuid,
        player_id: Uuid,
        pin: &str,
    ) -> Result<TokenResponse, ClientError> {
        let body = PlayerTokenRequest {
            event_id,
            player_id,
            pin: pin.to_string(),
        };
        self.post("/v1/auth/player-token", &body).await
    }

    /// The signed-in player confirms a table's current result.
    pub async fn confirm_result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> Result<TableResult, ClientError> {
        self.post(
            &format!("/v1/events/{event_id}/rounds/{round}/tables/{table}/result/confirm"),
            &serde_json::json!({}),
        )
        .await
    }

    /// The signed-in player disputes a table's current result.
    pub async fn dispute_result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
        reason: &str,
    ) -> Result<TableResult, ClientError> {
        let body = DisputeResult {
            reason: reason.to_string(),
        };
        self.post(
            &format!("/v1/events/{event_id}/rounds/{round}/tables/{table}/result/dispute"),
            &body,
        )
        .await
    }

    pub async fn create_api_key(&self, body: &CreateApiKey) -> Result<ApiKeyCreated, ClientError> {
        self.post("/v1/api-keys", body).await
    }

    pub async fn create_region(&self, name: &str) -> Result<Region, ClientError> {
        self.post(
            "/v1/regions",
            &CreateRegion {
                name: name.to_string(),
            },
        )
        .await
    }

    pub async fn create_player(&self, body: &CreatePlayer) -> Result<Player, ClientError> {
        self.post("/v1/players", body).await
    }

    pub async fn create_event(&self, body: &CreateEvent) -> Result<Event, ClientError> {
        self.post("/v1/events", body).await
    }

    pub async fn event(&self, event_id: Uuid) -> Result<Event, ClientError> {
        self.get(&format!("/v1/events/{event_id}")).await
    }

    pub async fn create_entry(
        &self,
        event_id: Uuid,
        body: &CreateEntry,
    ) -> Result<Entry, ClientError> {
        self.post(&format!("/v1/events/{event_id}/entries"), body)
            .await
    }

    /// Every entry of the event (all pages).
    pub async fn entries(&self, event_id: Uuid) -> Result<Vec<Entry>, ClientError> {
        self.all_pages(&format!("/v1/events/{event_id}/entries"))
            .await
    }

    pub async fn drop_entry(
        &self,
        event_id: Uuid,
        entry_id: Uuid,
        body: &DropEntry,
    ) -> Result<Entry, ClientError> {
        self.post(
            &format!("/v1/events/{event_id}/entries/{entry_id}/drop"),
            body,
        )
        .await
    }
}
