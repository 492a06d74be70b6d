//! Metrics: every service serves `/metrics` in the Prometheus text format, with what an operator
//! watches (requests by route and status with latencies, the database pool, the outbox, the read
//! model's lag, webhook deliveries); the gateway does not serve it to the public.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

use catan_api::{Round, WebhookEventType};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::webhooks::Receiver;
use catan_e2e::{TestSuite, eventually, fast_webhooks, spawn_suite_with};
use catan_suite::Owner;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// One sample of a scrape: its name, labels and value.
#[derive(Debug)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// Parses the text format's samples (comments skipped).
fn samples(text: &str) -> Vec<Sample> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').expect("a value");
            let value = match value {
                "+Inf" => f64::INFINITY,
                v => v.parse().expect("a number"),
            };
            let (name, labels) = match series.split_once('{') {
                Some((name, rest)) => {
                    let rest = rest.strip_suffix('}').expect("closed labels");
                    let labels = rest
                        .split("\",")
                        .map(|pair| {
                            let (key, value) = pair.split_once("=\"").expect("key=\"value\"");
                            (key.to_owned(), value.trim_end_matches('"').to_owned())
                        })
                        .collect();
                    (name.to_owned(), labels)
                }
                None => (series.to_owned(), BTreeMap::new()),
            };
            Sample {
                name,
                labels,
                value,
            }
        })
        .collect()
}

/// The value of the series `name` whose labels include `labels`, if the scrape has it.
fn value(scrape: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    scrape
        .iter()
        .find(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.value)
}

async fn scrape(ts: &TestSuite, owner: Owner) -> Vec<Sample> {
    let url = format!("{}/metrics", ts.suite.service_url(owner));
    let response = ts.http_client.get(url).send().await.expect("scrape");
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    samples(&response.text().await.expect("a body"))
}

