//! The HTTP contract's edges: what the framework answers by itself is problem+json too.

use catan_e2e::spawn_suite;
use reqwest::StatusCode;
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn framework_errors_are_problems_with_the_right_status() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(4, Some(1)).await;
    let http = reqwest::Client::new();
    let token = ts
        .anonymous
        .token(&ts.admin_key)
        .await
        .expect("token")
        .access_token;
    let base = ts.suite.url();
    let problem = |r: &reqwest::Response| r.headers()["content-type"] == "application/problem+json";

    // Not JSON at all: 400. JSON of the wrong shape: 422 naming the field.
    let r = http
        .post(format!("{base}/v1/players"))
        .bearer_auth(&token)
        .body("{")
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(problem(&r));
    let r = http
        .post(format!("{base}/v1/players"))
        .bearer_auth(&token)
        .json(&serde_json::json!({"name": 7}))
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(problem(&r));

    // A control character in a name is refused, not a server error.
    let r = http
        .post(format!("{base}/v1/players"))
        .bearer_auth(&token)
        .json(&serde_json::json!({"name": "a\u{0}b"}))
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM registration.players WHERE name LIKE 'a%b'"),
        0
    );

    // A known path with another method: 405 with Allow.
    let r = http
        .delete(format!("{base}/v1/events/{}/rounds", fx.event.id))
        .bearer_auth(&token)
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert!(problem(&r));
    assert_eq!(r.headers()["allow"], "GET, POST");
    let r = http
        .patch(format!("{base}/v1/players"))
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);

    // Lists of an event that does not exist: 404, not an empty list.
    let ghost = Uuid::new_v4();
    for path in [
        format!("/v1/events/{ghost}/rounds"),
        format!("/v1/events/{ghost}/results"),
        format!("/v1/events/{ghost}/rounds/1/results"),
        format!("/v1/events/{ghost}/rounds/1/tables/1/result/history"),
    ] {
        let r = http
            .get(format!("{base}{path}"))
            .send()
            .await
            .expect("answer");
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{path}");
        assert!(problem(&r), "{path}");
    }
    // The draw's body is optional: `null` is no body.
    let r = http
        .post(format!("{base}/v1/events/{}/rounds", fx.event.id))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body("null")
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status(), StatusCode::CREATED);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_list_pages_with_a_clamped_limit_and_a_link_to_the_next_page() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(5, Some(1)).await;
    let http = reqwest::Client::new();
    let base = ts.suite.url();
    let entries = format!("{base}/v1/events/{}/entries", fx.event.id);
    let r = http
        .get(format!("{entries}?limit=2"))
        .send()
        .await
        .expect("page 1");
    let next = r.headers()["link"].to_str().expect("link").to_string();
    assert!(
        next.contains("limit=2&offset=2") && next.ends_with("rel=\"next\""),
        "{next}"
    );
    let first: Vec<serde_json::Value> = r.json().await.expect("json");
    let second: Vec<serde_json::Value> = http
        .get(format!("{entries}?limit=2&offset=2"))
        .send()
        .await
        .expect("page 2")
        .json()
        .await
        .expect("json");
    let last = http
        .get(format!("{entries}?limit=2&offset=4"))
        .send()
        .await
        .expect("page 3");
    assert!(
        last.headers().get("link").is_none(),
        "a short page is the last"
    );
    let last: Vec<serde_json::Value> = last.json().await.expect("json");
    assert_eq!((first.len(), second.len(), last.len()), (2, 2, 1));
    assert_ne!(first[0]["id"], second[0]["id"]);
    // Out-of-range limits are clamped, not refused.
    let all: Vec<serde_json::Value> = http
        .get(format!("{entries}?limit=5000&offset=-3"))
        .send()
        .await
        .expect("clamped")
        .json()
        .await
        .expect("json");
    assert_eq!(all.len(), 5);
    let one: Vec<serde_json::Value> = http
        .get(format!("{entries}?limit=0"))
        .send()
        .await
        .expect("clamped")
        .json()
        .await
        .expect("json");
    assert_eq!(one.len(), 1);
    // The typed client reads whole lists page by page.
    assert_eq!(
        ts.anonymous
            .entries(fx.event.id)
            .await
            .expect("entries")
            .len(),
        5
    );
    ts.shutdown().await;
}
