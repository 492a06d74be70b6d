//! One test for each item of the OWASP API Security Top 10 (2023) that applies to this API.

use catan_api::{DrawRound, Role};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{
    assert_refused, new_key, new_player, spawn_suite, spawn_suite_configured,
    spawn_suite_with_event,
};
use catan_suite::Owner;
use uuid::Uuid;

/// API1: a key (or a player) reaches only the objects of its own events and tables.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api1_broken_object_level_authorization() {
    let (ts, a) = spawn_suite_with_event(4, Some(1)).await;
    let b = ts.classic_event(4, Some(1)).await;
    let sheet = b.draw_and_sheet(&[10, 6, 5, 4]).await;
    let on_b = a.scorer.submit_result(b.event.id, 1, 1, &sheet).await;
    assert_refused(on_b, 403, "A's scorer on B");
    let drop = catan_api::DropEntry {
        reason: "x".into(),
        exclude: true,
    };
    let dropped = a
        .director
        .drop_entry(b.event.id, b.entries[0].id, &drop)
        .await;
    assert_refused(dropped, 403, "A's director on B");
    b.submit(1, 1, &sheet).await;
    // A player of event A cannot sign event B's sheet, even knowing its ids.
    let pin = &a.entries[0].pins.as_ref().expect("pins")[0].pin;
    let player = ts
        .player_client(a.event.id, a.entries[0].player_ids[0], pin)
        .await;
    let signed = player.confirm_result(b.event.id, 1, 1).await;
    assert_refused(signed, 403, "other event");
    ts.shutdown().await;
}

/// API2: tokens are checked (signature, algorithm, expiry, audience) and PINs cannot be guessed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api2_broken_authentication() {
    // A sign-in budget that a loaded machine cannot refill while the guesses are sent (the
    // defaults' 5 a second outpace a busy CI machine's slow key checks).
    let ts = spawn_suite_configured(|settings| {
        settings.clients.sign_in_per_second = 0.05;
        settings.clients.sign_in_burst = 40.0;
    })
    .await;
    let fx = ts.classic_event(4, Some(1)).await;
    let key = ts.signing_key();
    let mut expired = catan_kit::auth::claims_for(
        Uuid::new_v4(),
        Role::Admin,
        None,
        std::time::Duration::from_secs(60),
    );
    expired.exp -= 3600;
    let body = new_player("x");
    for token in [key.sign(&expired).unwrap(), "e30.e30.".to_string()] {
        let created = ts.anonymous.with_token(token).create_player(&body).await;
        assert_refused(created, 401, "refused");
    }
    let player = fx.entries[0].player_ids[0];
    let pin = fx.entries[0].pins.as_ref().expect("pins")[0].pin.clone();
    let wrong = if pin == "123456" { "654321" } else { "123456" };
    let mut statuses = Vec::new();
    for _ in 0..7 {
        let guess = ts.anonymous.player_token(fx.event.id, player, wrong).await;
        statuses.push(guess.expect_err("wrong").status());
    }
    assert!(
        statuses.ends_with(&[Some(429), Some(429)]),
        "guessing is slowed down: {statuses:?}"
    );
    // The wait is the guesser's: the player signs in from his own address (issue 10, item 1).
    let body = serde_json::json!({ "event_id": fx.event.id, "player_id": player, "pin": pin });
    let elsewhere = std::net::Ipv4Addr::new(127, 0, 0, 5);
    let signed = ts.http_from(elsewhere, Method::POST, "/v1/auth/player-token");
    assert_eq!(signed.json(&body).send().await.status, StatusCode::OK);
    // API keys cannot be guessed at speed either: token requests are limited per address.
    let guesser = std::net::Ipv4Addr::new(127, 0, 0, 6);
    let guess = serde_json::json!({ "api_key": "ck_guess" });
    let mut answers = Vec::new();
    // Ten at a time: one by one, a loaded machine can send them slower than the budget refills.
    while answers.len() < 400 && !answers.contains(&429) {
        let tries = (0..10).map(|_| {
            ts.http_from(guesser, Method::POST, "/v1/auth/token")
                .json(&guess)
                .send()
        });
        let statuses = futures_util::future::join_all(tries).await;
        answers.extend(statuses.iter().map(|r| r.status.as_u16()));
    }
    assert!(answers.contains(&429), "{answers:?}");
    assert!(
        answers.iter().all(|s| *s == 401 || *s == 429),
        "{answers:?}"
    );
    assert!(
        ts.anonymous.token(&ts.admin_key).await.is_ok(),
        "another address signs in"
    );
    ts.shutdown().await;
}

