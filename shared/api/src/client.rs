//! A typed client of the v1 API. The services call one another through it, the launcher's demo
//! plays an event through it, and third parties may use it.
//!
//! Every call has a timeout and is retried on transport errors and on 502/503/504 with exponential
//! backoff. Writes (POST, PUT) carry an `Idempotency-Key`, the same on every try of one call, so a
//! retry of a write that did reach the server is answered with its first response and writes
//! nothing twice.

use crate::problem::Problem;
use crate::types::*;
use reqwest::Method;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::time::Duration;
use uuid::Uuid;

/// Items asked for per page when the client reads a whole list: the largest page the API gives.
const PAGE: usize = 1000;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server answered with a problem document.
    #[error("{} {}: {}", .problem.status, .problem.title, .problem.detail)]
    Problem { problem: Problem },
    /// The server could not be reached or did not answer in time.
    #[error("unreachable: {0}")]
    Transport(String),
    /// The server answered something that is not the contract.
    #[error("unexpected answer: {0}")]
    Decode(String),
}

impl ClientError {
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Problem { problem } => Some(problem.status),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Tries in all, the first included.
    pub attempts: u32,
    pub first_backoff: Duration,
    pub timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 3,
            first_backoff: Duration::from_millis(100),
            timeout: Duration::from_secs(5),
        }
    }
}

#[derive(Debug, Clone)]
pub struct ApiClient {
    base_url: String,
    http: reqwest::Client,
    token: Option<String>,
    retry: RetryPolicy,
}

impl ApiClient {
    pub fn new(base_url: &str) -> Self {
        Self::with_policy(base_url, RetryPolicy::default())
    }

    pub fn with_policy(base_url: &str, retry: RetryPolicy) -> Self {
        let http = reqwest::Client::builder()
            .timeout(retry.timeout)
            .connect_timeout(Duration::from_secs(2))
            .build()
            .expect("http client");
        ApiClient {
            base_url: base_url.trim_end_matches('/').to_string(),
            http,
            token: None,
            retry,
        }
    }

    /// The same client, sending `token` as its bearer token.
    pub fn with_token(&self, token: impl Into<String>) -> Self {
        ApiClient {
            token: Some(token.into()),
            ..self.clone()
        }
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub(crate) async fn call<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
    ) -> Result<T, ClientError> {
        self.call_with(method, path, body, &[])
            .await
            .map(|(value, _)| value)
    }

