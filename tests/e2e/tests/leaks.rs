//! Issue 10, item 11: what an error or a log line shows. A 503 names no peer address and no
//! database error, a 409 names no constraint, and a webhook URL is logged as its origin only
//! (its path and query often hold a token).

use catan_api::{ClientError, CreateEntry, DrawRound, WebhookEventType};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::webhooks::Receiver;
use catan_e2e::{fast_webhooks, spawn_suite_with, spawn_suite_with_event};
use catan_suite::Owner;
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// The log lines of this test process, as the services write them.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        log.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(PoisonError::into_inner)).into()
    }
}

/// The process's log, captured from the first call on.
fn captured_log() -> &'static Captured {
    static LOG: OnceLock<Captured> = OnceLock::new();
    LOG.get_or_init(|| {
        let captured = Captured::default();
        let writer = captured.clone();
        tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .init();
        captured
    })
}

fn assert_names_no_address(status: StatusCode, body: &str, what: &str) {
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{what}: {body}");
    for leak in ["127.0.0.1", "http://", "localhost", "postgres"] {
        assert!(!body.contains(leak), "{what} shows {leak}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item11_a_503_names_no_peer_address() {
    let (mut ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let sheet = fx.draw_and_sheet(&[10, 6, 5, 4]).await;
    let token = ts.token(&fx.director_key).await;
    ts.suite.stop_service(Owner::Pairing).await;
    // The gateway's proxy, which cannot reach pairing.
    let round = format!("/v1/events/{}/rounds/1", fx.event.id);
    let proxied = ts.http(Method::GET, &round).send().await;
    assert_names_no_address(proxied.status, &proxied.text, "the gateway's 503");
    // Results, whose typed client cannot read the round from pairing.
    let path = format!("/v1/events/{}/rounds/1/tables/1/result", fx.event.id);
    let posted = ts
        .http(Method::PUT, &path)
        .token(&token)
        .json(&sheet)
        .send()
        .await;
    assert_names_no_address(posted.status, &posted.text, "results' 503");
    let drawn = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await;
    assert!(drawn.is_err());
    ts.shutdown().await;
}

fn assert_conflict_names_no_constraint<T: std::fmt::Debug>(refused: Result<T, ClientError>) {
    match refused {
        Err(ClientError::Problem { problem }) => {
            assert_eq!(problem.status, 409, "{problem:?}");
            let shown = format!("{problem:?}");
            for leak in ["_key", "_pkey", "_idx", "constraint", "duplicate key"] {
                assert!(!shown.contains(leak), "the 409 shows {leak}: {shown}");
            }
        }
        other => panic!("expected a 409, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item11_a_409_names_no_constraint() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    ts.admin.create_region("Leaky Hills").await.expect("region");
    assert_conflict_names_no_constraint(ts.admin.create_region("Leaky Hills").await);
    let entries = fx.director.entries(fx.event.id).await.expect("entries");
    let entered = CreateEntry {
        player_id: entries[0].player_id,
        ..CreateEntry::default()
    };
    assert_conflict_names_no_constraint(fx.director.create_entry(fx.event.id, &entered).await);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item11_webhook_urls_are_logged_without_their_path_and_query() {
    let log = captured_log();
    let ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(4, Some(1)).await;
    let receiver = Receiver::start(0).await;
    let secret_part = "/s3cr3t-path?token=s3cr3t-token";
    let delivered = ts
        .subscribe(
            &fx,
            &format!("{}{secret_part}", receiver.url),
            &[WebhookEventType::RoundDrawn],
        )
        .await;
    // A receiver that is not there: its failures are logged too.
    ts.subscribe(
        &fx,
        &format!("http://127.0.0.1:9{secret_part}"),
        &[WebhookEventType::RoundDrawn],
    )
    .await;
    fx.director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("round 1");
    ts.delivery(delivered.id, catan_api::DeliveryStatus::Delivered)
        .await;
    catan_e2e::eventually(30, "a failed try logged", async || {
        log.text().contains("webhook delivery failed").then_some(())
    })
    .await;
    let text = log.text();
    assert!(
        text.contains("webhook subscribed"),
        "the subscription is logged"
    );
    assert!(text.contains("to=http://127.0.0.1"), "its origin is logged");
    assert!(!text.contains("s3cr3t"), "a URL's path or query is logged");
    ts.shutdown().await;
}