/// API3: clients cannot set properties they do not own (ids, roles beyond theirs), and
/// responses do not expose secrets.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api3_broken_object_property_level_authorization() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let chosen = Uuid::new_v4();
    let mallory = serde_json::json!({ "name": "Mallory", "id": chosen, "created_at": "2000-01-01T00:00:00Z" });
    let created = ts.http(Method::POST, "/v1/players").token(&ts.admin_token);
    let player = created.json(&mallory).send().await.body();
    assert_ne!(
        player["id"],
        serde_json::json!(chosen),
        "the server gives ids"
    );
    assert_ne!(player["created_at"], "2000-01-01T00:00:00Z");
    let escalate = new_key("mine", Role::Admin, None);
    let escalated = fx.director.create_api_key(&escalate).await;
    assert_refused(escalated, 403, "no escalation");
    // Secrets and PINs are shown once, at creation, and never listed.
    let entries = format!("/v1/events/{}/entries", fx.event.id);
    let text = ts.http(Method::GET, &entries).send().await.text;
    assert!(!text.contains("pin") && !text.contains("secret"), "{text}");
    ts.shutdown().await;
}

/// API4: bodies, pages and request rates are bounded.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api4_unrestricted_resource_consumption() {
    let (ts, fx) = spawn_suite_with_event(3, Some(1)).await;
    let huge = serde_json::json!({ "name": "x".repeat(100_000) });
    let r = ts.http(Method::POST, "/v1/players").token(&ts.admin_token);
    assert_eq!(
        r.json(&huge).send().await.status,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    let entries = format!("/v1/events/{}/entries?limit=100000000", fx.event.id);
    assert_eq!(
        ts.http(Method::GET, &entries).send().await.status,
        StatusCode::OK,
        "an absurd page size is clamped, not served"
    );
    let feed = format!("/v1/events/{}/results?limit=999999", fx.event.id);
    assert_eq!(
        ts.http(Method::GET, &feed).send().await.status,
        StatusCode::OK
    );
    // A client keeps at most 10 standings streams open (issue 10, item 3).
    ts.settled().await;
    let stream = format!("/v1/events/{}/standings/stream", fx.event.id);
    let from = std::net::Ipv4Addr::new(127, 0, 0, 7);
    let mut open = Vec::new();
    for _ in 0..10 {
        let r = ts.http_from(from, Method::GET, &stream).response().await;
        assert_eq!(r.status(), StatusCode::OK);
        open.push(r);
    }
    let over = ts.http_from(from, Method::GET, &stream).send().await;
    assert_eq!(over.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(over.header("retry-after").is_some(), "{over:?}");
    drop(open);
    ts.shutdown().await;
}

/// API5: functions belong to roles: scorers post results, directors run their events, admins
/// run the federation.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api5_broken_function_level_authorization() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let drawn = fx
        .scorer
        .draw_round(fx.event.id, &DrawRound::default())
        .await;
    assert_refused(drawn, 403, "scorer draws");
    let new_event = catan_api::CreateEvent::classic("Rogue");
    let created = fx.director.create_event(&new_event).await;
    assert_refused(created, 403, "director creates events");
    let director = ts.token(&fx.director_key).await;
    let rotate = ts.http(Method::POST, "/v1/admin/signing-keys");
    assert_eq!(
        rotate.token(&director).send().await.status,
        StatusCode::FORBIDDEN
    );
    let player_key = new_key("p", Role::Player, Some(vec![fx.event.id]));
    let keyed = ts.admin.create_api_key(&player_key).await;
    assert_refused(keyed, 422, "players have no keys");
    ts.shutdown().await;
}

