//! One test for each item of the OWASP API Security Top 10 (2023) that applies to this API.

use catan_api::{CreateApiKey, CreatePlayer, DrawRound, Role};
use catan_e2e::{spawn_suite, won_by_first};
use catan_suite::Owner;
use reqwest::StatusCode;
use uuid::Uuid;

/// API1: a key (or a player) reaches only the objects of its own events and tables.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api1_broken_object_level_authorization() {
    let ts = spawn_suite().await;
    let a = ts.classic_event(4, Some(1)).await;
    let b = ts.classic_event(4, Some(1)).await;
    let round_b = b
        .director
        .draw_round(b.event.id, &DrawRound::default())
        .await
        .expect("draw");
    let players_b: Vec<Uuid> = round_b.tables[0]
        .seats
        .iter()
        .map(|s| s.player_id)
        .collect();
    assert_eq!(
        a.scorer
            .submit_result(b.event.id, 1, 1, &won_by_first(&players_b, &[10, 6, 5, 4]))
            .await
            .expect_err("A's scorer on B")
            .status(),
        Some(403)
    );
    let drop = catan_api::DropEntry {
        reason: "x".into(),
        exclude: true,
    };
    assert_eq!(
        a.director
            .drop_entry(b.event.id, b.entries[0].id, &drop)
            .await
            .expect_err("A's director on B")
            .status(),
        Some(403)
    );
    b.scorer
        .submit_result(b.event.id, 1, 1, &won_by_first(&players_b, &[10, 6, 5, 4]))
        .await
        .expect("B's scorer");
    // A player of event A cannot sign event B's sheet, even knowing its ids.
    let pin = a.entries[0].pins.as_ref().expect("pins")[0].pin.clone();
    let token = ts
        .anonymous
        .player_token(a.event.id, a.entries[0].player_ids[0], &pin)
        .await
        .expect("token")
        .access_token;
    let player = ts.anonymous.with_token(token);
    assert_eq!(
        player
            .confirm_result(b.event.id, 1, 1)
            .await
            .expect_err("other event")
            .status(),
        Some(403)
    );
    ts.shutdown().await;
}

/// API2: tokens are checked (signature, algorithm, expiry, audience) and PINs cannot be guessed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api2_broken_authentication() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(4, Some(1)).await;
    let key = ts.signing_key();
    let mut expired = catan_kit::auth::claims_for(
        Uuid::new_v4(),
        Role::Admin,
        None,
        std::time::Duration::from_secs(60),
    );
    expired.exp -= 3600;
    for token in [key.sign(&expired).unwrap(), "e30.e30.".to_string()] {
        let err = ts
            .anonymous
            .with_token(token)
            .create_player(&CreatePlayer {
                name: "x".into(),
                region_id: None,
            })
            .await;
        assert_eq!(err.expect_err("refused").status(), Some(401));
    }
    let player = fx.entries[0].player_ids[0];
    let pin = fx.entries[0].pins.as_ref().expect("pins")[0].pin.clone();
    let wrong = if pin == "123456" { "654321" } else { "123456" };
    let mut statuses = Vec::new();
    for _ in 0..7 {
        statuses.push(
            ts.anonymous
                .player_token(fx.event.id, player, wrong)
                .await
                .expect_err("wrong")
                .status(),
        );
    }
    assert!(
        statuses.ends_with(&[Some(429), Some(429)]),
        "guessing is locked out: {statuses:?}"
    );
    ts.shutdown().await;
}

