//! Webhooks: signed deliveries of what happens in an event, retried until the receiver answers,
//! surviving restarts; and the live standings stream.

use catan_api::{
    ClientError, CreateWebhook, DeliveryStatus, DrawRound, Round, WebhookCreated, WebhookDelivery,
    WebhookEventType, WebhookMessage,
};
use catan_e2e::{EventFixture, TestSuite, fast_webhooks, spawn_suite, spawn_suite_with};
use catan_kit::webhooks::{WebhookSettings, secret_key, verify_signature};
use catan_suite::Owner;
use catan_suite::demo::random_sheet;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use uuid::Uuid;

/// A request the receiver got.
#[derive(Debug, Clone)]
struct Received {
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

/// A webhook receiver on 127.0.0.1: answers the first `failures` requests with 500, then 200.
struct Receiver {
    url: String,
    received: Arc<Mutex<Vec<Received>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    async fn start(failures: usize) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!(
            "http://{}/hooks/catan",
            listener.local_addr().expect("addr")
        );
        let received = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::new(AtomicUsize::new(0));
        let log = received.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let log = log.clone();
                let seen = seen.clone();
                tokio::spawn(async move {
                    let Some(request) = read_request(&mut socket).await else {
                        return;
                    };
                    log.lock().unwrap().push(request);
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
            task,
        }
    }

