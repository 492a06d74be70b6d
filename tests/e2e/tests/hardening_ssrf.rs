//! Issue 10, item 5: SSRF through DNS rebinding. A webhook's host is resolved once per check,
//! every address vetted against the IANA special-purpose blocks, and a delivery connects to the
//! addresses vetted; a refusal never tells which internal address a name resolved to.

use catan_api::{CreateWebhook, DeliveryStatus, WebhookEventType};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::webhooks::{Receiver, verified};
use catan_e2e::{eventually, fast_webhooks, spawn_suite_with};
use catan_kit::webhooks::WebhookSettings;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item5_a_refused_name_does_not_echo_the_address_it_resolved_to() {
    let ts = spawn_suite_with(WebhookSettings {
        allow_private: false,
        ..fast_webhooks()
    })
    .await;
    let fx = ts.classic_event(0, Some(1)).await;
    let create = |url: &str| {
        ts.http(Method::POST, "/v1/webhooks")
            .token(&ts.admin_token)
            .json(&CreateWebhook {
                url: url.to_string(),
                event_types: vec![WebhookEventType::ResultPosted],
                event_ids: Some(vec![fx.event.id]),
            })
    };
    let answer = create("http://localhost:9000/hook").send().await;
    assert_eq!(
        answer.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        answer.text
    );
    assert_eq!(answer.body()["errors"][0]["code"], "private_address");
    assert!(answer.text.contains("localhost"), "{}", answer.text);
    for address in ["127.0.0.1", "::1", "127.0.1.1"] {
        assert!(!answer.text.contains(address), "{}", answer.text);
    }
    // Blocks of the special-purpose registries the first list missed.
    for url in [
        "http://100.64.0.1/hook",
        "http://198.18.0.1/hook",
        "http://192.0.0.8/hook",
        "http://240.0.0.1/hook",
        "http://224.0.0.1/hook",
        "http://[64:ff9b::a00:1]/hook",
        "http://[2002:a00:1::1]/hook",
        "http://[::10.0.0.1]/hook",
        "http://[::ffff:10.0.0.1]/hook",
    ] {
        let answer = create(url).send().await;
        assert_eq!(
            answer.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{url}: {}",
            answer.text
        );
        assert_eq!(
            answer.body()["errors"][0]["code"],
            "private_address",
            "{url}"
        );
    }
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM registration.webhooks"),
        0
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item5_a_webhook_named_by_host_is_delivered_through_the_addresses_vetted() {
    // Private addresses allowed, so the receiver on loopback may be named `localhost`: the try
    // resolves it once and connects to what it vetted (no proxy, no second lookup).
    let ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(8, Some(2)).await;
    let receiver = Receiver::start(0).await;
    let named = receiver.url.replace("127.0.0.1", "localhost");
    assert_ne!(named, receiver.url);
    let hook = ts
        .subscribe(&fx, &named, &[WebhookEventType::RoundDrawn])
        .await;
    fx.draw().await;
    let received = eventually(30, "the delivery to localhost", async || {
        receiver.messages().into_iter().next()
    })
    .await;
    assert_eq!(
        verified(&hook.secret, &received).event_type,
        WebhookEventType::RoundDrawn
    );
    let delivery = ts.delivery(hook.id, DeliveryStatus::Delivered).await;
    assert_eq!(delivery.last_status_code, Some(200));
    ts.shutdown().await;
}
