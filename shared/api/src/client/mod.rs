//! A typed client of the v1 API. The services call one another through it, the launcher's demo
//! plays an event through it, and third parties may use it.
//!
//! Every call has a timeout and is retried on transport errors and on 502/503/504 with exponential
//! backoff. Writes (POST, PUT) carry an `Idempotency-Key`, the same on every try of one call, so a
//! retry of a write that did reach the server is answered with its first response and writes
//! nothing twice.
//!
//! A client reads its own writes: it keeps the `Catan-Position` of every write it made (and its
//! copies made by [`ApiClient::with_token`] and [`ApiClient::with_headers`] share what it keeps),
//! and sends it with every call, so that ranking's reads answer only once they include those
//! writes.

mod pairing;
mod ranking;
mod registration;
mod results;
mod seasons;
mod venue;
mod venue_copy;
mod venue_results;
mod venue_rounds;

use crate::consistency::{POSITION_HEADER, Position};
use crate::problem::Problem;
use reqwest::Method;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Items asked for per page when the client reads a whole list: the largest page the API gives.
const PAGE: usize = 1000;

/// What a call answers: the decoded body, or why there is none.
pub type ClientResult<T> = Result<T, ClientError>;

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

/// What a conditional read answers.
#[derive(Debug)]
pub enum Conditional<T> {
    /// The version whose `ETag` the caller sent is still the current one.
    Unchanged,
    /// The current version and its `ETag`.
    Changed { value: T, etag: Option<String> },
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
    /// Sent on every call (see [`ApiClient::with_headers`]).
    headers: SentHeaders,
    /// The writes made so far, which every read waits for (shared by the client's copies).
    position: Arc<Mutex<Position>>,
    /// Where the `Idempotency-Key`s of this copy's writes come from (see
    /// [`ApiClient::with_idempotency_key`]); a fresh key a call without it.
    write_keys: Option<Arc<WriteKeys>>,
}

/// The `Idempotency-Key`s of one submission's writes: `{key}.1`, `{key}.2`, ... in the order they
/// are made, so that the same submission sent again makes the same calls with the same keys.
#[derive(Debug)]
struct WriteKeys {
    key: String,
    made: std::sync::atomic::AtomicU32,
}

impl WriteKeys {
    fn next(&self) -> String {
        let n = self.made.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        format!("{}.{n}", self.key)
    }
}

/// Headers a client sends on every call. Their values may be secrets (a proxy secret): `Debug`
/// shows their names only.
#[derive(Clone, Default)]
struct SentHeaders(Vec<(&'static str, String)>);

impl std::fmt::Debug for SentHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(name, _)| name))
            .finish()
    }
}

impl ApiClient {
    pub fn new(base_url: &str) -> Self {
        Self::with_policy(base_url, RetryPolicy::default())
    }

