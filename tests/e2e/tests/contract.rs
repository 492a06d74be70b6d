//! The HTTP contract's edges: what the framework answers by itself is problem+json too.

use catan_e2e::http::{Method, StatusCode};
use catan_e2e::spawn_suite_with_event;
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn framework_errors_are_problems_with_the_right_status() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let players = || ts.http(Method::POST, "/v1/players").token(&ts.admin_token);

    // Not JSON at all: 400. JSON of the wrong shape: 422 naming the field.
    let r = players().body("{").send().await;
    r.assert_problem(StatusCode::BAD_REQUEST);
    let r = players().json(&serde_json::json!({"name": 7})).send().await;
    r.assert_problem(StatusCode::UNPROCESSABLE_ENTITY);

    // A control character in a name is refused, not a server error.
    let r = players()
        .json(&serde_json::json!({"name": "a\u{0}b"}))
        .send()
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM registration.players WHERE name LIKE 'a%b'"),
        0
    );

    // A known path with another method: 405 with Allow.
    let rounds = format!("/v1/events/{}/rounds", fx.event.id);
    let r = ts
        .http(Method::DELETE, &rounds)
        .token(&ts.admin_token)
        .send()
        .await;
    r.assert_problem(StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.headers["allow"], "GET, POST");
    let r = ts.http(Method::PATCH, "/v1/players").send().await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    // A path another route would take as its parameter (a player's id) is still its own.
    let r = ts
        .http(Method::PATCH, "/v1/players/merge-candidates")
        .token(&ts.admin_token)
        .json(&serde_json::json!({"name": "Ana"}))
        .send()
        .await;
    r.assert_problem(StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.headers["allow"], "GET");

    // Lists of an event that does not exist: 404, not an empty list.
    let ghost = Uuid::new_v4();
    for path in [
        format!("/v1/events/{ghost}/rounds"),
        format!("/v1/events/{ghost}/results"),
        format!("/v1/events/{ghost}/rounds/1/results"),
        format!("/v1/events/{ghost}/rounds/1/tables/1/result/history"),
    ] {
        let r = ts.http(Method::GET, &path).send().await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
        assert!(r.is_problem(), "{path}");
    }
    // The draw's body is optional: `null` is no body.
    let r = ts
        .http(Method::POST, &rounds)
        .token(&ts.admin_token)
        .json_text("null");
    assert_eq!(r.send().await.status, StatusCode::CREATED);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_list_pages_with_a_clamped_limit_and_a_link_to_the_next_page() {
    let (ts, fx) = spawn_suite_with_event(5, Some(1)).await;
    let entries = format!("/v1/events/{}/entries", fx.event.id);
    let page = async |query: &str| {
        ts.http(Method::GET, &format!("{entries}?{query}"))
            .send()
            .await
    };
    let r = page("limit=2").await;
    let next = r.header("link").expect("link").to_string();
    assert!(
        next.contains("limit=2&offset=2") && next.ends_with("rel=\"next\""),
        "{next}"
    );
    let first: Vec<serde_json::Value> = r.json();
    let second: Vec<serde_json::Value> = page("limit=2&offset=2").await.json();
    let last = page("limit=2&offset=4").await;
    assert!(
        last.headers.get("link").is_none(),
        "a short page is the last"
    );
    let last: Vec<serde_json::Value> = last.json();
    assert_eq!((first.len(), second.len(), last.len()), (2, 2, 1));
    assert_ne!(first[0]["id"], second[0]["id"]);
    // Out-of-range limits are clamped, not refused.
    let all: Vec<serde_json::Value> = page("limit=5000&offset=-3").await.json();
    assert_eq!(all.len(), 5);
    let one: Vec<serde_json::Value> = page("limit=0").await.json();
    assert_eq!(one.len(), 1);
    // The typed client reads whole lists page by page.
    let listed = ts.anonymous.entries(fx.event.id).await.expect("entries");
    assert_eq!(listed.len(), 5);
    ts.shutdown().await;
}

/// Issue 10, item 1: the spec says what a PIN is as the server makes it (8 characters of the
/// alphabet without look-alikes): the PINs an entry gets fit `PlayerPin.pin`'s pattern, and the
/// sign-in's example fits the pattern `PlayerTokenRequest.pin` takes and signs in no one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item1_the_spec_describes_pins_as_the_server_makes_them() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let spec = ts.http(Method::GET, "/openapi.json").send().await.body();
    let schemas = &spec["components"]["schemas"];
    let pattern = |schema: &str| {
        let pattern = schemas[schema]["properties"]["pin"]["pattern"]
            .as_str()
            .unwrap_or_else(|| panic!("{schema}.pin has a pattern"));
        regex::Regex::new(pattern).expect("a pattern")
    };
    let issued = pattern("PlayerPin");
    for pin in fx.entries.iter().flat_map(|e| e.pins.iter().flatten()) {
        assert!(issued.is_match(&pin.pin), "{} fits {issued}", pin.pin);
    }
    let example = &schemas["PlayerTokenRequest"]["example"];
    let example_pin = example["pin"].as_str().expect("the example's pin");
    assert!(
        pattern("PlayerTokenRequest").is_match(example_pin),
        "the example {example_pin} fits the sign-in's pattern"
    );
    assert!(issued.is_match(example_pin), "an 8-character PIN");
    let signed = ts
        .http(Method::POST, "/v1/auth/player-token")
        .json(example)
        .send()
        .await;
    signed.assert_problem(StatusCode::UNAUTHORIZED);
    ts.shutdown().await;
}
