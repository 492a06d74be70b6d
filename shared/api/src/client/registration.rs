//! The registration service's calls: tokens, keys, regions, players, events, entries, webhooks.

use super::{ApiClient, ClientError, ClientResult};
use crate::types::*;
use uuid::Uuid;

impl ApiClient {
    pub async fn token(&self, api_key: &str) -> ClientResult<TokenResponse> {
        self.post(
            "/v1/auth/token",
            &TokenRequest {
                api_key: api_key.to_string(),
            },
        )
        .await
    }

    /// Who this client's token speaks for.
    pub async fn me(&self) -> ClientResult<Caller> {
        self.get("/v1/auth/me").await
    }

    /// A player's token for one event, from his PIN.
    pub async fn player_token(
        &self,
        event_id: Uuid,
        player_id: Uuid,
        pin: &str,
    ) -> ClientResult<TokenResponse> {
        let body = PlayerTokenRequest {
            event_id,
            player_id,
            pin: pin.to_string(),
        };
        self.post("/v1/auth/player-token", &body).await
    }

    pub async fn create_api_key(&self, body: &CreateApiKey) -> ClientResult<ApiKeyCreated> {
        self.post("/v1/api-keys", body).await
    }

    /// A page of the keys the caller may list (the admin every key, an organiser those acting
    /// on its regions' events), the oldest first.
    pub async fn api_keys(&self, limit: u32, offset: u32) -> ClientResult<Vec<ListedApiKey>> {
        let path = format!("/v1/api-keys?limit={limit}&offset={offset}");
        self.call::<(), _>(reqwest::Method::GET, &path, None).await
    }

    pub async fn create_region(&self, name: &str) -> ClientResult<Region> {
        self.post(
            "/v1/regions",
            &CreateRegion {
                name: name.to_string(),
            },
        )
        .await
    }

    pub async fn create_player(&self, body: &CreatePlayer) -> ClientResult<Player> {
        self.post("/v1/players", body).await
    }

    pub async fn create_event(&self, body: &CreateEvent) -> ClientResult<Event> {
        self.post("/v1/events", body).await
    }

    /// Changes an event's name or venue (the admin, or the organiser of its region).
    pub async fn edit_event(&self, event_id: Uuid, body: &EditEvent) -> ClientResult<Event> {
        self.call(
            reqwest::Method::PATCH,
            &format!("/v1/events/{event_id}"),
            Some(body),
        )
        .await
    }

    /// Every region (all pages).
    pub async fn regions(&self) -> ClientResult<Vec<Region>> {
        self.all_pages("/v1/regions").await
    }

    pub async fn region(&self, region_id: Uuid) -> ClientResult<Region> {
        self.get(&format!("/v1/regions/{region_id}")).await
    }

    pub async fn player(&self, player_id: Uuid) -> ClientResult<Player> {
        self.get(&format!("/v1/players/{player_id}")).await
    }

    /// The first page of the players whose name contains `name` (case and accents aside), of
    /// `region_id` if given.
    pub async fn search_players(
        &self,
        name: &str,
        region_id: Option<Uuid>,
    ) -> ClientResult<Vec<Player>> {
        let mut query =
            reqwest::Url::parse("http://query/").map_err(|e| ClientError::Decode(e.to_string()))?;
        query.query_pairs_mut().append_pair("q", name);
        if let Some(region_id) = region_id {
            query
                .query_pairs_mut()
                .append_pair("region_id", &region_id.to_string());
        }
        let pairs = query.query().unwrap_or_default();
        self.get(&format!("/v1/players?{pairs}")).await
    }

    /// A page of the events `search` finds (by first day, then name), `limit` from `offset`.
    pub async fn events(
        &self,
        search: &EventSearch,
        limit: u32,
        offset: u32,
    ) -> ClientResult<Vec<Event>> {
        let mut query = query_pairs(search)?;
        query
            .query_pairs_mut()
            .append_pair("limit", &limit.to_string())
            .append_pair("offset", &offset.to_string());
        let pairs = query.query().unwrap_or_default();
        self.get(&format!("/v1/events?{pairs}")).await
    }

    pub async fn event(&self, event_id: Uuid) -> ClientResult<Event> {
        self.get(&format!("/v1/events/{event_id}")).await
    }

    /// Merges the duplicate `player_id` into the surviving player `into` (the admin, or an
    /// organiser of both players' region): the duplicate as it is now.
    pub async fn merge_player(&self, player_id: Uuid, into: Uuid) -> ClientResult<Player> {
        self.post(
            &format!("/v1/players/{player_id}/merge"),
            &MergePlayer { into },
        )
        .await
    }

