//! A small closed-loop load generator: `connections` keep-alive clients, each sending one GET after
//! another for a fixed time and reading every body whole (and unzipping it, if it came gzipped).

use crate::harness::{Latencies, round1, round2};
use anyhow::Context;
use reqwest::StatusCode;
use reqwest::header::{ACCEPT_ENCODING, CONTENT_ENCODING, HeaderMap, HeaderValue, IF_NONE_MATCH};
use serde_json::{Value, json};
use std::io::Read;
use std::time::Duration;
use tokio::time::Instant;

/// What one load run measured.
pub struct LoadRun {
    pub reads: usize,
    pub errors: usize,
    pub seconds: f64,
    pub latencies: Latencies,
    /// The body's length of the first answer, as sent.
    pub body_bytes: usize,
}

impl LoadRun {
    pub fn per_second(&self) -> f64 {
        self.reads as f64 / self.seconds
    }

    pub fn json(&self) -> Value {
        json!({
            "reads": self.reads,
            "errors": self.errors,
            "reads_per_second": round1(self.per_second()),
            "p50_ms": round2(self.latencies.quantile_ms(0.5)),
            "p99_ms": round2(self.latencies.quantile_ms(0.99)),
            "body_bytes": self.body_bytes,
        })
    }
}

/// What one client saw.
struct ClientRun {
    micros: Vec<u64>,
    errors: usize,
    body_bytes: usize,
    /// When its last counted answer arrived.
    last_answer: Option<Instant>,
}

/// What the clients ask: a URL, with these headers, answered with this status.
#[derive(Clone)]
pub struct Target {
    pub url: String,
    pub headers: HeaderMap,
    pub status: StatusCode,
}

impl Target {
    /// A plain GET answered 200.
    pub fn get(url: String) -> Self {
        Target {
            url,
            headers: HeaderMap::new(),
            status: StatusCode::OK,
        }
    }

    /// A conditional GET of the version `etag` names, answered 304 without a body.
    pub fn not_modified(url: String, etag: &str) -> anyhow::Result<Self> {
        let mut target = Target::get(url);
        target
            .headers
            .insert(IF_NONE_MATCH, HeaderValue::from_str(etag)?);
        target.status = StatusCode::NOT_MODIFIED;
        Ok(target)
    }

    /// A GET answered 200 by a client that accepts gzip, as browsers and most HTTP libraries
    /// do; it unzips what comes gzipped, as they do.
    pub fn get_gzip(url: String) -> Self {
        let mut target = Target::get(url);
        target
            .headers
            .insert(ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        target
    }
}

/// Reads an answer's body whole, unzipped if it came gzipped; whether it could be.
async fn read_whole(response: reqwest::Response) -> bool {
    let gzipped = response
        .headers()
        .get(CONTENT_ENCODING)
        .is_some_and(|v| v.as_bytes() == b"gzip");
    match response.bytes().await {
        Ok(body) if gzipped => {
            let mut unzipped = Vec::with_capacity(body.len() * 8);
            flate2::read::GzDecoder::new(&body[..])
                .read_to_end(&mut unzipped)
                .is_ok()
        }
        Ok(_) => true,
        Err(_) => false,
    }
}

/// `connections` clients, each on its own keep-alive connection, GET the target one request after
/// another for `seconds`; every answer's body is read whole. Only answers that arrive within the
/// window count; any other status than the target's is an error. The rate is the answers over
/// the span they took, from the first request to the last answer.
pub async fn run(target: &Target, connections: usize, seconds: u64) -> anyhow::Result<LoadRun> {
    let window = Duration::from_secs(seconds);
    let mut clients = Vec::with_capacity(connections);
    for _ in 0..connections {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .timeout(Duration::from_secs(30))
            .default_headers(target.headers.clone())
            .build()
            .context("an HTTP client")?;
        // Opens the connection (and warms the path) before the window.
        let first = client.get(&target.url).send().await?;
        if first.status() != target.status {
            anyhow::bail!(
                "{} answered {}, not {}",
                target.url,
                first.status(),
                target.status
            );
        }
        let body_bytes = first.bytes().await?.len();
        clients.push((client, body_bytes));
    }
    let start = Instant::now() + Duration::from_millis(100);
    let end = start + window;
    let mut tasks = tokio::task::JoinSet::new();
    for (client, body_bytes) in clients {
        let (url, expected) = (target.url.clone(), target.status);
        tasks.spawn(async move {
            tokio::time::sleep_until(start).await;
            let mut run = ClientRun {
                micros: Vec::new(),
                errors: 0,
                body_bytes,
                last_answer: None,
            };
            loop {
                let sent = Instant::now();
                if sent >= end {
                    break;
                }
                let ok = match client.get(&url).send().await {
                    Ok(response) => {
                        let ok = response.status() == expected;
                        read_whole(response).await && ok
                    }
                    Err(_) => false,
                };
                let answered = Instant::now();
                if answered > end {
                    break;
                }
                if ok {
                    let micros = answered.duration_since(sent).as_micros();
                    run.micros.push(u64::try_from(micros).unwrap_or(u64::MAX));
                } else {
                    run.errors += 1;
                }
                run.last_answer = Some(answered);
            }
            run
        });
    }
    let mut micros = Vec::new();
    let mut errors = 0;
    let mut body_bytes = 0;
    let mut last_answer = start;
    while let Some(run) = tasks.join_next().await {
        let run = run?;
        micros.extend(run.micros);
        errors += run.errors;
        body_bytes = run.body_bytes;
        last_answer = last_answer.max(run.last_answer.unwrap_or(start));
    }
    // The rate is over the span the answers took: from the first request to the last answer.
    let span = last_answer.duration_since(start);
    Ok(LoadRun {
        reads: micros.len(),
        errors,
        seconds: if span.is_zero() {
            window.as_secs_f64()
        } else {
            span.as_secs_f64()
        },
        latencies: Latencies::new(micros),
        body_bytes,
    })
}