    /// A call with extra headers, answering the body and the response's ETag.
    async fn call_with<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
        headers: &[(&str, String)],
    ) -> Result<(T, Option<String>), ClientError> {
        let attempts = self.retry.attempts.max(1);
        // One key for every try of this call: the server answers a retry with the first response.
        let idempotency_key = (method != Method::GET).then(|| uuid::Uuid::new_v4().to_string());
        let mut backoff = self.retry.first_backoff;
        let mut last_error = None;
        for attempt in 1..=attempts {
            let mut request = self
                .http
                .request(method.clone(), format!("{}{}", self.base_url, path));
            if let Some(token) = &self.token {
                request = request.bearer_auth(token);
            }
            if let Some(key) = &idempotency_key {
                request = request.header("Idempotency-Key", key);
            }
            if let Some(id) = crate::request_id::current() {
                request = request.header(crate::request_id::HEADER, id);
            }
            for (name, value) in headers {
                request = request.header(*name, value);
            }
            if let Some(body) = body {
                request = request.json(body);
            }
            let outcome = match request.send().await {
                Ok(response) => {
                    let etag = response
                        .headers()
                        .get("etag")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned);
                    decode(response).await.map(|value| (value, etag))
                }
                Err(e) => Err(ClientError::Transport(e.to_string())),
            };
            match outcome {
                Err(e) if attempt < attempts && is_transient(&e) => {
                    tracing::warn!(%path, attempt, error = %e, "call failed; retrying");
                    last_error = Some(e);
                    tokio::time::sleep(backoff).await;
                    backoff *= 3;
                }
                other => return other,
            }
        }
        Err(last_error.unwrap_or_else(|| ClientError::Transport("no attempt made".into())))
    }

    /// A list read page by page until a page comes back short.
    async fn all_pages<T: DeserializeOwned>(&self, path: &str) -> Result<Vec<T>, ClientError> {
        let mut items = Vec::new();
        loop {
            let page: Vec<T> = self
                .get(&format!("{path}?limit={PAGE}&offset={}", items.len()))
                .await?;
            let full = page.len() == PAGE;
            items.extend(page);
            if !full {
                return Ok(items);
            }
        }
    }

    async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, ClientError> {
        self.call::<(), T>(Method::GET, path, None).await
    }

    async fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, ClientError> {
        self.call(Method::POST, path, Some(body)).await
    }

    async fn put<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, ClientError> {
        self.call(Method::PUT, path, Some(body)).await
    }

    // ------------------------------------------------------------ registration

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

    // ------------------------------------------------------------ pairing

    pub async fn draw_round(&self, event_id: Uuid, body: &DrawRound) -> Result<Round, ClientError> {
        self.post(&format!("/v1/events/{event_id}/rounds"), body)
            .await
    }

    /// Sets the event's keep-apart pairs (the director), replacing the earlier ones.
    pub async fn set_keep_apart(
        &self,
        event_id: Uuid,
        body: &KeepApart,
    ) -> Result<KeepApart, ClientError> {
        self.put(&format!("/v1/events/{event_id}/keep-apart"), body)
            .await
    }

    pub async fn round(&self, event_id: Uuid, number: u32) -> Result<Round, ClientError> {
        self.get(&format!("/v1/events/{event_id}/rounds/{number}"))
            .await
    }

    /// Every round of the event (all pages).
    pub async fn rounds(&self, event_id: Uuid) -> Result<Vec<Round>, ClientError> {
        self.all_pages(&format!("/v1/events/{event_id}/rounds"))
            .await
    }

    // ------------------------------------------------------------ results

    pub async fn submit_result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
        body: &SubmitResult,
    ) -> Result<TableResult, ClientError> {
        self.put(
            &format!("/v1/events/{event_id}/rounds/{round}/tables/{table}/result"),
            body,
        )
        .await
    }

    pub async fn result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> Result<TableResult, ClientError> {
        self.get(&format!(
            "/v1/events/{event_id}/rounds/{round}/tables/{table}/result"
        ))
        .await
    }

    /// A table's board as JSON.
    pub async fn board(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> Result<serde_json::Value, ClientError> {
        self.get(&format!(
            "/v1/events/{event_id}/rounds/{round}/tables/{table}/board"
        ))
        .await
    }

    /// A table's result and its ETag, for a correction.
    pub async fn result_with_etag(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> Result<(TableResult, String), ClientError> {
        let path = format!("/v1/events/{event_id}/rounds/{round}/tables/{table}/result");
        let (result, etag) = self
            .call_with::<(), TableResult>(Method::GET, &path, None, &[])
            .await?;
        Ok((result, etag.unwrap_or_default()))
    }

    /// The tournament director's correction of a result whose ETag is `if_match`.
    pub async fn correct_result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
        body: &SubmitResult,
        if_match: &str,
    ) -> Result<TableResult, ClientError> {
        let path = format!("/v1/events/{event_id}/rounds/{round}/tables/{table}/result");
        let headers = [("If-Match", if_match.to_string())];
        self.call_with(Method::PUT, &path, Some(body), &headers)
            .await
            .map(|(result, _)| result)
    }

    pub async fn result_history(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> Result<ResultList, ClientError> {
        self.get(&format!(
            "/v1/events/{event_id}/rounds/{round}/tables/{table}/result/history"
        ))
        .await
    }

    /// Every recorded result of the round (all pages).
    pub async fn round_results(
        &self,
        event_id: Uuid,
        round: u32,
    ) -> Result<ResultList, ClientError> {
        let mut items = Vec::new();
        loop {
            let path = format!(
                "/v1/events/{event_id}/rounds/{round}/results?limit={PAGE}&offset={}",
                items.len()
            );
            let page: ResultList = self.get(&path).await?;
            let full = page.items.len() == PAGE;
            items.extend(page.items);
            if !full {
                return Ok(ResultList { items });
            }
        }
    }

    /// The event's results changed after `after_seq`, oldest change first (the current version of each table).
    pub async fn result_changes(
        &self,
        event_id: Uuid,
        after_seq: i64,
        limit: u32,
    ) -> Result<ResultList, ClientError> {
        self.get(&format!(
            "/v1/events/{event_id}/results?after_seq={after_seq}&limit={limit}"
        ))
        .await
    }

    // ------------------------------------------------------------ ranking

    pub async fn standings(&self, event_id: Uuid) -> Result<Standings, ClientError> {
        self.get(&format!("/v1/events/{event_id}/standings")).await
    }

    pub async fn partner_standings(&self, event_id: Uuid) -> Result<PartnerStandings, ClientError> {
        self.get(&format!("/v1/events/{event_id}/standings")).await
    }

    /// The standings of an event of either format.
    pub async fn any_standings(&self, event_id: Uuid) -> Result<AnyStandings, ClientError> {
        self.get(&format!("/v1/events/{event_id}/standings")).await
    }

    pub async fn placements(&self, event_id: Uuid) -> Result<Placements, ClientError> {
        self.get(&format!("/v1/events/{event_id}/placements")).await
    }
}

fn is_transient(e: &ClientError) -> bool {
    match e {
        ClientError::Transport(_) => true,
        ClientError::Problem { problem } => matches!(problem.status, 502..=504),
        ClientError::Decode(_) => false,
    }
}

async fn decode<T: DeserializeOwned>(response: reqwest::Response) -> Result<T, ClientError> {
    let status = response.status();
    let bytes = response
        .bytes()
        .await
        .map_err(|e| ClientError::Transport(e.to_string()))?;
    if status.is_success() {
        return serde_json::from_slice(&bytes)
            .map_err(|e| ClientError::Decode(format!("{status}: {e}")));
    }
    let problem = serde_json::from_slice::<Problem>(&bytes).unwrap_or_else(|_| Problem {
        kind: "about:blank".into(),
        title: status.canonical_reason().unwrap_or("error").into(),
        status: status.as_u16(),
        detail: String::from_utf8_lossy(&bytes).chars().take(500).collect(),
        errors: vec![],
    });
    Err(ClientError::Problem { problem })
}
