//! The webhook relay never jams: an event too large for one call to registration travels alone,
//! and one registration refuses never holds back the others. What cannot be relayed or delivered
//! within its tries becomes a dead letter the admin lists and replays.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

use catan_api::{
    CreateWebhook, DeadLetter, DeadLetterKind, DeliveryStatus, Round, WebhookEventType,
    WebhookMessage,
};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::webhooks::{Receiver, verified};
use catan_e2e::{
    EventFixture, TestSuite, assert_refused, eventually, fast_webhooks, spawn_suite_configured,
    spawn_suite_with,
};
use catan_kit::webhooks::{WebhookSettings, enqueue};
use catan_suite::Owner;
use diesel::{Connection, PgConnection, RunQueryDsl};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Duration;
use uuid::Uuid;

/// The largest JSON body a service takes on its public routes.
const PUBLIC_BODY_LIMIT: usize = 64 * 1024;

/// The verified messages `receiver` got once it has `count`, waited for up to 30 s.
async fn messages(receiver: &Receiver, secret: &str, count: usize) -> Vec<WebhookMessage> {
    let got = eventually(30, &format!("{count} deliveries"), async || {
        let got = receiver.messages();
        (got.len() >= count).then_some(got)
    })
    .await;
    got.iter().map(|m| verified(secret, m)).collect()
}

/// An admin's subscription of `url` to the round.drawn events of `events`.
async fn subscribe_to_rounds(ts: &TestSuite, url: &str, events: &[&EventFixture]) -> String {
    let hook = CreateWebhook {
        url: url.to_string(),
        event_types: vec![WebhookEventType::RoundDrawn],
        event_ids: Some(events.iter().map(|fx| fx.event.id).collect()),
    };
    ts.admin
        .create_webhook(&hook)
        .await
        .expect("subscribed")
        .secret
}

