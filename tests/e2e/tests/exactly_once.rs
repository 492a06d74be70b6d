//! Exactly-once writes: Idempotency-Key on POST and PUT, and If-Match on corrections.

use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{assert_refused, spawn_suite_with_event};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_retry_with_the_same_key_returns_the_first_response_and_writes_nothing_more() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let post = |token: &str, key: &str, name: &str| {
        ts.http(Method::POST, "/v1/players")
            .token(token)
            .header("Idempotency-Key", key)
            .json(&serde_json::json!({ "name": name }))
            .send()
    };
    let named = |name: &str| {
        ts.count(&format!(
            "SELECT count(*) AS n FROM registration.players WHERE name = '{name}'"
        ))
    };
    let first = post(&ts.admin_token, "player-1", "Ada").await;
    assert_eq!(first.status, StatusCode::CREATED);
    let again = post(&ts.admin_token, "player-1", "Ada").await;
    assert_eq!(again.status, StatusCode::CREATED);
    assert_eq!(again.headers["idempotency-replayed"], "true");
    assert_eq!(again.body(), first.body());
    assert_eq!(named("Ada"), 1);

    // The same key with another body is refused, and writes nothing.
    let other = post(&ts.admin_token, "player-1", "Bob").await;
    other.assert_problem(StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(named("Bob"), 0);

    // Keys belong to the API key that sent them: another key may use the same one.
    let director_token = ts.token(&fx.director_key).await;
    let theirs = post(&director_token, "player-1", "Bob").await;
    assert_eq!(theirs.status, StatusCode::CREATED);
    assert_eq!(named("Bob"), 1);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn fifty_concurrent_requests_with_one_key_write_once() {
    let (ts, fx) = spawn_suite_with_event(8, Some(1)).await;
    let rounds = format!("/v1/events/{}/rounds", fx.event.id);
    let draw = || {
        ts.http(Method::POST, &rounds)
            .token(&ts.admin_token)
            .header("Idempotency-Key", "draw-round-1")
            .json(&serde_json::json!({}))
            .send()
    };
    let calls: Vec<_> = (0..50).map(|_| tokio::spawn(draw())).collect();
    let mut created = Vec::new();
    let mut in_progress = 0;
    for call in calls {
        let response = call.await.expect("task");
        match response.status {
            StatusCode::CREATED => created.push(response.body()),
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
    let retry = draw().await;
    assert_eq!(retry.status, StatusCode::CREATED);
    assert_eq!(retry.body(), created[0]);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn corrections_need_the_current_etag_and_of_two_racing_corrections_one_wins() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let first = fx.draw_and_sheet(&[10, 7, 5, 3]).await;
    let with_second = |vp: i64| {
        let mut sheet = first.clone();
        sheet.scores[1].vp = vp;
        sheet
    };
    fx.submit(1, 1, &first).await;
    let (_, etag) = ts
        .anonymous
        .result_with_etag(fx.event.id, 1, 1)
        .await
        .expect("result");
    assert_eq!(etag, "\"v1\"");

    let (eight, nine) = (with_second(8), with_second(9));
    let missing = fx.director.submit_result(fx.event.id, 1, 1, &eight).await;
    assert_refused(missing, 428, "no If-Match");
    let stale = fx
        .director
        .correct_result(fx.event.id, 1, 1, &eight, "\"v7\"")
        .await;
    assert_refused(stale, 412, "stale");
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM results.result_versions"),
        1
    );

    // Two directors correct at once from the same version: exactly one wins.
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
