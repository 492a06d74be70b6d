//! Issue 10, item 10: webhook subscriptions take an `Idempotency-Key` (the secret is shown once,
//! never replayed), are capped per API key, and a director manages only the ones its key created.

use catan_api::{CreateWebhook, WebhookCreated, WebhookEventType};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{EventFixture, assert_refused, fast_webhooks, spawn_suite_with};
use uuid::Uuid;

fn hook_for(fx: &EventFixture, n: usize) -> CreateWebhook {
    CreateWebhook {
        url: format!("http://127.0.0.1:9/hook/{n}"),
        event_types: vec![WebhookEventType::ResultPosted],
        event_ids: Some(vec![fx.event.id]),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item10_a_subscription_retried_with_its_key_is_refused_and_its_secret_never_stored_for_replays()
 {
    let ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(0, Some(1)).await;
    let subscribe = || {
        ts.http(Method::POST, "/v1/webhooks")
            .token(&ts.admin_token)
            .header("Idempotency-Key", "hook-once")
            .json(&hook_for(&fx, 1))
    };
    let first = subscribe().send().await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    let created: WebhookCreated = first.json();
    assert!(created.secret.starts_with("whsec_"));

    let retried = subscribe().send().await;
    retried.assert_problem(StatusCode::CONFLICT);
    assert!(retried.text.contains("shown once"), "{}", retried.text);
    assert!(!retried.text.contains(&created.secret));
    let stored = "SELECT count(*) AS n FROM registration.webhooks";
    assert_eq!(ts.count(stored), 1, "the retry subscribed nothing more");
    let kept = "SELECT count(*) AS n FROM registration.idempotency_keys WHERE key = 'hook-once'";
    assert_eq!(ts.count(kept), 1, "the key is remembered");
    let secrets = "SELECT count(*) AS n FROM registration.idempotency_keys \
                   WHERE response::text LIKE '%whsec_%'";
    assert_eq!(ts.count(secrets), 0, "no secret is kept for replays");
    // The same key with another body is still 422.
    let other = ts
        .http(Method::POST, "/v1/webhooks")
        .token(&ts.admin_token)
        .header("Idempotency-Key", "hook-once")
        .json(&hook_for(&fx, 2))
        .send()
        .await;
    other.assert_problem(StatusCode::UNPROCESSABLE_ENTITY);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item10_an_api_key_has_at_most_25_subscriptions() {
    let ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(0, Some(1)).await;
    // The admin's subscription is not the director's.
    ts.admin
        .create_webhook(&hook_for(&fx, 0))
        .await
        .expect("the admin's");
    let mut own = Vec::new();
    for n in 1..=25 {
        let created = fx.director.create_webhook(&hook_for(&fx, n)).await;
        own.push(created.expect("within the cap").id);
    }
    let refused = fx.director.create_webhook(&hook_for(&fx, 26)).await;
    let refused = assert_refused(refused, 409, "the 26th");
    assert!(refused.to_string().contains("25"), "{refused}");
    let stored = "SELECT count(*) AS n FROM registration.webhooks";
    assert_eq!(ts.count(stored), 26);

    // A deleted one frees its place.
    let token = ts.token(&fx.director_key).await;
    let path = format!("/v1/webhooks/{}", own[0]);
    let deleted = ts.http(Method::DELETE, &path).token(&token).send().await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    fx.director
        .create_webhook(&hook_for(&fx, 27))
        .await
        .expect("a place was freed");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item10_a_director_sees_and_deletes_only_the_subscriptions_its_key_created() {
    let ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(0, Some(1)).await;
    let admins = ts.admin.create_webhook(&hook_for(&fx, 1)).await;
    let admins = admins.expect("the admin's, for the director's event").id;
    let own = fx.director.create_webhook(&hook_for(&fx, 2)).await;
    let own = own.expect("the director's").id;
    let token = ts.token(&fx.director_key).await;
    let delete = async |id: Uuid| {
        let path = format!("/v1/webhooks/{id}");
        ts.http(Method::DELETE, &path).token(&token).send().await
    };

    assert_refused(fx.director.webhook(admins).await, 404, "the admin's");
    let deliveries = fx.director.webhook_deliveries(admins).await;
    assert_refused(deliveries, 404, "the admin's deliveries");
    delete(admins).await.assert_problem(StatusCode::NOT_FOUND);
    ts.admin.webhook(admins).await.expect("still there");

    fx.director.webhook(own).await.expect("its own");
    fx.director
        .webhook_deliveries(own)
        .await
        .expect("its own deliveries");
    ts.admin
        .webhook(own)
        .await
        .expect("the admin sees every one");
    assert_eq!(delete(own).await.status, StatusCode::NO_CONTENT);
    let path = format!("/v1/webhooks/{admins}");
    let by_admin = ts.http(Method::DELETE, &path).token(&ts.admin_token);
    assert_eq!(by_admin.send().await.status, StatusCode::NO_CONTENT);
    ts.shutdown().await;
}
