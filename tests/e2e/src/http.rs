//! Raw HTTP, for what the typed client cannot say: malformed bodies, chosen headers, other
//! methods, and the headers of an answer.

use crate::TestSuite;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use reqwest::{Method, StatusCode};

/// The media type of every error answer.
pub const PROBLEM_JSON: &str = "application/problem+json";

impl TestSuite {
    /// A request for `path` (from `/`, query included) on the suite's gateway.
    pub fn http(&self, method: Method, path: &str) -> Request {
        let url = format!("{}{path}", self.suite.url());
        Request(self.http_client.request(method, url))
    }

    /// A request as [`TestSuite::http`] makes, sent from the address `from` (a loopback one,
    /// `127.0.0.2` and up, so that one test plays several clients).
    pub fn http_from(&self, from: std::net::Ipv4Addr, method: Method, path: &str) -> Request {
        let client = reqwest::Client::builder()
            .local_address(std::net::IpAddr::V4(from))
            .build()
            .expect("a client bound to a loopback address");
        let url = format!("{}{path}", self.suite.url());
        Request(client.request(method, url))
    }
}

/// A raw request on its way: add a token, headers and a body, then send it.
pub struct Request(reqwest::RequestBuilder);

impl Request {
    /// Sends `token` as the bearer token.
    pub fn token(self, token: &str) -> Self {
        Request(self.0.bearer_auth(token))
    }

    pub fn header(self, name: &str, value: &str) -> Self {
        Request(self.0.header(name, value))
    }

    /// `body` serialized as JSON, with its content type.
    pub fn json(self, body: &impl Serialize) -> Self {
        Request(self.0.json(body))
    }

    /// `text` as is, declared as JSON (whether it is or not).
    pub fn json_text(self, text: impl Into<String>) -> Self {
        Request(
            self.0
                .header("content-type", "application/json")
                .body(text.into()),
        )
    }

    /// `text` as is, with no content type.
    pub fn body(self, text: impl Into<String>) -> Self {
        Request(self.0.body(text.into()))
    }

    /// Sends the request and reads the whole answer.
    pub async fn send(self) -> Answer {
        let response = self.response().await;
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.expect("the answer's body");
        Answer {
            status,
            headers,
            text,
        }
    }

    /// Sends the request and returns the answer unread, for a stream.
    pub async fn response(self) -> reqwest::Response {
        self.0.send().await.expect("an answer")
    }
}

/// An answer read whole.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Answer {
    /// The body, parsed as JSON into `T`.
    #[track_caller]
    pub fn json<T: DeserializeOwned>(&self) -> T {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|e| panic!("{} {}: {e}", self.status, self.text))
    }

    /// The body as a JSON value.
    #[track_caller]
    pub fn body(&self) -> serde_json::Value {
        self.json()
    }

    /// The header `name`, when present and readable.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Whether the answer is a problem document.
    pub fn is_problem(&self) -> bool {
        self.header("content-type") == Some(PROBLEM_JSON)
    }

    /// Asserts the answer is a problem document with `status`.
    #[track_caller]
    pub fn assert_problem(&self, status: StatusCode) {
        assert_eq!(self.status, status, "{}", self.text);
        assert!(self.is_problem(), "{:?}: {}", self.headers, self.text);
    }
}

/// Reads server-sent events from `stream` (what is left over is kept in `buffer`) until one named
/// `name` carries JSON data that satisfies `wanted`; waits 30 s at the most.
pub async fn next_event(
    stream: &mut reqwest::Response,
    buffer: &mut String,
    name: &str,
    wanted: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            let named = event.lines().find_map(|l| l.strip_prefix("event: "));
            let data = event.lines().find_map(|l| l.strip_prefix("data: "));
            if let (Some(named), Some(data)) = (named, data)
                && named == name
            {
                let value: serde_json::Value = serde_json::from_str(data).expect("JSON data");
                if wanted(&value) {
                    return value;
                }
            }
        }
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let chunk = tokio::time::timeout(left, stream.chunk())
            .await
            .expect("an event in time")
            .expect("the stream reads")
            .expect("the stream stays open");
        buffer.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
    }
}
