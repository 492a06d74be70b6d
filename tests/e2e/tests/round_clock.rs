//! A round's clock through the gateway (issue 32): the director's controls and the readings,
//! results that follow the clock, and the clock's webhooks.

use catan_api::{
    ClockActionKind, ClockChange, OutcomeKind, RoundClockNotice, RoundClockReading, RoundState,
    ScoreInput, SubmitResult, SubmitResults, TableSheet, WebhookEventType, WebhookMessage,
};
use catan_e2e::fixtures::{seated, won_by_first};
use catan_e2e::http::{Method, next_event};
use catan_e2e::webhooks::{Receiver, verified};
use catan_e2e::{
    EventFixture, assert_refused, eventually, fast_webhooks, names, problem_of, spawn_suite,
    spawn_suite_with, spawn_suite_with_event,
};
use chrono::{TimeDelta, Utc};
use std::time::Duration;
use uuid::Uuid;

fn change(action: ClockActionKind, minutes: Option<i64>, table: Option<u32>) -> ClockChange {
    ClockChange {
        action,
        minutes,
        table,
    }
}

async fn act(fx: &EventFixture, round: u32, change: ClockChange) -> RoundClockReading {
    fx.director
        .change_clock(fx.event.id, round, &change)
        .await
        .unwrap_or_else(|e| panic!("{change:?}: {e}"))
}

