//! The webhook receiver the harness subscribes: on loopback, it checks each delivery's signature
//! and keeps each message once by its `webhook-id`, as a receiver must (deliveries are at least
//! once). It answers a small share of deliveries with 500, so that retries are part of the run.

use catan_api::{WebhookEventType, WebhookMessage};
use catan_kit::webhooks::verify_signature;
use rand::Rng;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use uuid::Uuid;

/// A table's result version, as a `result.posted` message names it.
pub type VersionKey = (Uuid, u32, u32, u32);

#[derive(Default)]
struct Log {
    /// The subscription's signing key, once it is known.
    key: Option<Vec<u8>>,
    /// Every message by its `webhook-id`.
    messages: HashMap<String, WebhookMessage>,
    /// Deliveries received (the same message may come more than once).
    deliveries: usize,
    /// Deliveries answered with 500 on purpose.
    refused: usize,
    /// Deliveries whose signature did not verify, or whose body was not a message.
    bad: usize,
}

pub struct Receiver {
    pub url: String,
    log: Arc<Mutex<Log>>,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    /// Listens on a free loopback port; `failure_rate` of deliveries are answered with 500.
    pub async fn start(failure_rate: f64) -> anyhow::Result<Receiver> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/hooks/catan", listener.local_addr()?);
        let log = Arc::new(Mutex::new(Log::default()));
        let shared = log.clone();
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let log = shared.clone();
                tokio::spawn(answer(socket, log, failure_rate));
            }
        });
        Ok(Receiver { url, log, task })
    }

    /// Verifies deliveries with the subscription's secret from now on.
    pub fn set_key(&self, key: Vec<u8>) {
        lock(&self.log).key = Some(key);
    }

    /// The result versions `result.posted` messages announced, each once.
    pub fn posted_versions(&self) -> HashSet<VersionKey> {
        lock(&self.log)
            .messages
            .values()
            .filter(|m| m.event_type == WebhookEventType::ResultPosted)
            .filter_map(|m| {
                let number = |field: &str| {
                    m.data
                        .get(field)
                        .and_then(serde_json::Value::as_u64)
                        .and_then(|n| u32::try_from(n).ok())
                };
                Some((
                    m.event_id,
                    number("round")?,
                    number("table")?,
                    number("version")?,
                ))
            })
            .collect()
    }

    /// (deliveries received, refused on purpose, bad, distinct messages).
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let log = lock(&self.log);
        (log.deliveries, log.refused, log.bad, log.messages.len())
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock(log: &Mutex<Log>) -> std::sync::MutexGuard<'_, Log> {
    log.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn answer(mut socket: TcpStream, log: Arc<Mutex<Log>>, failure_rate: f64) {
    let read = tokio::time::timeout(Duration::from_secs(10), read_request(&mut socket)).await;
    let Ok(Some((headers, body))) = read else {
        return;
    };
    let refuse = rand::rng().random_bool(failure_rate.clamp(0.0, 1.0));
    {
        let mut log = lock(&log);
        log.deliveries += 1;
        if refuse {
            log.refused += 1;
        } else {
            match message_of(log.key.as_deref(), &headers, &body) {
                Some((id, message)) => {
                    log.messages.entry(id).or_insert(message);
                }
                None => log.bad += 1,
            }
        }
    }
    let status = if refuse {
        "500 Internal Server Error"
    } else {
        "200 OK"
    };
    let reply = format!("HTTP/1.1 {status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    let _ = socket.write_all(reply.as_bytes()).await;
    let _ = socket.shutdown().await;
}

/// The delivery's message and id, if its signature verifies under `key`.
fn message_of(
    key: Option<&[u8]>,
    headers: &HashMap<String, String>,
    body: &[u8],
) -> Option<(String, WebhookMessage)> {
    let id = headers.get("webhook-id")?;
    let timestamp: i64 = headers.get("webhook-timestamp")?.parse().ok()?;
    let signature = headers.get("webhook-signature")?;
    if !verify_signature(key?, id, timestamp, body, signature) {
        return None;
    }
    let message: WebhookMessage = serde_json::from_slice(body).ok()?;
    (message.id.to_string() == *id).then(|| (id.clone(), message))
}

/// One HTTP/1.1 request's headers (names in lower case) and body.
async fn read_request(socket: &mut TcpStream) -> Option<(HashMap<String, String>, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
        if let Some(i) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let headers: HashMap<String, String> = head
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buffer.len() < head_end + length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    Some((headers, buffer[head_end..head_end + length].to_vec()))
}