    #[expect(
        clippy::expect_used,
        reason = "a client fails to build only when the system's TLS cannot start: a start-up failure"
    )]
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
            headers: SentHeaders::default(),
            position: Arc::default(),
            write_keys: None,
        }
    }

    /// The same client, its writes keyed by `key` (1 to 240 visible ASCII characters): the
    /// first write `{key}.1`, the next `{key}.2`, and so on. A form that carries a key made when it
    /// was drawn thus writes once however often it is sent (a double click, a resend after a
    /// network drop): the API answers a repeat with the first answer.
    pub fn with_idempotency_key(&self, key: &str) -> Self {
        ApiClient {
            write_keys: Some(Arc::new(WriteKeys {
                key: key.to_owned(),
                made: std::sync::atomic::AtomicU32::new(0),
            })),
            ..self.clone()
        }
    }

    /// For a submission whose writes depend on what it finds (a name entered as the player
    /// the federation has, else registered first): the same client, its writes keyed apart
    /// under `part`, so that each write keeps its key whichever others are made before it.
    pub fn keyed_apart(&self, part: &str) -> Self {
        match &self.write_keys {
            Some(keys) => self.with_idempotency_key(&format!("{}.{part}", keys.key)),
            None => self.clone(),
        }
    }

    /// The same client, reading from `position` on (the writes a session made elsewhere), and
    /// keeping what it writes from there apart from the copies it was made from.
    pub fn with_position(&self, position: Position) -> Self {
        ApiClient {
            position: Arc::new(Mutex::new(position)),
            ..self.clone()
        }
    }

    /// The position of every write this client and its copies made: what its reads wait for.
    pub fn position(&self) -> Position {
        *self.position.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes in the position a response answered.
    fn wrote(&self, response: &reqwest::Response) {
        let written = response
            .headers()
            .get(POSITION_HEADER)
            .and_then(|v| v.to_str().ok())
            .and_then(|text| Position::parse(text).ok());
        if let Some(written) = written {
            let mut kept = self.position.lock().unwrap_or_else(PoisonError::into_inner);
            *kept = kept.merge(written);
        }
    }

    /// The same client, sending `token` as its bearer token.
    pub fn with_token(&self, token: impl Into<String>) -> Self {
        ApiClient {
            token: Some(token.into()),
            ..self.clone()
        }
    }

    /// The same client, sending `headers` on every call as well: a proxy's word for the client
    /// it calls on behalf of (the web app tells the API its visitor's address this way).
    pub fn with_headers(&self, headers: Vec<(&'static str, String)>) -> Self {
        ApiClient {
            headers: SentHeaders(headers),
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
    ) -> ClientResult<T> {
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
    ) -> ClientResult<(T, Option<String>)> {
        self.call_reading(method, path, body, headers, decode).await
    }

    /// A GET of a body other than JSON, asked for by `accept` (an SVG picture), as text.
    async fn get_text(&self, path: &str, accept: &str) -> ClientResult<String> {
        let headers = [("accept", accept.to_string())];
        self.call_reading::<(), String, _, _>(Method::GET, path, None, &headers, decode_text)
            .await
            .map(|(text, _)| text)
    }

    /// A call whose successful body `read` decodes, retried as the module says.
    async fn call_reading<B, T, Read, Reading>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
        headers: &[(&str, String)],
        read: Read,
    ) -> ClientResult<(T, Option<String>)>
    where
        B: Serialize,
        Read: Fn(reqwest::Response) -> Reading,
        Reading: Future<Output = ClientResult<T>>,
    {
        let attempts = self.retry.attempts.max(1);
        // One key for every try of this call: the server answers a retry with the first response.
        let idempotency_key = (method != Method::GET).then(|| match &self.write_keys {
            Some(keys) => keys.next(),
            None => uuid::Uuid::new_v4().to_string(),
        });
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
            for (name, value) in self.headers.0.iter().chain(headers) {
                request = request.header(*name, value);
            }
            let position = self.position();
            if !position.is_empty() {
                request = request.header(POSITION_HEADER, position.to_string());
            }
            if let Some(body) = body {
                request = request.json(body);
            }
            let outcome = match request.send().await {
                Ok(response) => {
                    self.wrote(&response);
                    let etag = response
                        .headers()
                        .get("etag")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned);
                    read(response).await.map(|value| (value, etag))
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
    pub(crate) async fn all_pages<T: DeserializeOwned>(&self, path: &str) -> ClientResult<Vec<T>> {
        self.all_pages_of(path, |page: Vec<T>| page).await
    }

    /// A list read page by page until a page comes back short, each page a `P` holding its items.
    async fn all_pages_of<P: DeserializeOwned, T>(
        &self,
        path: &str,
        items_of: impl Fn(P) -> Vec<T>,
    ) -> ClientResult<Vec<T>> {
        let mut items = Vec::new();
        loop {
            let page: P = self
                .get(&format!("{path}?limit={PAGE}&offset={}", items.len()))
                .await?;
            let page = items_of(page);
            let full = page.len() == PAGE;
            items.extend(page);
            if !full {
                return Ok(items);
            }
        }
    }

    async fn get<T: DeserializeOwned>(&self, path: &str) -> ClientResult<T> {
        self.call::<(), T>(Method::GET, path, None).await
    }

    /// A read that sends `etag` (if any) in `If-None-Match`, so that the server answers a version
    /// the caller holds with a bodiless `304`.
    async fn get_unless_unchanged<T: DeserializeOwned>(
        &self,
        path: &str,
        etag: Option<&str>,
    ) -> ClientResult<Conditional<T>> {
        let headers: Vec<(&str, String)> = etag
            .map(|etag| ("if-none-match", etag.to_string()))
            .into_iter()
            .collect();
        match self
            .call_with::<(), T>(Method::GET, path, None, &headers)
            .await
        {
            Ok((value, etag)) => Ok(Conditional::Changed { value, etag }),
            // `decode` answers any status but a 2xx as a problem of that status.
            Err(ClientError::Problem { problem }) if problem.status == 304 => {
                Ok(Conditional::Unchanged)
            }
            Err(e) => Err(e),
        }
    }

    async fn post<T: DeserializeOwned>(
        &self,
        path: &str,
        body: &impl Serialize,
    ) -> ClientResult<T> {
        self.call(Method::POST, path, Some(body)).await
    }

    async fn put<T: DeserializeOwned>(&self, path: &str, body: &impl Serialize) -> ClientResult<T> {
        self.call(Method::PUT, path, Some(body)).await
    }
}

fn is_transient(e: &ClientError) -> bool {
    match e {
        ClientError::Transport(_) => true,
        ClientError::Problem { problem } => matches!(problem.status, 502..=504),
        ClientError::Decode(_) => false,
    }
}

async fn decode<T: DeserializeOwned>(response: reqwest::Response) -> ClientResult<T> {
    let (status, bytes) = success_bytes(response).await?;
    serde_json::from_slice(bytes.as_ref())
        .map_err(|e| ClientError::Decode(format!("{status}: {e}")))
}

/// A successful body as UTF-8 text, or the problem [`decode`] would answer.
async fn decode_text(response: reqwest::Response) -> ClientResult<String> {
    let (status, bytes) = success_bytes(response).await?;
    String::from_utf8(bytes.as_ref().to_vec())
        .map_err(|e| ClientError::Decode(format!("{status}: {e}")))
}

/// A successful answer's status and body, or the problem it carries.
async fn success_bytes(
    response: reqwest::Response,
) -> ClientResult<(reqwest::StatusCode, impl AsRef<[u8]> + use<>)> {
    let status = response.status();
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let bytes = response
        .bytes()
        .await
        .map_err(|e| ClientError::Transport(e.to_string()))?;
    if status.is_success() {
        Ok((status, bytes))
    } else {
        Err(problem_of(status, &bytes, retry_after))
    }
}

/// The problem a failed answer carries, its wait (`Retry-After`) in `retry_after_seconds` when
/// the body does not say it.
fn problem_of(status: reqwest::StatusCode, bytes: &[u8], retry_after: Option<u64>) -> ClientError {
    let mut problem = serde_json::from_slice::<Problem>(bytes).unwrap_or_else(|_| Problem {
        kind: "about:blank".into(),
        title: status.canonical_reason().unwrap_or("error").into(),
        status: status.as_u16(),
        detail: String::from_utf8_lossy(bytes).chars().take(500).collect(),
        errors: vec![],
        retry_after_seconds: None,
    });
    problem.retry_after_seconds = problem.retry_after_seconds.or(retry_after);
    ClientError::Problem { problem }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_headers_a_client_sends_show_their_names_never_their_values() {
        let client = ApiClient::new("http://127.0.0.1:9").with_headers(vec![
            ("x-catan-client-addr", "203.0.113.7".into()),
            ("x-catan-proxy-secret", "cps_do_not_show".into()),
        ]);
        let shown = format!("{client:?}");
        assert!(shown.contains("x-catan-proxy-secret"), "{shown}");
        assert!(!shown.contains("cps_do_not_show"), "{shown}");
    }
}