/// API3: clients cannot set properties they do not own (ids, roles beyond theirs), and
/// responses do not expose secrets.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api3_broken_object_property_level_authorization() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(4, Some(1)).await;
    let http = reqwest::Client::new();
    let token = ts
        .anonymous
        .token(&ts.admin_key)
        .await
        .expect("token")
        .access_token;
    let chosen = Uuid::new_v4();
    let r = http
        .post(format!("{}/v1/players", ts.suite.url()))
        .bearer_auth(&token)
        .json(&serde_json::json!({ "name": "Mallory", "id": chosen, "created_at": "2000-01-01T00:00:00Z" }))
        .send()
        .await
        .expect("answer");
    let player: serde_json::Value = r.json().await.expect("json");
    assert_ne!(
        player["id"],
        serde_json::json!(chosen),
        "the server gives ids"
    );
    assert_ne!(player["created_at"], "2000-01-01T00:00:00Z");
    let escalate = CreateApiKey {
        name: "mine".into(),
        role: Role::Admin,
        event_ids: None,
    };
    assert_eq!(
        fx.director
            .create_api_key(&escalate)
            .await
            .expect_err("no escalation")
            .status(),
        Some(403)
    );
    // Secrets and PINs are shown once, at creation, and never listed.
    let listed = http
        .get(format!(
            "{}/v1/events/{}/entries",
            ts.suite.url(),
            fx.event.id
        ))
        .send()
        .await
        .expect("entries");
    let text = listed.text().await.expect("text");
    assert!(!text.contains("pin") && !text.contains("secret"), "{text}");
    ts.shutdown().await;
}

/// API4: bodies, pages and request rates are bounded.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api4_unrestricted_resource_consumption() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(3, Some(1)).await;
    let http = reqwest::Client::new();
    let token = ts
        .anonymous
        .token(&ts.admin_key)
        .await
        .expect("token")
        .access_token;
    let huge = serde_json::json!({ "name": "x".repeat(100_000) });
    let r = http
        .post(format!("{}/v1/players", ts.suite.url()))
        .bearer_auth(&token)
        .json(&huge)
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let r = http
        .get(format!(
            "{}/v1/events/{}/entries?limit=100000000",
            ts.suite.url(),
            fx.event.id
        ))
        .send()
        .await
        .expect("answer");
    assert_eq!(
        r.status(),
        StatusCode::OK,
        "an absurd page size is clamped, not served"
    );
    let feed = http
        .get(format!(
            "{}/v1/events/{}/results?limit=999999",
            ts.suite.url(),
            fx.event.id
        ))
        .send()
        .await
        .expect("answer");
    assert_eq!(feed.status(), StatusCode::OK);
    ts.shutdown().await;
}

/// API5: functions belong to roles: scorers post results, directors run their events, admins
/// run the federation.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api5_broken_function_level_authorization() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(4, Some(1)).await;
    assert_eq!(
        fx.scorer
            .draw_round(fx.event.id, &DrawRound::default())
            .await
            .expect_err("scorer draws")
            .status(),
        Some(403)
    );
    let new_event = catan_api::CreateEvent::classic("Rogue");
    assert_eq!(
        fx.director
            .create_event(&new_event)
            .await
            .expect_err("director creates events")
            .status(),
        Some(403)
    );
    let http = reqwest::Client::new();
    let director = ts
        .anonymous
        .token(&fx.director_key)
        .await
        .expect("token")
        .access_token;
    let r = http
        .post(format!("{}/v1/admin/signing-keys", ts.suite.url()))
        .bearer_auth(director)
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let player_key = CreateApiKey {
        name: "p".into(),
        role: Role::Player,
        event_ids: Some(vec![fx.event.id]),
    };
    assert_eq!(
        ts.admin
            .create_api_key(&player_key)
            .await
            .expect_err("players have no keys")
            .status(),
        Some(422)
    );
    ts.shutdown().await;
}

/// API6: the business flow cannot be abused by repetition: a retried or replayed result posts
/// once, and a recorded result changes only by the director's explicit correction.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api6_unrestricted_access_to_sensitive_business_flows() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(4, Some(1)).await;
    let round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");
    let players: Vec<Uuid> = round.tables[0].seats.iter().map(|s| s.player_id).collect();
    for _ in 0..3 {
        fx.scorer
            .submit_result(fx.event.id, 1, 1, &won_by_first(&players, &[10, 6, 5, 4]))
            .await
            .expect("same sheet");
    }
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM results.result_versions"),
        1
    );
    let mut other = won_by_first(&players, &[10, 6, 5, 4]);
    other.scores[1].vp = 9;
    assert_eq!(
        fx.scorer
            .submit_result(fx.event.id, 1, 1, &other)
            .await
            .expect_err("overwrite")
            .status(),
        Some(409)
    );
    assert_eq!(
        fx.director
            .submit_result(fx.event.id, 1, 1, &other)
            .await
            .expect_err("blind overwrite")
            .status(),
        Some(428)
    );
    ts.shutdown().await;
}