const RESULT_ROUTE: &str = "/v1/events/{event_id}/rounds/{round}/tables/{table}/result";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_service_serves_its_metrics_and_the_public_never_sees_them() {
    let ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(8, Some(2)).await;
    let receiver = Receiver::start(0).await;
    ts.subscribe(&fx, &receiver.url, &[WebhookEventType::ResultPosted])
        .await;
    let round: Round = fx.draw().await;
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    fx.submit_random(&round, &round.tables[0], &mut rng).await;
    // A refused sheet is counted under its status, by the route's pattern.
    let refused = ts
        .http(
            Method::PUT,
            &format!("/v1/events/{}/rounds/1/tables/1/result", fx.event.id),
        )
        .token(&ts.admin_token)
        .json_text("{\"outcome\": \"won\"}")
        .send()
        .await;
    assert!(refused.status.is_client_error(), "{:?}", refused.status);
    let refused_status = refused.status.as_u16().to_string();
    eventually(30, "the result.posted delivery", async || {
        (!receiver.messages().is_empty()).then_some(())
    })
    .await;

    // Every service: its own requests, with latencies, and its pool.
    for (owner, name) in [
        (Owner::Registration, "registration"),
        (Owner::Pairing, "pairing"),
        (Owner::Results, "results"),
        (Owner::Ranking, "ranking"),
    ] {
        let metrics = scrape(&ts, owner).await;
        assert!(
            metrics
                .iter()
                .all(|s| s.labels.get("service").map(String::as_str) == Some(name)),
            "{name}: every series names its service"
        );
        let max = value(&metrics, "catan_db_pool_max_connections", &[]);
        assert!(max.is_some_and(|max| max >= 1.0), "{name}: {max:?}");
        let held = value(&metrics, "catan_db_pool_connections", &[]).unwrap();
        assert!(held >= 1.0 && held <= max.unwrap(), "{name}: {held}");
        assert!(value(&metrics, "catan_db_pool_idle_connections", &[]).unwrap() <= held);
        // What no service routes is counted as unmatched, never by its path.
        ts.http_client
            .get(format!("{}/no/such/path", ts.suite.service_url(owner)))
            .send()
            .await
            .unwrap();
        let after = scrape(&ts, owner).await;
        assert!(
            value(
                &after,
                "catan_http_requests_total",
                &[("route", "unmatched"), ("status", "404")]
            )
            .is_some_and(|n| n >= 1.0),
            "{name}"
        );
        assert!(
            after
                .iter()
                .all(|s| s.labels.get("route").map(String::as_str) != Some("/no/such/path"))
        );
        // The first scrape was timed too, under its own route.
        assert!(
            value(
                &after,
                "catan_http_request_duration_seconds_count",
                &[("method", "GET"), ("route", "/metrics"), ("status", "200")]
            )
            .is_some_and(|n| n >= 1.0),
            "{name}: the scrape was timed"
        );
    }

    // Results: the posted sheet and the refused one, by route pattern and status.
    let results = scrape(&ts, Owner::Results).await;
    let posted = [
        ("method", "PUT"),
        ("route", RESULT_ROUTE),
        ("status", "201"),
    ];
    assert_eq!(
        value(&results, "catan_http_requests_total", &posted),
        Some(1.0)
    );
    assert_eq!(
        value(
            &results,
            "catan_http_request_duration_seconds_count",
            &posted
        ),
        Some(1.0)
    );
    let all_buckets = [
        ("method", "PUT"),
        ("route", RESULT_ROUTE),
        ("status", "201"),
        ("le", "+Inf"),
    ];
    assert_eq!(
        value(
            &results,
            "catan_http_request_duration_seconds_bucket",
            &all_buckets
        ),
        Some(1.0)
    );
    let refused_labels = [
        ("method", "PUT"),
        ("route", RESULT_ROUTE),
        ("status", refused_status.as_str()),
    ];
    assert_eq!(
        value(&results, "catan_http_requests_total", &refused_labels),
        Some(1.0)
    );

    // Registration: the delivery, by outcome.
    let registration = scrape(&ts, Owner::Registration).await;
    let delivered = value(
        &registration,
        "catan_webhook_deliveries_total",
        &[("outcome", "delivered")],
    );
    assert!(delivered.is_some_and(|n| n >= 1.0), "{delivered:?}");
    assert_eq!(
        value(
            &registration,
            "catan_webhook_deliveries_total",
            &[("outcome", "failed")]
        ),
        Some(0.0)
    );

    // With registration down, results' outbox fills and ages, and ranking's registration feed
    // fails while its lag grows.
    let mut ts = ts;
    let before = scrape(&ts, Owner::Results).await;
    assert_eq!(value(&before, "catan_outbox_depth", &[]), Some(0.0));
    assert_eq!(value(&before, "catan_outbox_dead", &[]), Some(0.0));
    ts.suite.stop_service(Owner::Registration).await;
    fx.submit_random(&round, &round.tables[1], &mut rng).await;
    let results = eventually(10, "an aged outbox", async || {
        let metrics = scrape(&ts, Owner::Results).await;
        value(&metrics, "catan_outbox_oldest_age_seconds", &[])
            .is_some_and(|age| age >= 1.0)
            .then_some(metrics)
    })
    .await;
    let depth = value(&results, "catan_outbox_depth", &[]).unwrap();
    assert!(depth >= 1.0, "{depth}");
    let pairing = scrape(&ts, Owner::Pairing).await;
    assert!(value(&pairing, "catan_outbox_depth", &[]).is_some());
    ts.failing_feed_noticed("registration").await;
    let ranking = scrape(&ts, Owner::Ranking).await;
    assert_eq!(
        value(&ranking, "catan_feed_failing", &[("feed", "registration")]),
        Some(1.0)
    );
    let lag = value(
        &ranking,
        "catan_feed_lag_seconds",
        &[("feed", "registration")],
    );
    assert!(lag.is_some_and(|lag| lag >= 0.0), "{lag:?}");
    assert_eq!(
        value(&ranking, "catan_feed_failing", &[("feed", "results")]),
        Some(0.0)
    );
    // A service with an outbox shows it (ranking's announces `event.finished`), only ranking
    // follows feeds.
    assert_eq!(value(&ranking, "catan_outbox_depth", &[]), Some(0.0));
    assert_eq!(value(&results, "catan_feed_lag_seconds", &[]), None);

    // The public base URL does not serve them, and the spec does not name them.
    let public = ts.http(Method::GET, "/metrics").send().await;
    public.assert_problem(StatusCode::NOT_FOUND);
    let spec = catan_suite::openapi::merged_openapi();
    assert!(
        spec.paths
            .paths
            .keys()
            .all(|path| !path.contains("metrics")),
        "the spec names no metrics path"
    );
    ts.shutdown().await;
}