    /// A page of the pairs of players who may be one person (an admin's or organiser's), of
    /// `region_id` or of every region the key may read, `limit` from `offset`.
    pub async fn merge_candidates(
        &self,
        region_id: Option<Uuid>,
        limit: u32,
        offset: u32,
    ) -> ClientResult<Vec<MergeCandidate>> {
        let mut query =
            reqwest::Url::parse("http://query/").map_err(|e| ClientError::Decode(e.to_string()))?;
        if let Some(region_id) = region_id {
            query
                .query_pairs_mut()
                .append_pair("region_id", &region_id.to_string());
        }
        query
            .query_pairs_mut()
            .append_pair("limit", &limit.to_string())
            .append_pair("offset", &offset.to_string());
        let pairs = query.query().unwrap_or_default();
        self.get(&format!("/v1/players/merge-candidates?{pairs}"))
            .await
    }

    /// Registration's changes after the cursor `after` (empty: from the beginning), at most
    /// `limit` of them: each event, entry and player changed, once, as it is now.
    pub async fn registration_changes(
        &self,
        after: &str,
        limit: u32,
    ) -> ClientResult<RegistrationChanges> {
        let mut query =
            reqwest::Url::parse("http://query/").map_err(|e| ClientError::Decode(e.to_string()))?;
        query
            .query_pairs_mut()
            .append_pair("after", after)
            .append_pair("limit", &limit.to_string());
        let pairs = query.query().unwrap_or_default();
        self.get(&format!("/v1/feeds/registration?{pairs}")).await
    }

    pub async fn create_entry(&self, event_id: Uuid, body: &CreateEntry) -> ClientResult<Entry> {
        self.post(&format!("/v1/events/{event_id}/entries"), body)
            .await
    }

    /// Every entry of the event (all pages).
    pub async fn entries(&self, event_id: Uuid) -> ClientResult<Vec<Entry>> {
        self.all_pages(&format!("/v1/events/{event_id}/entries"))
            .await
    }

    /// A new PIN for the player in the event (its director or the admin); the old one stops
    /// working.
    pub async fn reissue_pin(&self, event_id: Uuid, player_id: Uuid) -> ClientResult<PlayerPin> {
        self.post(
            &format!("/v1/events/{event_id}/players/{player_id}/pin"),
            &serde_json::json!({}),
        )
        .await
    }

    /// A new PIN for every player entered in the event (its director, organiser or the admin),
    /// in the order the entries were made; every old one stops working.
    pub async fn reissue_all_pins(&self, event_id: Uuid) -> ClientResult<Vec<PlayerPin>> {
        self.post(
            &format!("/v1/events/{event_id}/pins"),
            &serde_json::json!({}),
        )
        .await
    }

    /// Takes a dropped or excluded entry back into the event, before the next round is drawn.
    pub async fn reinstate_entry(&self, event_id: Uuid, entry_id: Uuid) -> ClientResult<Entry> {
        self.post(
            &format!("/v1/events/{event_id}/entries/{entry_id}/reinstate"),
            &serde_json::json!({}),
        )
        .await
    }

    /// Corrects a player's name (the admin, his region's organiser, or a director of an event he
    /// is entered in).
    pub async fn rename_player(&self, player_id: Uuid, name: &str) -> ClientResult<Player> {
        let body = RenamePlayer {
            name: name.to_owned(),
        };
        self.call(
            reqwest::Method::PATCH,
            &format!("/v1/players/{player_id}"),
            Some(&body),
        )
        .await
    }

    /// Revokes an API key: it signs in no more, and its tokens are refused.
    pub async fn revoke_api_key(&self, key_id: Uuid) -> ClientResult<()> {
        let path = format!("/v1/api-keys/{key_id}");
        self.call_reading::<(), _, _, _>(
            reqwest::Method::DELETE,
            &path,
            None,
            &[],
            super::decode_text,
        )
        .await
        .map(|_| ())
    }

    pub async fn drop_entry(
        &self,
        event_id: Uuid,
        entry_id: Uuid,
        body: &DropEntry,
    ) -> ClientResult<Entry> {
        self.post(
            &format!("/v1/events/{event_id}/entries/{entry_id}/drop"),
            body,
        )
        .await
    }
}

/// The fields of `query` (a flat struct) as the pairs of a query string, those absent left out.
fn query_pairs(query: &impl serde::Serialize) -> ClientResult<reqwest::Url> {
    let fields = serde_json::to_value(query).map_err(|e| ClientError::Decode(e.to_string()))?;
    let mut url =
        reqwest::Url::parse("http://query/").map_err(|e| ClientError::Decode(e.to_string()))?;
    for (name, value) in fields.as_object().into_iter().flatten() {
        match value {
            serde_json::Value::Null => {}
            serde_json::Value::String(text) => {
                url.query_pairs_mut().append_pair(name, text);
            }
            other => {
                url.query_pairs_mut().append_pair(name, &other.to_string());
            }
        }
    }
    Ok(url)
}
