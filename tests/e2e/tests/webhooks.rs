//! Webhooks: signed deliveries of what happens in an event, retried until the receiver answers,
//! surviving restarts; and the live standings stream.

use catan_api::{
    ClientError, CreateWebhook, DeliveryStatus, Round, WebhookDelivery, WebhookEventType,
    WebhookMessage,
};
use catan_e2e::http::{Method, StatusCode, next_event};
use catan_e2e::webhooks::{Receiver, verified};
use catan_e2e::{
    EventFixture, assert_refused, eventually, fast_webhooks, problem_of, spawn_suite_with,
    spawn_suite_with_event,
};
use catan_kit::webhooks::WebhookSettings;
use catan_suite::Owner;
use diesel::{Connection, PgConnection, RunQueryDsl};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Duration;
use uuid::Uuid;

/// The first table's result of `round`, random but the same every time.
async fn post_first_result(fx: &EventFixture, round: &Round) -> catan_api::TableResult {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    fx.submit_random(round, &round.tables[0], &mut rng).await
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
    let hook = ts.subscribe(&fx, &receiver.url, &all).await;
    assert!(hook.secret.starts_with("whsec_"));
    // Another event's subscription gets nothing of this one.
    let other = ts.classic_event(4, Some(1)).await;
    let elsewhere = Receiver::start(0).await;
    ts.subscribe(&other, &elsewhere.url, &all).await;

    let round = fx.draw().await;
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

    // The receiver has each message before the deliverer records its answer.
    let deliveries = eventually(30, "three deliveries recorded", async || {
        let deliveries = ts.admin.webhook_deliveries(hook.id).await;
        let deliveries = deliveries.expect("deliveries").items;
        let recorded = deliveries
            .iter()
            .all(|d| d.status != DeliveryStatus::Pending);
        (deliveries.len() >= 3 && recorded).then_some(deliveries)
    })
    .await;
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
    let for_events = |event_ids: Option<Vec<Uuid>>| CreateWebhook {
        url: receiver.url.clone(),
        event_types: vec![WebhookEventType::ResultPosted],
        event_ids,
    };
    let own = fx
        .director
        .create_webhook(&for_events(Some(vec![fx.event.id])))
        .await
        .expect("a director subscribes to its event");
    for event_ids in [Some(vec![other.event.id]), None] {
        let refused = fx.director.create_webhook(&for_events(event_ids)).await;
        assert_refused(refused, 403, "not the director's events");
    }
    assert_refused(fx.scorer.webhook(own.id).await, 403, "a scorer");

    // Deleted: gone, and nothing more is sent to it.
    let hook_path = format!("/v1/webhooks/{}", hook.id);
    let deleted = ts.http(Method::DELETE, &hook_path).token(&ts.admin_token);
    assert_eq!(deleted.send().await.status, StatusCode::NO_CONTENT);
    assert_refused(ts.admin.webhook(hook.id).await, 404, "deleted");
    let deliveries = ts.admin.webhook_deliveries(hook.id).await;
    assert_refused(deliveries, 404, "deleted");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failed_delivery_is_retried_with_backoff_until_the_receiver_answers() {
    let ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(4, Some(1)).await;
    // Two 500s, then 200.
    let receiver = Receiver::start(2).await;
    let hook = ts
        .subscribe(&fx, &receiver.url, &[WebhookEventType::RoundDrawn])
        .await;
    fx.draw().await;

    let delivery: WebhookDelivery = ts.delivery(hook.id, DeliveryStatus::Delivered).await;
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
    let (fx, receiver, hook) = ts
        .event_with_receiver(usize::MAX, &[WebhookEventType::RoundDrawn])
        .await;
    fx.draw().await;
    let failed = ts.delivery(hook.id, DeliveryStatus::Failed).await;
    let last = (
        failed.attempts,
        failed.last_status_code,
        failed.next_attempt_at,
    );
    assert_eq!(last, (2, Some(500), None));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.messages().len(), 2, "no try after the last");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn events_wait_in_the_outbox_across_restarts_and_are_delivered_after() {
    let mut ts = spawn_suite_with(fast_webhooks()).await;
    let (fx, receiver, hook) = ts
        .event_with_receiver(0, &[WebhookEventType::ResultPosted])
        .await;
    let round = fx.draw().await;

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
    // The receiver has the message before the deliverer records its answer.
    ts.delivery(hook.id, DeliveryStatus::Delivered).await;
    let deliveries = ts.admin.webhook_deliveries(hook.id).await;
    let deliveries = deliveries.expect("deliveries").items;
    assert_eq!(deliveries.len(), 1, "delivered once");
    ts.shutdown().await;
}

/// A relay stopped between registration's answer and the removal of what it took (a crash, the
/// database away) relays those events again, as does one whose claim a crash lost: each is still
/// delivered once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_event_relayed_again_after_its_removal_was_lost_is_delivered_once() {
    let ts = spawn_suite_with(fast_webhooks()).await;
    let (fx, receiver, hook) = ts
        .event_with_receiver(0, &[WebhookEventType::ResultPosted])
        .await;
    let round = fx.draw().await;
    post_first_result(&fx, &round).await;
    let got = eventually(30, "the delivery", async || receiver.messages().pop()).await;
    let message = verified(&hook.secret, &got);
    let outbox_empty =
        async || (ts.count("SELECT count(*) AS n FROM results.outbox") == 0).then_some(());
    eventually(30, "the outbox to empty", outbox_empty).await;

    // The removal lost: the row is back in the outbox as it was written, with its id.
    let mut conn = PgConnection::establish(&ts.database_url).expect("test database");
    diesel::sql_query(
        "INSERT INTO results.outbox (id, event_type, event_id, payload) VALUES ($1, $2, $3, $4)",
    )
    .bind::<diesel::sql_types::Uuid, _>(message.id)
    .bind::<diesel::sql_types::Text, _>(message.event_type.as_str())
    .bind::<diesel::sql_types::Uuid, _>(message.event_id)
    .bind::<diesel::sql_types::Jsonb, _>(&message.data)
    .execute(&mut conn)
    .expect("the row back");
    // Empty again only once registration has answered the relay, after storing what it took.
    eventually(30, "the outbox to empty again", outbox_empty).await;

    let deliveries = ts.admin.webhook_deliveries(hook.id).await;
    let deliveries = deliveries.expect("deliveries").items;
    assert_eq!(deliveries.len(), 1, "delivered once: {deliveries:?}");
    assert_eq!(receiver.messages().len(), 1);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_delivery_leased_when_registration_stopped_is_sent_as_soon_as_it_is_back() {
    let mut ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(4, Some(1)).await;
    let receiver = Receiver::start(0).await;
    ts.subscribe(&fx, &receiver.url, &[WebhookEventType::ResultPosted])
        .await;
    let round = fx.draw().await;
    ts.suite.stop_service(Owner::Registration).await;
    post_first_result(&fx, &round).await;
    // The event reaches registration's inbox once it is back; meanwhile a delivery claimed by a
    // replica that then died holds a lease of minutes, as the claim leaves it.
    ts.suite
        .restart_service(Owner::Registration)
        .await
        .expect("registration restarts");
    eventually(30, "the delivery", async || receiver.messages().pop()).await;
    ts.suite.stop_service(Owner::Registration).await;
    let leased = ts.count(
        "WITH leased AS (UPDATE registration.webhook_deliveries \
         SET status = 'pending', next_attempt_at = now() + interval '10 minutes' RETURNING 1) \
         SELECT count(*) AS n FROM leased",
    );
    assert_eq!(leased, 1);
    let before = receiver.messages().len();
    ts.suite
        .restart_service(Owner::Registration)
        .await
        .expect("registration restarts");
    // Sent again within seconds, not after the lease.
    eventually(15, "the leased delivery", async || {
        (receiver.messages().len() > before).then_some(())
    })
    .await;
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
    let hook = |url: &str, event_types: Vec<WebhookEventType>| CreateWebhook {
        url: url.to_string(),
        event_types,
        event_ids: Some(vec![fx.event.id]),
    };
    let attempt = async |url: &str, types: Vec<WebhookEventType>| -> ClientError {
        ts.admin
            .create_webhook(&hook(url, types))
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
        let problem = problem_of(attempt(url, result_posted()).await);
        assert_eq!(problem.status, 422, "{url}");
        let first = &problem.errors[0];
        assert_eq!(
            (first.field.as_str(), first.code.as_str()),
            ("url", code),
            "{url}"
        );
    }
    // Every broken rule at once.
    let problem = problem_of(attempt("http://127.0.0.1/x", vec![]).await);
    let fields: Vec<&str> = problem.errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["url", "event_types"]);
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM registration.webhooks"),
        0
    );
    // A public address is accepted.
    ts.admin
        .create_webhook(&hook("http://8.8.8.8/hook", result_posted()))
        .await
        .expect("a public address");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_standings_stream_sends_the_standings_and_each_change_through_the_gateway() {
    let (ts, fx) = spawn_suite_with_event(8, Some(2)).await;
    let round = fx.draw().await;
    // Ranking answers 404 for an event it has not followed yet (a moment, longer on a busy
    // machine): the stream is opened once it knows the event.
    eventually(30, "ranking knows the event", async || {
        ts.anonymous.standings(fx.event.id).await.ok()
    })
    .await;
    let stream_of = |event: Uuid| format!("/v1/events/{event}/standings/stream");
    let mut stream = ts
        .http(Method::GET, &stream_of(fx.event.id))
        .response()
        .await;
    assert_eq!(stream.status(), 200);
    assert!(
        stream.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let mut buffer = String::new();
    // Ranking follows the entries a moment after registration takes them: the stream's first
    // standings may still miss some, and the stream sends them again once it has them all.
    let everyone = |s: &serde_json::Value| s["rows"].as_array().is_some_and(|r| r.len() == 8);
    let first = next_event(&mut stream, &mut buffer, "standings", everyone).await;
    assert_eq!(first["results_counted"], 0);

    let result = post_first_result(&fx, &round).await;
    let counted = |s: &serde_json::Value| s["results_counted"] == 1;
    let updated = next_event(&mut stream, &mut buffer, "standings", counted).await;
    let winner = result.scores.iter().max_by_key(|s| s.credited_vp).unwrap();
    assert_eq!(updated["rows"][0]["vp"], winner.credited_vp);
    drop(stream);

    let unknown = ts
        .http(Method::GET, &stream_of(Uuid::new_v4()))
        .send()
        .await;
    unknown.assert_problem(StatusCode::NOT_FOUND);
    ts.shutdown().await;
}