/// API6: the business flow cannot be abused by repetition: a retried or replayed result posts
/// once, and a recorded result changes only by the director's explicit correction.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api6_unrestricted_access_to_sensitive_business_flows() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let sheet = fx.draw_and_sheet(&[10, 6, 5, 4]).await;
    for _ in 0..3 {
        fx.submit(1, 1, &sheet).await;
    }
    let versions = "SELECT count(*) AS n FROM results.result_versions";
    assert_eq!(ts.count(versions), 1);
    let mut other = sheet.clone();
    other.scores[1].vp = 9;
    let by_scorer = fx.scorer.submit_result(fx.event.id, 1, 1, &other).await;
    assert_refused(by_scorer, 409, "overwrite");
    let by_director = fx.director.submit_result(fx.event.id, 1, 1, &other).await;
    assert_refused(by_director, 428, "blind overwrite");
    ts.shutdown().await;
}

/// API7: webhook URLs that point into the deployment's own network are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api7_server_side_request_forgery() {
    let ts = spawn_suite().await;
    for url in [
        "http://127.0.0.1:5432/",
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.7/hook",
        "file:///etc/passwd",
    ] {
        let hook = serde_json::json!({ "url": url, "event_types": ["result.posted"] });
        let r = ts.http(Method::POST, "/v1/webhooks").token(&ts.admin_token);
        let status = r.json(&hook).send().await.status;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{url}");
    }
    ts.shutdown().await;
}

/// API8: errors are uniform problem documents that leak nothing internal.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api8_security_misconfiguration() {
    let ts = spawn_suite().await;
    for (method, path) in [
        (Method::GET, "/v1/no-such-route"),
        (Method::GET, "/v1/events/not-a-uuid"),
        (Method::TRACE, "/v1/players"),
    ] {
        let r = ts.http(method.clone(), path).send().await;
        assert!(r.status.is_client_error(), "{method} {path}: {}", r.status);
        assert!(r.is_problem(), "{method} {path}");
        let body = r.text;
        assert!(
            !body.contains("panicked") && !body.contains("diesel") && !body.contains("postgres"),
            "{body}"
        );
    }
    // The client resolves the dot segments (plain or percent-encoded) to `/etc/passwd`, a page
    // the web app does not have: its 404 page, never a file. (The gateway's own refusal of dot
    // segments that reach it is item 2 of hardening.rs, sent raw.)
    let r = ts.http(Method::GET, "/v1/../../etc/passwd").send().await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{r:?}");
    assert!(!r.text.contains("root:"), "{}", r.text);
    ts.shutdown().await;
}

/// API9: the documented inventory is the served one: the committed OpenAPI document is what the
/// suite serves.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api9_improper_inventory_management() {
    let ts = spawn_suite().await;
    let served = ts.http(Method::GET, "/openapi.json").send().await.body();
    let committed: serde_json::Value =
        serde_json::from_str(include_str!("../../../openapi/openapi.json"))
            .expect("committed spec");
    assert_eq!(served, committed);
    ts.shutdown().await;
}

/// API10: what a peer service answers is not trusted blindly: when the results service is down,
/// ranking answers from its own copy and says so (once its follower has found it down), rather
/// than failing or inventing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api10_unsafe_consumption_of_apis() {
    let (mut ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let sheet = fx.draw_and_sheet(&[10, 6, 5, 4]).await;
    fx.submit(1, 1, &sheet).await;
    let counted = ts.standings(fx.event.id).await;
    assert_eq!(counted.results_counted, 1);
    ts.suite.stop_service(Owner::Results).await;
    ts.failing_feed_noticed("results").await;
    let standings = format!("/v1/events/{}/standings", fx.event.id);
    let r = ts.http(Method::GET, &standings).send().await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(
        r.headers.get("warning").is_some(),
        "stale standings are marked"
    );
    assert_eq!(r.body()["results_counted"], 1);
    ts.suite
        .restart_service(Owner::Results)
        .await
        .expect("restart");
    ts.shutdown().await;
}