    fn messages(&self) -> Vec<Received> {
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
fn verified(secret: &str, request: &Received) -> WebhookMessage {
    let id = &request.headers["webhook-id"];
    let timestamp: i64 = request.headers["webhook-timestamp"]
        .parse()
        .expect("a Unix timestamp");
    assert!(
        (chrono::Utc::now().timestamp() - timestamp).abs() < 60,
        "a fresh timestamp"
    );
    let key = secret_key(secret).expect("a whsec_ secret");
    assert!(
        verify_signature(
            &key,
            id,
            timestamp,
            &request.body,
            &request.headers["webhook-signature"]
        ),
        "the signature verifies"
    );
    assert!(!verify_signature(
        b"another key",
        id,
        timestamp,
        &request.body,
        &request.headers["webhook-signature"]
    ));
    let message: WebhookMessage = serde_json::from_slice(&request.body).expect("a webhook message");
    assert_eq!(message.id.to_string(), *id);
    message
}

/// Waits until `done` holds, for at most `seconds`.
async fn eventually<T>(seconds: u64, what: &str, mut done: impl AsyncFnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    loop {
        if let Some(value) = done().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn subscribe(
    ts: &TestSuite,
    fx: &EventFixture,
    url: &str,
    types: &[WebhookEventType],
) -> WebhookCreated {
    ts.admin
        .create_webhook(&CreateWebhook {
            url: url.to_string(),
            event_types: types.to_vec(),
            event_ids: Some(vec![fx.event.id]),
        })
        .await
        .expect("subscribed")
}

async fn post_first_result(fx: &EventFixture, round: &Round) -> catan_api::TableResult {
    let table = round.tables.first().expect("a table");
    let seated: Vec<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
    let sheet = random_sheet(&seated, round.stage, &mut ChaCha8Rng::seed_from_u64(5));
    fx.scorer
        .submit_result(fx.event.id, round.number, table.number, &sheet)
        .await
        .expect("result")
}

fn of_type(messages: &[WebhookMessage], event_type: WebhookEventType) -> Vec<&WebhookMessage> {
    messages
        .iter()
        .filter(|m| m.event_type == event_type)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn drawn_rounds_and_posted_results_are_delivered_signed() {
    let ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(8, Some(2)).await;
    let receiver = Receiver::start(0).await;
    let all = [
        WebhookEventType::RoundDrawn,
        WebhookEventType::ResultPosted,
        WebhookEventType::StandingsUpdated,
    ];
    let hook = subscribe(&ts, &fx, &receiver.url, &all).await;
    assert!(hook.secret.starts_with("whsec_"));
    // Another event's subscription gets nothing of this one.
    let other = ts.classic_event(4, Some(1)).await;
    let elsewhere = Receiver::start(0).await;
    subscribe(&ts, &other, &elsewhere.url, &all).await;

    let round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");
    let result = post_first_result(&fx, &round).await;

    let messages = eventually(30, "three deliveries", async || {
        let got = receiver.messages();
        (got.len() >= 3).then_some(got)
    })
    .await;
    let messages: Vec<WebhookMessage> =
        messages.iter().map(|m| verified(&hook.secret, m)).collect();
    assert_eq!(messages.len(), 3, "each event once: {messages:?}");
    let drawn = of_type(&messages, WebhookEventType::RoundDrawn);
    assert_eq!(drawn.len(), 1);
    assert_eq!(drawn[0].event_id, fx.event.id);
    let drawn_round: Round = serde_json::from_value(drawn[0].data.clone()).expect("a round");
    assert_eq!(drawn_round.number, 1);
    assert_eq!(drawn_round.tables.len(), round.tables.len());
    let posted = of_type(&messages, WebhookEventType::ResultPosted);
    assert_eq!(posted.len(), 1);
    assert_eq!(posted[0].data["table"], result.table);
    assert_eq!(posted[0].data["version"], 1);
    let updated = of_type(&messages, WebhookEventType::StandingsUpdated);
    assert_eq!(updated[0].data["round"], 1);

    let deliveries = ts
        .admin
        .webhook_deliveries(hook.id)
        .await
        .expect("deliveries")
        .items;
    assert_eq!(deliveries.len(), 3);
    for delivery in &deliveries {
        assert_eq!(delivery.status, DeliveryStatus::Delivered, "{delivery:?}");
        assert_eq!(
            (delivery.attempts, delivery.last_status_code),
            (1, Some(200))
        );
        assert_eq!(delivery.attempt_log.len(), 1);
        assert!(delivery.next_attempt_at.is_none());
    }
    // The secret is shown once, never again.
    let read = ts.admin.webhook(hook.id).await.expect("webhook");
    assert_eq!(read.event_ids, Some(vec![fx.event.id]));
    assert!(!serde_json::to_string(&read).unwrap().contains("whsec_"));
    assert!(
        elsewhere.messages().is_empty(),
        "the other event's subscriber got nothing"
    );

    // A director subscribes for its own events only.
    let own = fx
        .director
        .create_webhook(&CreateWebhook {
            url: receiver.url.clone(),
            event_types: vec![WebhookEventType::ResultPosted],
            event_ids: Some(vec![fx.event.id]),
        })
        .await
        .expect("a director subscribes to its event");
    for event_ids in [Some(vec![other.event.id]), None] {
        let refused = fx
            .director
            .create_webhook(&CreateWebhook {
                url: receiver.url.clone(),
                event_types: vec![WebhookEventType::ResultPosted],
                event_ids,
            })
            .await
            .expect_err("not the director's events");
        assert_eq!(refused.status(), Some(403));
    }
    assert_eq!(
        fx.scorer
            .webhook(own.id)
            .await
            .expect_err("a scorer")
            .status(),
        Some(403)
    );

    // Deleted: gone, and nothing more is sent to it.
    let token = ts
        .anonymous
        .token(&ts.admin_key)
        .await
        .expect("token")
        .access_token;
    let deleted = reqwest::Client::new()
        .delete(format!("{}/v1/webhooks/{}", ts.suite.url(), hook.id))
        .bearer_auth(&token)
        .send()
        .await
        .expect("delete");
    assert_eq!(deleted.status(), 204);
    assert_eq!(
        ts.admin
            .webhook(hook.id)
            .await
            .expect_err("deleted")
            .status(),
        Some(404)
    );
    assert_eq!(
        ts.admin
            .webhook_deliveries(hook.id)
            .await
            .expect_err("deleted")
            .status(),
        Some(404)
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failed_delivery_is_retried_with_backoff_until_the_receiver_answers() {
    let ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(4, Some(1)).await;
    // Two 500s, then 200.
    let receiver = Receiver::start(2).await;
    let hook = subscribe(&ts, &fx, &receiver.url, &[WebhookEventType::RoundDrawn]).await;
    fx.director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");

    let delivery: WebhookDelivery = eventually(30, "the delivery to succeed", async || {
        let items = ts
            .admin
            .webhook_deliveries(hook.id)
            .await
            .expect("deliveries")
            .items;
        items
            .into_iter()
            .find(|d| d.status == DeliveryStatus::Delivered)
    })
    .await;
    assert_eq!(delivery.attempts, 3);
    assert_eq!(delivery.last_status_code, Some(200));
    assert_eq!(delivery.last_error, None);
    let codes: Vec<Option<u16>> = delivery.attempt_log.iter().map(|a| a.status_code).collect();
    assert_eq!(codes, [Some(500), Some(500), Some(200)]);
    assert!(
        delivery.attempt_log[0]
            .error
            .as_deref()
            .unwrap()
            .contains("500")
    );
    // Backoff: the second wait is at least the first retry doubled (300 ms, then 600 ms).
    let gaps: Vec<i64> = delivery
        .attempt_log
        .windows(2)
        .map(|w| (w[1].attempted_at - w[0].attempted_at).num_milliseconds())
        .collect();
    assert!(gaps[0] >= 300 && gaps[1] >= 600, "{gaps:?}");
    // Every try carried the same message, signed anew.
    let got = receiver.messages();
    assert_eq!(got.len(), 3);
    let ids: Vec<Uuid> = got.iter().map(|m| verified(&hook.secret, m).id).collect();
    assert!(ids.iter().all(|id| *id == delivery.message_id));
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn deliveries_give_up_after_the_last_attempt() {
    let ts = spawn_suite_with(WebhookSettings {
        max_attempts: 2,
        first_retry: Duration::from_millis(100),
        ..fast_webhooks()
    })
    .await;
    let fx = ts.classic_event(4, Some(1)).await;
    let receiver = Receiver::start(usize::MAX).await;
    let hook = subscribe(&ts, &fx, &receiver.url, &[WebhookEventType::RoundDrawn]).await;
    fx.director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");
    let failed = eventually(30, "the delivery to fail", async || {
        let items = ts
            .admin
            .webhook_deliveries(hook.id)
            .await
            .expect("deliveries")
            .items;
        items
            .into_iter()
            .find(|d| d.status == DeliveryStatus::Failed)
    })
    .await;
    assert_eq!(
        (
            failed.attempts,
            failed.last_status_code,
            failed.next_attempt_at
        ),
        (2, Some(500), None)
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.messages().len(), 2, "no try after the last");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn events_wait_in_the_outbox_across_restarts_and_are_delivered_after() {
    let mut ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(4, Some(1)).await;
    let receiver = Receiver::start(0).await;
    let hook = subscribe(&ts, &fx, &receiver.url, &[WebhookEventType::ResultPosted]).await;
    let round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");

    // Registration (which delivers) is down when the result is posted: the event waits in the
    // results service's outbox, committed with the result.
    ts.suite.stop_service(Owner::Registration).await;
    let result = post_first_result(&fx, &round).await;
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM results.outbox WHERE event_type = 'result.posted'"),
        1
    );
    // The producer goes down too, and registration comes back: nothing can be relayed yet.
    ts.suite.stop_service(Owner::Results).await;
    ts.suite
        .restart_service(Owner::Registration)
        .await
        .expect("registration restarts");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(receiver.messages().is_empty());
    assert_eq!(ts.count("SELECT count(*) AS n FROM results.outbox"), 2);

    // Once the results service is back its relay resumes, and the delivery is made.
    ts.suite
        .restart_service(Owner::Results)
        .await
        .expect("results restarts");
    // Generous: on a loaded machine the services take a while to come back.
    let got = eventually(30, "the delivery after the restart", async || {
        receiver.messages().pop()
    })
    .await;
    let message = verified(&hook.secret, &got);
    assert_eq!(message.event_type, WebhookEventType::ResultPosted);
    assert_eq!(message.data["seq"], result.seq);
    eventually(30, "the outbox to empty", async || {
        (ts.count("SELECT count(*) AS n FROM results.outbox") == 0).then_some(())
    })
    .await;
    let deliveries = ts
        .admin
        .webhook_deliveries(hook.id)
        .await
        .expect("deliveries")
        .items;
    assert_eq!(deliveries.len(), 1, "delivered once");
    assert_eq!(deliveries[0].status, DeliveryStatus::Delivered);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn urls_on_private_networks_are_refused_unless_allowed() {
    let ts = spawn_suite_with(WebhookSettings {
        allow_private: false,
        ..fast_webhooks()
    })
    .await;
    let fx = ts.classic_event(0, Some(1)).await;
    let attempt = async |url: &str, types: Vec<WebhookEventType>| -> ClientError {
        ts.admin
            .create_webhook(&CreateWebhook {
                url: url.to_string(),
                event_types: types,
                event_ids: Some(vec![fx.event.id]),
            })
            .await
            .expect_err("refused")
    };
    let result_posted = || vec![WebhookEventType::ResultPosted];
    for (url, code) in [
        ("http://127.0.0.1:9000/hook", "private_address"),
        ("http://localhost:9000/hook", "private_address"),
        ("http://10.1.2.3/hook", "private_address"),
        ("http://172.20.0.5/hook", "private_address"),
        ("http://192.168.0.10/hook", "private_address"),
        ("http://169.254.169.254/latest/meta-data", "private_address"),
        ("http://[::1]:9000/hook", "private_address"),
        ("http://[fd00::1]/hook", "private_address"),
        ("http://[fe80::1]/hook", "private_address"),
        ("ftp://8.8.8.8/hook", "unsupported_scheme"),
        ("not a url", "invalid_url"),
    ] {
        let ClientError::Problem { problem } = attempt(url, result_posted()).await else {
            panic!("a problem for {url}");
        };
        assert_eq!(problem.status, 422, "{url}");
        assert_eq!(
            (
                problem.errors[0].field.as_str(),
                problem.errors[0].code.as_str()
            ),
            ("url", code),
            "{url}"
        );
    }
    // Every broken rule at once.
    let ClientError::Problem { problem } = attempt("http://127.0.0.1/x", vec![]).await else {
        panic!("a problem");
    };
    let fields: Vec<&str> = problem.errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["url", "event_types"]);
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM registration.webhooks"),
        0
    );
    // A public address is accepted.
    ts.admin
        .create_webhook(&CreateWebhook {
            url: "http://8.8.8.8/hook".into(),
            event_types: result_posted(),
            event_ids: Some(vec![fx.event.id]),
        })
        .await
        .expect("a public address");
    ts.shutdown().await;
}

/// Reads server-sent events until one named `standings` satisfies `wanted`.
async fn next_standings(
    stream: &mut reqwest::Response,
    buffer: &mut String,
    wanted: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            let name = event.lines().find_map(|l| l.strip_prefix("event: "));
            let data = event.lines().find_map(|l| l.strip_prefix("data: "));
            if let (Some("standings"), Some(data)) = (name, data) {
                let standings: serde_json::Value =
                    serde_json::from_str(data).expect("standings JSON");
                if wanted(&standings) {
                    return standings;
                }
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let chunk = tokio::time::timeout(left, stream.chunk())
            .await
            .expect("an update in time")
            .expect("the stream reads")
            .expect("the stream stays open");
        buffer.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_standings_stream_sends_the_standings_and_each_change_through_the_gateway() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(8, Some(2)).await;
    let round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");
    let mut stream = reqwest::Client::new()
        .get(format!(
            "{}/v1/events/{}/standings/stream",
            ts.suite.url(),
            fx.event.id
        ))
        .send()
        .await
        .expect("the stream opens");
    assert_eq!(stream.status(), 200);
    assert!(
        stream.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let mut buffer = String::new();
    let first = next_standings(&mut stream, &mut buffer, |_| true).await;
    assert_eq!(first["results_counted"], 0);
    assert_eq!(first["rows"].as_array().unwrap().len(), 8);

    let result = post_first_result(&fx, &round).await;
    let updated = next_standings(&mut stream, &mut buffer, |s| s["results_counted"] == 1).await;
    let winner = result.scores.iter().max_by_key(|s| s.credited_vp).unwrap();
    assert_eq!(updated["rows"][0]["vp"], winner.credited_vp);
    drop(stream);

    let unknown = reqwest::get(format!(
        "{}/v1/events/{}/standings/stream",
        ts.suite.url(),
        Uuid::new_v4()
    ))
    .await
    .expect("answered");
    assert_eq!(unknown.status(), 404);
    assert_eq!(
        unknown.headers()["content-type"],
        "application/problem+json"
    );
    ts.shutdown().await;
}