/// A game stopped at the time limit at the table's seats, with `reason` from whoever sends it.
fn stopped(players: &[Uuid], reason: Option<&str>) -> SubmitResult {
    SubmitResult {
        outcome: OutcomeKind::TimeLimit,
        winner_player_id: None,
        winner_entry_id: None,
        scores: players
            .iter()
            .zip([8, 7, 6, 5])
            .map(|(&player_id, vp)| ScoreInput {
                player_id,
                vp,
                breakdown: None,
            })
            .collect(),
        early_reason: reason.map(str::to_string),
        checked: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_director_starts_pauses_resumes_extends_and_ends_a_round_and_anyone_reads_it() {
    let (ts, fx) = spawn_suite_with_event(8, Some(2)).await;
    let round = fx.draw().await;
    let id = fx.event.id;

    // Before the start: no time, and the server's time to correct a client's clock by.
    let before = ts.anonymous.round_clock(id, 1).await.expect("clock");
    assert_eq!(before.state, RoundState::NotStarted);
    assert_eq!(before.tables.len(), round.tables.len());
    assert!(before.actions.is_empty() && before.ends_at.is_none());
    assert!((Utc::now() - before.server_time).abs() < TimeDelta::seconds(5));
    assert_refused(ts.anonymous.round_clock(id, 9).await, 404, "no round 9");
    let one = ts
        .anonymous
        .table_clock(id, 1, 2)
        .await
        .expect("a table's clock");
    assert_eq!(one.tables.iter().map(|t| t.table).collect::<Vec<_>>(), [2]);
    assert_refused(
        ts.anonymous.table_clock(id, 1, 99).await,
        404,
        "no table 99",
    );
    assert_refused(
        ts.anonymous.table_clock(id, 9, 1).await,
        404,
        "a table of no round 9",
    );
    // A number past the database's integers names no table either (it was a 500).
    assert_refused(
        ts.anonymous.table_clock(id, 1, 2_147_483_648).await,
        404,
        "no table 2147483648",
    );

    // Only the director acts, and only as the clock allows.
    let pause = change(ClockActionKind::Pause, None, None);
    assert_refused(fx.scorer.change_clock(id, 1, &pause).await, 403, "a scorer");
    assert_refused(
        fx.director.change_clock(id, 1, &pause).await,
        409,
        "not started",
    );

    let started = act(&fx, 1, change(ClockActionKind::Start, Some(30), None)).await;
    assert_eq!(started.state, RoundState::Running);
    assert_eq!(
        started.ends_at,
        Some(started.actions[0].at + TimeDelta::minutes(30))
    );
    assert_eq!(started.time_left_ms, Some(30 * 60_000));
    let again = change(ClockActionKind::Start, Some(30), None);
    assert_refused(
        fx.director.change_clock(id, 1, &again).await,
        409,
        "started twice",
    );
    let zero = change(ClockActionKind::ExtendRound, Some(0), None);
    let problem = problem_of(assert_refused(
        fx.director.change_clock(id, 1, &zero).await,
        422,
        "0 minutes",
    ));
    assert!(
        names(&problem, Some("minutes"), "out_of_range"),
        "{problem:?}"
    );
    let no_table = change(ClockActionKind::ExtendTable, Some(5), Some(99));
    let problem = problem_of(assert_refused(
        fx.director.change_clock(id, 1, &no_table).await,
        422,
        "table 99",
    ));
    assert!(
        names(&problem, Some("table"), "out_of_range"),
        "{problem:?}"
    );

    // A pause freezes every table's time and the clock has no end until it resumes.
    let paused = act(&fx, 1, pause).await;
    assert_eq!(paused.state, RoundState::Paused);
    assert!(paused.ends_at.is_none());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let still = ts.anonymous.round_clock(id, 1).await.expect("clock");
    assert_eq!(still.time_left_ms, paused.time_left_ms);
    assert!(still.server_time > paused.server_time);
    let resumed = act(&fx, 1, change(ClockActionKind::Resume, None, None)).await;
    assert_eq!(resumed.state, RoundState::Running);
    let left = resumed.time_left_ms.expect("time left");
    assert_eq!(
        resumed.ends_at,
        Some(resumed.server_time + TimeDelta::milliseconds(left))
    );

    // Extending the round moves every table; a table's extra minutes move that table alone.
    let extended = act(&fx, 1, change(ClockActionKind::ExtendRound, Some(5), None)).await;
    let round_end = extended.ends_at.expect("an end");
    assert_eq!(
        round_end,
        resumed.ends_at.expect("an end") + TimeDelta::minutes(5)
    );
    let late = act(
        &fx,
        1,
        change(ClockActionKind::ExtendTable, Some(10), Some(1)),
    )
    .await;
    let table = |reading: &RoundClockReading, n: u32| {
        *reading
            .tables
            .iter()
            .find(|t| t.table == n)
            .expect("the table")
    };
    assert_eq!(table(&late, 1).extra_minutes, 10);
    assert_eq!(
        table(&late, 1).ends_at,
        Some(round_end + TimeDelta::minutes(10))
    );
    assert_eq!(table(&late, 2).ends_at, Some(round_end));

    // Ending early stops every table, extra minutes too, and nothing follows the end.
    let ended = act(&fx, 1, change(ClockActionKind::EndEarly, None, None)).await;
    assert_eq!(ended.state, RoundState::Ended);
    assert!(
        ended
            .tables
            .iter()
            .all(|t| t.time_up && t.time_left_ms == Some(0))
    );
    let more = change(ClockActionKind::ExtendTable, Some(5), Some(2));
    assert_refused(
        fx.director.change_clock(id, 1, &more).await,
        409,
        "after the end",
    );
    let read = ts.anonymous.round_clock(id, 1).await.expect("clock");
    assert_eq!(read.actions.len(), 6, "{:?}", read.actions);
    let late_table = ts.anonymous.table_clock(id, 1, 1).await.expect("table 1");
    assert_eq!(late_table.tables[0].extra_minutes, 10);
    assert_eq!(late_table.actions, read.actions);
    assert!(read.actions.windows(2).all(|w| w[0].at <= w[1].at));
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_time_limit_sheet_waits_for_the_tables_time_unless_the_director_says_why() {
    let (ts, fx) = spawn_suite_with_event(12, Some(2)).await;
    let round = fx.draw().await;
    let id = fx.event.id;
    let players = |n: usize| seated(&round.tables[n]);
    act(&fx, 1, change(ClockActionKind::Start, Some(1), None)).await;

    // Before the end: refused on `outcome`, whatever a scorer says, and nothing is stored.
    for sheet in [
        stopped(&players(0), None),
        stopped(&players(0), Some("they agreed")),
    ] {
        let refused = fx.scorer.submit_result(id, 1, 1, &sheet).await;
        let problem = problem_of(assert_refused(refused, 422, "time not up"));
        assert!(
            names(&problem, Some("outcome"), "time_not_up"),
            "{problem:?}"
        );
    }
    // So in a batch: that sheet alone is refused, for the same reason.
    let batch = SubmitResults {
        sheets: vec![TableSheet {
            table: 1,
            sheet: stopped(&players(0), None),
        }],
    };
    let outcome = fx
        .scorer
        .submit_results(id, 1, &batch)
        .await
        .expect("a batch");
    let problem = outcome.results[0].problem.clone().expect("refused");
    assert_eq!(outcome.results[0].status, 422);
    assert!(
        names(&problem, Some("outcome"), "time_not_up"),
        "{problem:?}"
    );
    assert_eq!(ts.count("SELECT count(*) AS n FROM results.results"), 0);
    // A game won is taken at any time.
    fx.submit(1, 2, &won_by_first(&players(1), &[10, 7, 6, 5]))
        .await;
    // The director may stop a game early, saying why: the audit trail keeps the reason.
    let blank = stopped(&players(2), Some("  "));
    let problem = problem_of(assert_refused(
        fx.director.submit_result(id, 1, 3, &blank).await,
        422,
        "blank",
    ));
    assert!(
        names(&problem, Some("early_reason"), "invalid_reason"),
        "{problem:?}"
    );
    let why = "A player was taken ill";
    let early = stopped(&players(2), Some(why));
    fx.director
        .submit_result(id, 1, 3, &early)
        .await
        .expect("taken early");
    let kept = format!(
        "SELECT count(*) AS n FROM results.audit_log WHERE targets->>'early_reason' = '{why}'"
    );
    assert_eq!(ts.count(&kept), 1);

    // Once the table's time is up the sheet is taken as any other.
    act(&fx, 1, change(ClockActionKind::EndEarly, None, None)).await;
    let result = fx.submit(1, 1, &stopped(&players(0), None)).await;
    assert_eq!(result.table, 1);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_clocks_webhooks_arrive_once_each_with_their_times() {
    let ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(8, Some(2)).await;
    let receiver = Receiver::start(0).await;
    let types = [
        WebhookEventType::RoundStarted,
        WebhookEventType::RoundEnding,
        WebhookEventType::RoundEnded,
    ];
    let hook = ts.subscribe(&fx, &receiver.url, &types).await;
    fx.draw().await;
    // Three minutes, less than the ending notice's five: `round.ending` is due at the start.
    let started = act(&fx, 1, change(ClockActionKind::Start, Some(3), None)).await;
    let ended = act(&fx, 1, change(ClockActionKind::EndEarly, None, None)).await;

    let received = eventually(30, "three notices", async || {
        let got = receiver.messages();
        (got.len() >= 3).then_some(got)
    })
    .await;
    // The ticker runs on: nothing is sent twice.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut messages: Vec<WebhookMessage> = receiver
        .messages()
        .iter()
        .map(|m| verified(&hook.secret, m))
        .collect();
    assert_eq!(messages.len(), 3, "each once: {received:?}");
    let notice = |m: &WebhookMessage| -> RoundClockNotice {
        serde_json::from_value(m.data.clone()).expect("a notice")
    };
    messages.sort_by_key(|m| {
        (
            notice(m).due_at,
            types.iter().position(|&t| t == m.event_type),
        )
    });
    let kinds: Vec<WebhookEventType> = messages.iter().map(|m| m.event_type).collect();
    assert_eq!(kinds, types);
    let start = started.actions[0].at;
    let [on_start, ending, on_end] = [0, 1, 2].map(|i| notice(&messages[i]));
    assert_eq!((on_start.due_at, on_start.announces), (start, start));
    assert_eq!(
        (ending.due_at, ending.announces),
        (start, start + TimeDelta::minutes(3))
    );
    let end = ended.actions[1].at;
    assert_eq!((on_end.due_at, on_end.announces), (end, end));
    assert!(
        messages
            .iter()
            .all(|m| m.event_id == fx.event.id && notice(m).round == 1)
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_clock_stream_sends_each_change_through_the_gateway() {
    let (ts, fx) = spawn_suite_with_event(8, Some(2)).await;
    fx.draw().await;
    let path = format!("/v1/events/{}/rounds/1/clock/stream", fx.event.id);
    let missing = ts.http(
        Method::GET,
        &format!("/v1/events/{}/rounds/7/clock/stream", fx.event.id),
    );
    assert_eq!(missing.response().await.status(), 404);
    let mut stream = ts.http(Method::GET, &path).response().await;
    assert_eq!(stream.status(), 200);
    let content_type = stream.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let mut buffer = String::new();
    let state = |wanted: &'static str| move |c: &serde_json::Value| c["state"] == wanted;
    let first = next_event(&mut stream, &mut buffer, "clock", state("not_started")).await;
    assert!(first["server_time"].is_string());

    act(&fx, 1, change(ClockActionKind::Start, Some(20), None)).await;
    let running = next_event(&mut stream, &mut buffer, "clock", state("running")).await;
    assert_eq!(running["actions"].as_array().map(Vec::len), Some(1));
    act(&fx, 1, change(ClockActionKind::Pause, None, None)).await;
    let paused = next_event(&mut stream, &mut buffer, "clock", state("paused")).await;
    assert!(paused["ends_at"].is_null());
    act(&fx, 1, change(ClockActionKind::Resume, None, None)).await;
    act(
        &fx,
        1,
        change(ClockActionKind::ExtendTable, Some(5), Some(2)),
    )
    .await;
    let extended = |c: &serde_json::Value| c["actions"].as_array().map(Vec::len) == Some(4);
    let late = next_event(&mut stream, &mut buffer, "clock", extended).await;
    assert_eq!(late["tables"][1]["extra_minutes"], 5);
    act(&fx, 1, change(ClockActionKind::EndEarly, None, None)).await;
    next_event(&mut stream, &mut buffer, "clock", state("ended")).await;
    drop(stream);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_round_starts_with_the_events_minutes_per_game_else_the_rules_ninety() {
    let ts = spawn_suite().await;
    let start = change(ClockActionKind::Start, None, None);
    let set = catan_api::CreateEvent {
        qualifying_rounds: Some(2),
        minutes_per_game: Some(45),
        ..catan_api::CreateEvent::classic(&format!("Quick open {}", Uuid::new_v4().simple()))
    };
    let quick = ts.classic_event_as(&set, 8).await;
    assert_eq!(quick.event.minutes_per_game, Some(45));
    quick.draw().await;
    let started = act(&quick, 1, start.clone()).await;
    assert_eq!(started.time_left_ms, Some(45 * 60_000));

    let usual = ts.classic_event(8, Some(2)).await;
    assert_eq!(usual.event.minutes_per_game, Some(90));
    usual.draw().await;
    let started = act(&usual, 1, start).await;
    assert_eq!(started.time_left_ms, Some(90 * 60_000));

    let too_long = catan_api::CreateEvent {
        minutes_per_game: Some(601),
        ..catan_api::CreateEvent::classic("Endless open")
    };
    let problem = problem_of(assert_refused(
        ts.admin.create_event(&too_long).await,
        422,
        "601",
    ));
    assert!(
        names(&problem, Some("minutes_per_game"), "out_of_range"),
        "{problem:?}"
    );
    ts.shutdown().await;
}

/// A round started 90 seconds ago with 1 minute, as its log would hold it: what the ticker finds
/// when a round's time runs out, without a test waiting for it.
#[expect(
    clippy::expect_used,
    reason = "a test helper: a database that cannot be written fails the test"
)]
fn started_long_ago(database_url: &str, event_id: Uuid) {
    use diesel::{Connection, PgConnection, RunQueryDsl};
    let mut conn = PgConnection::establish(database_url).expect("test database");
    diesel::sql_query(format!(
        "INSERT INTO pairing.round_clock_actions (event_id, round, seq, at, action, taken_by) \
         VALUES ('{event_id}', 1, 1, date_trunc('milliseconds', now()) - interval '90 seconds', \
         '{{\"kind\": \"start\", \"minutes\": 1}}', '{event_id}')"
    ))
    .execute(&mut conn)
    .expect("a start in the log");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_round_whose_time_ran_out_is_announced_once_and_takes_time_limit_sheets() {
    let ts = spawn_suite_with(fast_webhooks()).await;
    let fx = ts.classic_event(8, Some(2)).await;
    let receiver = Receiver::start(0).await;
    let types = [
        WebhookEventType::RoundStarted,
        WebhookEventType::RoundEnding,
        WebhookEventType::RoundEnded,
    ];
    let hook = ts.subscribe(&fx, &receiver.url, &types).await;
    let round = fx.draw().await;
    started_long_ago(&ts.database_url, fx.event.id);

    let clock = ts
        .anonymous
        .round_clock(fx.event.id, 1)
        .await
        .expect("clock");
    assert_eq!(clock.state, RoundState::Ended);
    let start = clock.actions[0].at;
    let end = start + TimeDelta::minutes(1);
    assert_eq!(clock.ends_at, Some(end));
    // The ticker finds the three notices due, and sends each once.
    eventually(30, "three notices", async || {
        (receiver.messages().len() >= 3).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let notices: Vec<(WebhookEventType, RoundClockNotice)> = receiver
        .messages()
        .iter()
        .map(|m| verified(&hook.secret, m))
        .map(|m| {
            (
                m.event_type,
                serde_json::from_value(m.data).expect("a notice"),
            )
        })
        .collect();
    assert_eq!(notices.len(), 3, "{notices:?}");
    let of = |wanted: WebhookEventType| {
        let found = notices.iter().find(|(t, _)| *t == wanted).expect("sent");
        (found.1.due_at, found.1.announces)
    };
    assert_eq!(of(WebhookEventType::RoundStarted), (start, start));
    // One minute is less than the five of the lead: the ending was due at the start.
    assert_eq!(of(WebhookEventType::RoundEnding), (start, end));
    assert_eq!(of(WebhookEventType::RoundEnded), (end, end));

    // The time is up: a game stopped at the limit is taken from the scorer.
    let result = fx
        .submit(1, 1, &stopped(&seated(&round.tables[0]), None))
        .await;
    assert_eq!(result.version, 1);
    ts.shutdown().await;
}
