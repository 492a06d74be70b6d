//! Exactly-once writes: Idempotency-Key on POST and PUT, and If-Match on corrections.

use catan_api::DrawRound;
use catan_e2e::{TestSuite, spawn_suite, won_by_first};
use reqwest::StatusCode;
use uuid::Uuid;

async fn admin_token(ts: &TestSuite) -> String {
    ts.anonymous
        .token(&ts.admin_key)
        .await
        .expect("token")
        .access_token
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_retry_with_the_same_key_returns_the_first_response_and_writes_nothing_more() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(4, Some(1)).await;
    let http = reqwest::Client::new();
    let token = admin_token(&ts).await;
    let url = format!("{}/v1/players", ts.suite.url());
    let post = |key: &'static str, name: &'static str| {
        http.post(&url)
            .bearer_auth(&token)
            .header("Idempotency-Key", key)
            .json(&serde_json::json!({ "name": name }))
            .send()
    };
    let first = post("player-1", "Ada").await.expect("first");
    assert_eq!(first.status(), StatusCode::CREATED);
    let first_body: serde_json::Value = first.json().await.expect("body");
    let again = post("player-1", "Ada").await.expect("retry");
    assert_eq!(again.status(), StatusCode::CREATED);
    assert_eq!(again.headers()["idempotency-replayed"], "true");
    assert_eq!(
        again.json::<serde_json::Value>().await.expect("body"),
        first_body
    );
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM registration.players WHERE name = 'Ada'"),
        1
    );

    // The same key with another body is refused, and writes nothing.
    let other = post("player-1", "Bob").await.expect("other body");
    assert_eq!(other.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(other.headers()["content-type"], "application/problem+json");
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM registration.players WHERE name = 'Bob'"),
        0
    );

    // Keys belong to the API key that sent them: another key may use the same one.
    let director_token = ts
        .anonymous
        .token(&fx.director_key)
        .await
        .expect("token")
        .access_token;
    let theirs = http
        .post(&url)
        .bearer_auth(&director_token)
        .header("Idempotency-Key", "player-1")
        .json(&serde_json::json!({ "name": "Bob" }))
        .send()
        .await
        .expect("another key");
    assert_eq!(theirs.status(), StatusCode::CREATED);
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM registration.players WHERE name = 'Bob'"),
        1
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn fifty_concurrent_requests_with_one_key_write_once() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(8, Some(1)).await;
    let token = admin_token(&ts).await;
    let http = reqwest::Client::new();
    let draw_url = format!("{}/v1/events/{}/rounds", ts.suite.url(), fx.event.id);
    let mut calls = Vec::new();
    for _ in 0..50 {
        let request = http
            .post(&draw_url)
            .bearer_auth(&token)
            .header("Idempotency-Key", "draw-round-1")
            .json(&serde_json::json!({}))
            .send();
        calls.push(tokio::spawn(request));
    }
    let mut created = Vec::new();
    let mut in_progress = 0;
    for call in calls {
        let response = call.await.expect("task").expect("answer");
        match response.status() {
            StatusCode::CREATED => {
                created.push(response.json::<serde_json::Value>().await.expect("round"))
            }
            StatusCode::CONFLICT => in_progress += 1,
            other => panic!("unexpected {other}"),
        }
    }
    assert!(!created.is_empty());
    assert!(
        created.iter().all(|r| r == &created[0]),
        "every success is the first response"
    );
    assert_eq!(created.len() + in_progress, 50);
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM pairing.rounds"),
        1,
        "exactly one write"
    );
    // Once the first has finished, a retry gets its response.
    let retry = http
        .post(&draw_url)
        .bearer_auth(&token)
        .header("Idempotency-Key", "draw-round-1")
        .json(&serde_json::json!({}))
        .send()
        .await
        .expect("retry");
    assert_eq!(retry.status(), StatusCode::CREATED);
    assert_eq!(
        retry.json::<serde_json::Value>().await.expect("round"),
        created[0]
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn corrections_need_the_current_etag_and_of_two_racing_corrections_one_wins() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(4, Some(1)).await;
    let round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");
    let players: Vec<Uuid> = round.tables[0].seats.iter().map(|s| s.player_id).collect();
    fx.scorer
        .submit_result(fx.event.id, 1, 1, &won_by_first(&players, &[10, 7, 5, 3]))
        .await
        .expect("posted");
    let (_, etag) = ts
        .anonymous
        .result_with_etag(fx.event.id, 1, 1)
        .await
        .expect("result");
    assert_eq!(etag, "\"v1\"");

    let missing = fx
        .director
        .submit_result(fx.event.id, 1, 1, &won_by_first(&players, &[10, 8, 5, 3]))
        .await
        .expect_err("no If-Match");
    assert_eq!(missing.status(), Some(428));
    let stale = fx
        .director
        .correct_result(
            fx.event.id,
            1,
            1,
            &won_by_first(&players, &[10, 8, 5, 3]),
            "\"v7\"",
        )
        .await
        .expect_err("stale");
    assert_eq!(stale.status(), Some(412));
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM results.result_versions"),
        1
    );

    // Two directors correct at once from the same version: exactly one wins.
    let (eight, nine) = (
        won_by_first(&players, &[10, 8, 5, 3]),
        won_by_first(&players, &[10, 9, 5, 3]),
    );
    let (a, b) = tokio::join!(
        fx.director.correct_result(fx.event.id, 1, 1, &eight, &etag),
        fx.director.correct_result(fx.event.id, 1, 1, &nine, &etag),
    );
    let outcomes = [
        a.as_ref().map(|r| r.version).map_err(|e| e.status()),
        b.as_ref().map(|r| r.version).map_err(|e| e.status()),
    ];
    assert_eq!(
        outcomes.iter().filter(|o| **o == Ok(2)).count(),
        1,
        "{outcomes:?}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| **o == Err(Some(412))).count(),
        1,
        "{outcomes:?}"
    );
    let history = ts
        .anonymous
        .result_history(fx.event.id, 1, 1)
        .await
        .expect("history");
    assert_eq!(history.items.len(), 2);
    let (current, etag) = ts
        .anonymous
        .result_with_etag(fx.event.id, 1, 1)
        .await
        .expect("result");
    assert_eq!((current.version, etag.as_str()), (2, "\"v2\""));
    ts.shutdown().await;
}
