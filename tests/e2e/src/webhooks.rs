//! A webhook receiver on this machine, and the checks every delivery must pass.

use crate::{EventFixture, TestSuite};
use catan_api::{
    CreateWebhook, DeliveryStatus, WebhookCreated, WebhookDelivery, WebhookEventType,
    WebhookMessage,
};
use catan_kit::webhooks::{secret_key, verify_signature};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use uuid::Uuid;

/// A request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

/// A webhook receiver on 127.0.0.1: answers the first `failures` requests with 500, then 200.
pub struct Receiver {
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
    /// Told of every request as it is logged.
    arrived: Arc<tokio::sync::Notify>,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    pub async fn start(failures: usize) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!(
            "http://{}/hooks/catan",
            listener.local_addr().expect("addr")
        );
        let received = Arc::new(Mutex::new(Vec::new()));
        let arrived = Arc::new(tokio::sync::Notify::new());
        let seen = Arc::new(AtomicUsize::new(0));
        let log = received.clone();
        let told = arrived.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let log = log.clone();
                let seen = seen.clone();
                let told = told.clone();
                tokio::spawn(async move {
                    let Some(request) = read_request(&mut socket).await else {
                        return;
                    };
                    log.lock().unwrap().push(request);
                    told.notify_waiters();
                    let status = if seen.fetch_add(1, Ordering::SeqCst) < failures {
                        "500 Internal Server Error"
                    } else {
                        "200 OK"
                    };
                    let answer = format!(
                        "HTTP/1.1 {status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    );
                    let _ = socket.write_all(answer.as_bytes()).await;
                });
            }
        });
        Receiver {
            url,
            received,
            arrived,
            task,
        }
    }

    /// Its first `count` requests, once they have come (for at most 30 s).
    pub async fn first(&self, count: usize) -> Vec<Received> {
        let wait = async {
            loop {
                let arrived = self.arrived.notified();
                let messages = self.messages();
                if messages.len() >= count {
                    return messages;
                }
                arrived.await;
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(30), wait)
            .await
            .unwrap_or_else(|_| panic!("{count} requests did not come"))
    }

    /// What it received so far, in order.
    pub fn messages(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<Received> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
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
    Some(Received {
        headers,
        body: buffer[head_end..head_end + length].to_vec(),
    })
}

/// Checks the delivery's Standard Webhooks signature and reads its body.
pub fn verified(secret: &str, request: &Received) -> WebhookMessage {
    let id = &request.headers["webhook-id"];
    let timestamp: i64 = request.headers["webhook-timestamp"]
        .parse()
        .expect("a Unix timestamp");
    assert!(
        (chrono::Utc::now().timestamp() - timestamp).abs() < 60,
        "a fresh timestamp"
    );
    let key = secret_key(secret).expect("a whsec_ secret");
    let signature = &request.headers["webhook-signature"];
    assert!(
        verify_signature(&key, id, timestamp, &request.body, signature),
        "the signature verifies"
    );
    assert!(!verify_signature(
        b"another key",
        id,
        timestamp,
        &request.body,
        signature
    ));
    let message: WebhookMessage = serde_json::from_slice(&request.body).expect("a webhook message");
    assert_eq!(message.id.to_string(), *id);
    message
}

impl TestSuite {
    /// An admin's subscription of `url` to the `types` of the fixture's event.
    pub async fn subscribe(
        &self,
        fx: &EventFixture,
        url: &str,
        types: &[WebhookEventType],
    ) -> WebhookCreated {
        self.admin
            .create_webhook(&CreateWebhook {
                url: url.to_string(),
                event_types: types.to_vec(),
                event_ids: Some(vec![fx.event.id]),
            })
            .await
            .expect("subscribed")
    }

    /// A classic event of 4 players and 1 round, and a receiver subscribed to its `types` that
    /// answers its first `failures` calls with 500.
    pub async fn event_with_receiver(
        &self,
        failures: usize,
        types: &[WebhookEventType],
    ) -> (EventFixture, Receiver, WebhookCreated) {
        let fx = self.classic_event(4, Some(1)).await;
        let receiver = Receiver::start(failures).await;
        let hook = self.subscribe(&fx, &receiver.url, types).await;
        (fx, receiver, hook)
    }

    /// The first delivery of the webhook `hook` that reaches `status`, waited for up to 30 s.
    pub async fn delivery(&self, hook: Uuid, status: DeliveryStatus) -> WebhookDelivery {
        let what = format!("a delivery {status:?}");
        crate::eventually(30, &what, async || {
            let deliveries = self.admin.webhook_deliveries(hook).await;
            let items = deliveries.expect("deliveries").items;
            items.into_iter().find(|d| d.status == status)
        })
        .await
    }
}
