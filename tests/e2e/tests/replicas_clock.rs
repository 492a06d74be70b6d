//! A round's clock under `catan-suite up --replicas 2` (issue 32): the director's actions reach
//! through the gateway whichever pairing replica takes them, a clock stream held by one replica
//! sends the changes made on the other, and each notice goes out once though both replicas'
//! tickers look for it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

use catan_api::{
    ApiClient, ClockActionKind, ClockChange, CreateEntry, CreateEvent, CreateWebhook, DrawRound,
    RoundClockNotice, WebhookEventType,
};
use catan_e2e::http::next_event;
use catan_e2e::webhooks::{Receiver, verified};
use catan_e2e::{eventually, new_player};
use diesel::{Connection, PgConnection, RunQueryDsl};
use std::time::Duration;
use uuid::Uuid;

#[path = "common/launcher.rs"]
mod launcher;
use launcher::Launcher;

/// A classic event of `players` players entered by the admin, its first round drawn.
async fn event_drawn(admin: &ApiClient, name: &str, players: usize) -> Uuid {
    let body = CreateEvent {
        qualifying_rounds: Some(2),
        ..CreateEvent::classic(name)
    };
    let event = admin.create_event(&body).await.unwrap().id;
    for i in 0..players {
        let player = admin
            .create_player(&new_player(&format!("{name} {i}")))
            .await
            .unwrap()
            .id;
        admin
            .create_entry(event, &CreateEntry::player(player))
            .await
            .unwrap();
    }
    admin
        .draw_round(event, &DrawRound::default())
        .await
        .unwrap();
    event
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_clock_is_one_across_replicas_and_each_notice_goes_out_once() {
    let database_url = tokio::task::spawn_blocking(catan_e2e::fresh_database)
        .await
        .unwrap()
        .expect("a fresh test database");
    let admin_key = format!("ck_test_admin_{}", Uuid::new_v4().simple());
    let launcher = Launcher::start(
        &database_url,
        &admin_key,
        &[
            ("CATAN_WEBHOOKS_ALLOW_PRIVATE", "true"),
            ("CATAN_WEBHOOKS_POLL_MS", "100"),
        ],
    );
    let url = launcher
        .printed(120, "the gateway's URL", |line| {
            line.strip_prefix("Catan tournament API on ")
                .and_then(|rest| rest.split_whitespace().next())
                .map(str::to_owned)
        })
        .await;
    let anonymous = ApiClient::new(&url);
    let token = anonymous.token(&admin_key).await.unwrap().access_token;
    let admin = anonymous.with_token(token);
    let played = event_drawn(&admin, "Replicated clock open", 8).await;
    let ran_out = event_drawn(&admin, "Replicated late open", 4).await;
    let receiver = Receiver::start(0).await;
    let hook = admin
        .create_webhook(&CreateWebhook {
            url: receiver.url.clone(),
            event_types: vec![
                WebhookEventType::RoundStarted,
                WebhookEventType::RoundEnding,
                WebhookEventType::RoundEnded,
            ],
            event_ids: Some(vec![played, ran_out]),
        })
        .await
        .unwrap();

    // One stream, held by one pairing replica; the gateway spreads the actions over both.
    let path = format!("{url}/v1/events/{played}/rounds/1/clock/stream");
    let mut stream = reqwest::Client::new().get(path).send().await.unwrap();
    assert_eq!(stream.status(), 200);
    let mut buffer = String::new();
    next_event(&mut stream, &mut buffer, "clock", |c| {
        c["state"] == "not_started"
    })
    .await;
    let actions = [
        (ClockActionKind::Start, Some(30), None),
        (ClockActionKind::Pause, None, None),
        (ClockActionKind::Resume, None, None),
        (ClockActionKind::ExtendRound, Some(5), None),
        (ClockActionKind::ExtendTable, Some(5), Some(1)),
        (ClockActionKind::EndEarly, None, None),
    ];
    for (taken, (action, minutes, table)) in actions.into_iter().enumerate() {
        let change = ClockChange {
            action,
            minutes,
            table,
        };
        admin.change_clock(played, 1, &change).await.unwrap();
        let logged =
            |c: &serde_json::Value| c["actions"].as_array().map(Vec::len) == Some(taken + 1);
        next_event(&mut stream, &mut buffer, "clock", logged).await;
    }
    drop(stream);

    // A round started 90 s ago with 1 minute: both replicas' tickers find its three notices due.
    let mut conn = PgConnection::establish(&database_url).unwrap();
    diesel::sql_query(format!(
        "INSERT INTO pairing.round_clock_actions (event_id, round, seq, at, action, taken_by) \
         VALUES ('{ran_out}', 1, 1, date_trunc('milliseconds', now()) - interval '90 seconds', \
         '{{\"kind\": \"start\", \"minutes\": 1}}', '{ran_out}')"
    ))
    .execute(&mut conn)
    .unwrap();
    // The played round: started and ended early; the late one: started, ending, ended.
    eventually(30, "five notices", async || {
        (receiver.messages().len() >= 5).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let mut sent: Vec<(Uuid, WebhookEventType, RoundClockNotice)> = receiver
        .messages()
        .iter()
        .map(|m| verified(&hook.secret, m))
        .map(|m| {
            (
                m.event_id,
                m.event_type,
                serde_json::from_value(m.data).unwrap(),
            )
        })
        .collect();
    sent.sort_by_key(|(event, kind, notice)| (*event == ran_out, notice.due_at, kind.as_str()));
    let kinds: Vec<(bool, WebhookEventType)> =
        sent.iter().map(|(e, k, _)| (*e == ran_out, *k)).collect();
    assert_eq!(
        kinds,
        [
            (false, WebhookEventType::RoundStarted),
            (false, WebhookEventType::RoundEnded),
            (true, WebhookEventType::RoundEnding),
            (true, WebhookEventType::RoundStarted),
            (true, WebhookEventType::RoundEnded),
        ],
        "each once: {sent:?}"
    );
    launcher.stop();
}