/// Writes `events` to pairing's outbox as pairing does, in one transaction: the relay claims
/// them together, in this order.
fn enqueue_together(ts: &TestSuite, events: &[(Uuid, &Round)]) {
    let mut conn = PgConnection::establish(&ts.database_url).expect("test database");
    diesel::sql_query("SET search_path TO pairing")
        .execute(&mut conn)
        .expect("pairing's schema");
    conn.transaction::<_, catan_kit::ApiError, _>(|conn| {
        for (event_id, round) in events {
            enqueue(conn, WebhookEventType::RoundDrawn, *event_id, round)?;
        }
        Ok(())
    })
    .expect("enqueued");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_round_larger_than_a_request_may_be_is_delivered_and_the_events_batched_with_it_too() {
    let ts = spawn_suite_configured(|settings| {
        settings.webhooks = fast_webhooks();
        // 1,200 registrations by one director's key.
        settings.rate_limit.per_second = 10_000.0;
        settings.rate_limit.burst = 10_000.0;
    })
    .await;
    let large = ts.classic_event(600, Some(1)).await;
    let small = ts.classic_event(4, Some(1)).await;
    let receiver = Receiver::start(0).await;
    let secret = subscribe_to_rounds(&ts, &receiver.url, &[&large, &small]).await;

    let round = large.draw().await;
    let size = serde_json::to_vec(&round).unwrap().len();
    assert!(size > PUBLIC_BODY_LIMIT, "the round is {size} bytes");
    let got = messages(&receiver, &secret, 1).await;
    assert_eq!(got[0].event_id, large.event.id);
    let delivered: Round = serde_json::from_value(got[0].data.clone()).expect("a round");
    assert_eq!(delivered.tables.len(), 150);
    assert_eq!(got[0].data, serde_json::to_value(&round).unwrap());

    // The large round claimed by the relay together with small ones, before and after it: every
    // one of them is delivered.
    let small_round = small.draw().await;
    messages(&receiver, &secret, 2).await;
    enqueue_together(
        &ts,
        &[
            (small.event.id, &small_round),
            (large.event.id, &round),
            (small.event.id, &small_round),
        ],
    );
    let got = messages(&receiver, &secret, 5).await;
    let of_event = |id: Uuid| got.iter().filter(|m| m.event_id == id).count();
    assert_eq!((of_event(large.event.id), of_event(small.event.id)), (2, 3));
    eventually(30, "pairing's outbox to empty", async || {
        (ts.count("SELECT count(*) AS n FROM pairing.outbox") == 0).then_some(())
    })
    .await;
    ts.shutdown().await;
}

/// The dead letters the admin lists, once there are `count`.
async fn dead_letters(ts: &TestSuite, count: usize) -> Vec<DeadLetter> {
    eventually(30, &format!("{count} dead letters"), async || {
        let list = ts.admin.dead_letters(100, 0).await.expect("dead letters");
        assert!(list.unavailable.is_empty(), "{:?}", list.unavailable);
        (list.items.len() == count).then_some(list.items)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_event_out_of_relays_is_a_dead_letter_until_the_admin_replays_it() {
    let mut ts = spawn_suite_configured(|settings| {
        settings.webhooks = WebhookSettings {
            relay_max_attempts: 3,
            internal_key: Some("cik_test_internal".to_string().into()),
            ..fast_webhooks()
        };
    })
    .await;
    let (fx, receiver, hook) = ts
        .event_with_receiver(0, &[WebhookEventType::ResultPosted])
        .await;
    let round = fx.draw().await;
    eventually(30, "the round to be relayed", async || {
        (ts.count("SELECT count(*) AS n FROM pairing.outbox") == 0).then_some(())
    })
    .await;

    // Registration is down for the result's events' three relays: they are dead letters.
    ts.suite.stop_service(Owner::Registration).await;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let result = fx.submit_random(&round, &round.tables[0], &mut rng).await;
    eventually(30, "the result's events to die in the outbox", async || {
        let dead = "SELECT count(*) AS n FROM results.outbox WHERE dead_at IS NOT NULL";
        (ts.count(dead) == 2).then_some(())
    })
    .await;
    ts.suite
        .restart_service(Owner::Registration)
        .await
        .expect("registration restarts");
    let dead = dead_letters(&ts, 2).await;
    for letter in &dead {
        assert_eq!(letter.kind, DeadLetterKind::Relay);
        assert_eq!(letter.service.as_deref(), Some("results"));
        assert_eq!((letter.event_id, letter.attempts), (fx.event.id, 3));
        assert!(letter.dead_at.is_some() && letter.next_attempt_at.is_none());
        assert!(letter.last_error.is_some(), "{letter:?}");
    }
    // Dead letters are not tried again, registration being back or not.
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(receiver.messages().is_empty());
    assert_eq!(ts.count("SELECT count(*) AS n FROM results.outbox"), 2);

    let posted = dead
        .iter()
        .find(|l| l.event_type == WebhookEventType::ResultPosted)
        .expect("the result.posted event");
    let replayed = ts
        .admin
        .replay_dead_letter(posted.id)
        .await
        .expect("replay");
    assert_eq!((replayed.id, replayed.attempts), (posted.id, 0));
    assert!(replayed.dead_at.is_none() && replayed.next_attempt_at.is_some());
    let got = eventually(30, "the replayed delivery", async || {
        receiver.messages().pop()
    })
    .await;
    let message = verified(&hook.secret, &got);
    assert_eq!(message.id, posted.id);
    assert_eq!(message.data["seq"], result.seq);
    let left = dead_letters(&ts, 1).await;
    assert_eq!(left[0].event_type, WebhookEventType::StandingsUpdated);
    // Relayed: no longer in the outbox, nothing to replay.
    eventually(30, "the relayed event to leave the outbox", async || {
        (ts.count("SELECT count(*) AS n FROM results.outbox") == 1).then_some(())
    })
    .await;
    let again = ts.admin.replay_dead_letter(posted.id).await;
    assert_refused(again, 404, "a dead letter relayed since");

    // The internal routes take the internal key only, and the gateway does not route them.
    let internal = format!(
        "{}/internal/dead-letters",
        ts.suite.service_url(Owner::Results)
    );
    let status = |request: reqwest::RequestBuilder| async move {
        request.send().await.expect("an answer").status()
    };
    let http = &ts.http_client;
    assert_eq!(status(http.get(&internal)).await, 401);
    assert_eq!(
        status(http.get(&internal).bearer_auth("cik_wrong")).await,
        401
    );
    let with_key = http.get(&internal).bearer_auth("cik_test_internal");
    assert_eq!(status(with_key).await, 200);
    let routed = ts
        .http(Method::GET, "/internal/dead-letters")
        .token(&ts.admin_token);
    assert_eq!(routed.send().await.status, StatusCode::NOT_FOUND);

    // A service that is down: the list says whose dead letters it lacks.
    ts.suite.stop_service(Owner::Results).await;
    let list = ts
        .admin
        .dead_letters(100, 0)
        .await
        .expect("a list all the same");
    assert_eq!(list.unavailable, ["results"]);
    assert!(list.items.is_empty());
    let unreachable = ts.admin.replay_dead_letter(left[0].id).await;
    assert_refused(unreachable, 503, "results is down");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_delivery_out_of_tries_is_a_dead_letter_until_the_admin_replays_it() {
    let ts = spawn_suite_with(WebhookSettings {
        max_attempts: 2,
        first_retry: Duration::from_millis(100),
        ..fast_webhooks()
    })
    .await;
    let fx = ts.classic_event(4, Some(1)).await;
    // Two 500s, then 200: the receiver works by the replay.
    let receiver = Receiver::start(2).await;
    let hook = ts
        .subscribe(&fx, &receiver.url, &[WebhookEventType::RoundDrawn])
        .await;
    fx.draw().await;
    let failed = ts.delivery(hook.id, DeliveryStatus::Failed).await;

    let dead = dead_letters(&ts, 1).await;
    let letter = &dead[0];
    assert_eq!(letter.kind, DeadLetterKind::Delivery);
    assert_eq!((letter.id, letter.webhook_id), (failed.id, Some(hook.id)));
    assert_eq!(
        (letter.message_id, letter.event_id),
        (failed.message_id, fx.event.id)
    );
    assert_eq!(
        (letter.event_type, letter.attempts),
        (WebhookEventType::RoundDrawn, 2)
    );
    assert!(letter.last_error.as_deref().unwrap().contains("500"));
    assert!(letter.dead_at.is_some());

    // Only the admin, and a retried replay gets the first answer.
    let path = format!("/v1/admin/dead-letters/{}/replay", letter.id);
    assert_refused(
        fx.director.dead_letters(100, 0).await,
        403,
        "a director lists",
    );
    assert_refused(
        fx.director.replay_dead_letter(letter.id).await,
        403,
        "a director replays",
    );
    assert_refused(
        ts.anonymous.dead_letters(100, 0).await,
        401,
        "anonymous lists",
    );
    let anonymous = ts.http(Method::POST, &path).header("Idempotency-Key", "k1");
    assert_eq!(anonymous.send().await.status, StatusCode::UNAUTHORIZED);
    let unknown = ts.admin.replay_dead_letter(Uuid::new_v4()).await;
    assert_refused(unknown, 404, "an unknown dead letter");

    let replay = || {
        ts.http(Method::POST, &path)
            .token(&ts.admin_token)
            .header("Idempotency-Key", "replay-1")
    };
    let first = replay().send().await;
    assert_eq!(first.status, StatusCode::OK);
    let replayed: DeadLetter = first.json();
    assert_eq!((replayed.attempts, replayed.dead_at), (0, None));
    let delivered = ts.delivery(hook.id, DeliveryStatus::Delivered).await;
    assert_eq!(delivered.id, failed.id);
    let codes: Vec<Option<u16>> = delivered
        .attempt_log
        .iter()
        .map(|a| a.status_code)
        .collect();
    assert_eq!(codes, [Some(500), Some(500), Some(200)]);
    let numbers: Vec<u32> = delivered.attempt_log.iter().map(|a| a.number).collect();
    assert_eq!(numbers, [1, 2, 3]);
    let retried = replay().send().await;
    assert_eq!(retried.header("Idempotency-Replayed"), Some("true"));
    assert_eq!(retried.json::<DeadLetter>(), replayed);
    assert_eq!(receiver.messages().len(), 3, "delivered once");
    assert!(
        ts.admin
            .dead_letters(100, 0)
            .await
            .unwrap()
            .items
            .is_empty()
    );

    // A deleted subscription's dead letters are gone with it: nothing more is sent to it.
    let other = ts.classic_event(4, Some(1)).await;
    let failing = Receiver::start(usize::MAX).await;
    let deleted = ts
        .subscribe(&other, &failing.url, &[WebhookEventType::RoundDrawn])
        .await;
    other.draw().await;
    let dead = dead_letters(&ts, 1).await;
    assert_eq!(dead[0].webhook_id, Some(deleted.id));
    let path = format!("/v1/webhooks/{}", deleted.id);
    let delete = ts.http(Method::DELETE, &path).token(&ts.admin_token);
    assert_eq!(delete.send().await.status, StatusCode::NO_CONTENT);
    let list = ts.admin.dead_letters(100, 0).await.unwrap();
    assert!(list.items.is_empty(), "{list:?}");
    let replay = ts.admin.replay_dead_letter(dead[0].id).await;
    assert_refused(replay, 404, "a deleted subscription's dead letter");
    ts.shutdown().await;
}