/// API7: webhook URLs that point into the deployment's own network are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api7_server_side_request_forgery() {
    let ts = spawn_suite().await;
    let http = reqwest::Client::new();
    let token = ts
        .anonymous
        .token(&ts.admin_key)
        .await
        .expect("token")
        .access_token;
    for url in [
        "http://127.0.0.1:5432/",
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.7/hook",
        "file:///etc/passwd",
    ] {
        let r = http
            .post(format!("{}/v1/webhooks", ts.suite.url()))
            .bearer_auth(&token)
            .json(&serde_json::json!({ "url": url, "event_types": ["result.posted"] }))
            .send()
            .await
            .expect("answer");
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{url}");
    }
    ts.shutdown().await;
}

/// API8: errors are uniform problem documents that leak nothing internal.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api8_security_misconfiguration() {
    let ts = spawn_suite().await;
    let http = reqwest::Client::new();
    for (method, path) in [
        ("GET", "/v1/../../etc/passwd"),
        ("GET", "/v1/events/not-a-uuid"),
        ("TRACE", "/v1/players"),
    ] {
        let r = http
            .request(
                reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
                format!("{}{path}", ts.suite.url()),
            )
            .send()
            .await
            .expect("answer");
        assert!(
            r.status().is_client_error(),
            "{method} {path}: {}",
            r.status()
        );
        assert_eq!(
            r.headers()["content-type"],
            "application/problem+json",
            "{method} {path}"
        );
        let body = r.text().await.expect("text");
        assert!(
            !body.contains("panicked") && !body.contains("diesel") && !body.contains("postgres"),
            "{body}"
        );
    }
    ts.shutdown().await;
}

/// API9: the documented inventory is the served one: the committed OpenAPI document is what the
/// suite serves.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api9_improper_inventory_management() {
    let ts = spawn_suite().await;
    let served: serde_json::Value = reqwest::get(format!("{}/openapi.json", ts.suite.url()))
        .await
        .expect("spec")
        .json()
        .await
        .expect("json");
    let committed: serde_json::Value =
        serde_json::from_str(include_str!("../../../openapi/openapi.json"))
            .expect("committed spec");
    assert_eq!(served, committed);
    ts.shutdown().await;
}

/// API10: what a peer service answers is not trusted blindly: when the results service is down,
/// ranking answers from its own copy and says so, rather than failing or inventing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api10_unsafe_consumption_of_apis() {
    let mut ts = spawn_suite().await;
    let fx = ts.classic_event(4, Some(1)).await;
    let round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");
    let players: Vec<Uuid> = round.tables[0].seats.iter().map(|s| s.player_id).collect();
    fx.scorer
        .submit_result(fx.event.id, 1, 1, &won_by_first(&players, &[10, 6, 5, 4]))
        .await
        .expect("result");
    assert_eq!(
        ts.anonymous
            .standings(fx.event.id)
            .await
            .expect("standings")
            .results_counted,
        1
    );
    ts.suite.stop_service(Owner::Results).await;
    let r = reqwest::get(format!(
        "{}/v1/events/{}/standings",
        ts.suite.url(),
        fx.event.id
    ))
    .await
    .expect("answer");
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers().get("warning").is_some(),
        "stale standings are marked"
    );
    let body: serde_json::Value = r.json().await.expect("json");
    assert_eq!(body["results_counted"], 1);
    ts.suite
        .restart_service(Owner::Results)
        .await
        .expect("restart");
    ts.shutdown().await;
}
