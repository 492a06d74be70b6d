//! Issue 10, items 1, 3 and 6: the limits follow the client (its address, as the gateway tells
//! the services), not the player or the key it names.

use catan_api::Role;
use catan_e2e::http::{Answer, Method, StatusCode};
use catan_e2e::{spawn_suite_configured, spawn_suite_with_event};
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

const ATTACKER: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
const PLAYER: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);
const THIRD: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 4);

#[expect(
    clippy::expect_used,
    reason = "a test helper: a missing header fails the test"
)]
fn retry_after(answer: &Answer) -> u64 {
    assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS, "{answer:?}");
    assert!(answer.is_problem(), "{answer:?}");
    answer
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("seconds")
}

/// Item 1: an anonymous attacker's wrong PINs from one address slow that address down, with a
/// delay that doubles; the real player signs in from another address all along.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item1_wrong_pins_slow_down_the_caller_not_the_player() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let player = fx.entries[0].player_ids[0];
    let pin = fx.entries[0].pins.as_ref().expect("pins")[0].pin.clone();
    let wrong = format!(
        "{}{}",
        if pin.starts_with('A') { 'B' } else { 'A' },
        &pin[1..]
    );
    let sign_in = |from: Ipv4Addr, pin: &str| {
        let body = serde_json::json!({ "event_id": fx.event.id, "player_id": player, "pin": pin });
        ts.http_from(from, Method::POST, "/v1/auth/player-token")
            .json(&body)
            .send()
    };
    for _ in 0..5 {
        let guess = sign_in(ATTACKER, &wrong).await;
        assert_eq!(guess.status, StatusCode::UNAUTHORIZED, "{guess:?}");
    }
    let first_wait = retry_after(&sign_in(ATTACKER, &wrong).await);
    assert_eq!(first_wait, 1, "the first wait is a second");
    // The victim is not locked out: his right PIN from his table's address works.
    let signed = sign_in(PLAYER, &pin).await;
    assert_eq!(signed.status, StatusCode::OK, "{signed:?}");
    // Even the right PIN waits at the attacker's address: it is a delay, not a guess count.
    retry_after(&sign_in(ATTACKER, &pin).await);
    tokio::time::sleep(Duration::from_millis(1100 * first_wait)).await;
    let guess = sign_in(ATTACKER, &wrong).await;
    assert_eq!(guess.status, StatusCode::UNAUTHORIZED, "tried once waited");
    let second_wait = retry_after(&sign_in(ATTACKER, &wrong).await);
    assert!(
        second_wait > first_wait,
        "the wait grows: {first_wait} s, then {second_wait} s"
    );
    let signed = sign_in(PLAYER, &pin).await;
    assert_eq!(signed.status, StatusCode::OK, "{signed:?}");
    ts.shutdown().await;
}

/// Item 1: every caller together has a ceiling on PIN sign-ins, so many addresses cannot guess
/// at the speed of many.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item1_pin_sign_ins_of_every_caller_have_a_ceiling() {
    let ts = spawn_suite_configured(|settings| {
        settings.clients.pin_ceiling_per_second = 0.01;
        settings.clients.pin_ceiling_burst = 6.0;
    })
    .await;
    let fx = ts.classic_event(4, Some(1)).await;
    let player = fx.entries[0].player_ids[0];
    let body =
        serde_json::json!({ "event_id": fx.event.id, "player_id": player, "pin": "AAAAAAAA" });
    let mut statuses = Vec::new();
    for last in 2..10 {
        let from = Ipv4Addr::new(127, 0, 1, last);
        let answer = ts
            .http_from(from, Method::POST, "/v1/auth/player-token")
            .json(&body)
            .send()
            .await;
        statuses.push(answer.status.as_u16());
    }
    assert_eq!(statuses, [401, 401, 401, 401, 401, 401, 429, 429]);
    ts.shutdown().await;
}

/// Item 3: requests without a token are limited per client address (429 with `Retry-After` past
/// the burst); another address, and a caller with a token, are not held back, and a client cannot
/// pass for another by sending the gateway's headers itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item3_anonymous_reads_are_limited_per_client() {
    let ts = spawn_suite_configured(|settings| {
        // One request back every 20 s: a loaded machine never refills the budget mid-test.
        settings.clients.anonymous_per_second = 0.05;
        settings.clients.anonymous_burst = 10.0;
    })
    .await;
    let fx = ts.classic_event(4, Some(1)).await;
    let entries = format!("/v1/events/{}/entries", fx.event.id);
    let mut statuses = Vec::new();
    let mut refused = None;
    for _ in 0..15 {
        let answer = ts
            .http_from(ATTACKER, Method::GET, &entries)
            .header("x-catan-client-addr", "198.51.100.7")
            .header("x-catan-proxy-secret", "a guess")
            .send()
            .await;
        statuses.push(answer.status.as_u16());
        if answer.status == StatusCode::TOO_MANY_REQUESTS {
            refused = Some(answer);
        }
    }
    let served = statuses.iter().filter(|s| **s == 200).count();
    assert!((10..=11).contains(&served), "a burst of 10: {statuses:?}");
    assert_eq!(statuses.last(), Some(&429), "{statuses:?}");
    let wait = retry_after(&refused.expect("a refusal"));
    assert!((1..=20).contains(&wait), "at 0.05 a second: {wait} s");
    let other = ts.http_from(PLAYER, Method::GET, &entries).send().await;
    assert_eq!(
        other.status,
        StatusCode::OK,
        "another address has its own budget"
    );
    let keyed = ts
        .http_from(ATTACKER, Method::GET, &entries)
        .token(&ts.admin_token)
        .send()
        .await;
    assert_eq!(
        keyed.status,
        StatusCode::OK,
        "a key is held to its own limit"
    );
    let forged = ts
        .http_from(ATTACKER, Method::GET, &entries)
        .token("not.a.token")
        .send()
        .await;
    assert_eq!(
        forged.status,
        StatusCode::TOO_MANY_REQUESTS,
        "a bad token is none"
    );
    ts.shutdown().await;
}

/// Item 6: requests for a token are limited per client address, whatever key they name, so API
/// keys cannot be guessed at speed; the right key from another address still signs in at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item6_token_requests_are_limited_per_client() {
    let ts = spawn_suite_configured(|settings| {
        // One request back every 20 s: a loaded machine never refills the budget mid-test.
        settings.clients.sign_in_per_second = 0.05;
        settings.clients.sign_in_burst = 5.0;
    })
    .await;
    let guess = serde_json::json!({ "api_key": "ck_guess" });
    let mut statuses = Vec::new();
    let mut refused = None;
    for _ in 0..8 {
        let answer = ts
            .http_from(ATTACKER, Method::POST, "/v1/auth/token")
            .json(&guess)
            .send()
            .await;
        statuses.push(answer.status.as_u16());
        if answer.status == StatusCode::TOO_MANY_REQUESTS {
            refused = Some(answer);
        }
    }
    let answered = statuses.iter().filter(|s| **s == 401).count();
    assert!((5..=6).contains(&answered), "a burst of 5: {statuses:?}");
    assert_eq!(statuses.last(), Some(&429), "{statuses:?}");
    let wait = retry_after(&refused.expect("a refusal"));
    assert!((1..=20).contains(&wait), "at 0.05 a second: {wait} s");
    let right_key = serde_json::json!({ "api_key": ts.admin_key });
    let held = ts
        .http_from(ATTACKER, Method::POST, "/v1/auth/token")
        .json(&right_key)
        .send()
        .await;
    assert_eq!(
        held.status,
        StatusCode::TOO_MANY_REQUESTS,
        "the limit is the address's, not the key's"
    );
    let elsewhere = ts
        .http_from(PLAYER, Method::POST, "/v1/auth/token")
        .json(&right_key)
        .send()
        .await;
    assert_eq!(elsewhere.status, StatusCode::OK, "another address signs in");
    ts.shutdown().await;
}

/// Item 3: standings streams are capped per client and in total (429 with `Retry-After`), and a
/// closed stream frees its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item3_standings_streams_are_capped_per_client_and_in_total() {
    let ts = spawn_suite_configured(|settings| {
        settings.clients.streams_per_client = 2;
        settings.clients.streams_total = 3;
    })
    .await;
    let fx = ts.classic_event(4, Some(1)).await;
    ts.settled().await;
    let stream = format!("/v1/events/{}/standings/stream", fx.event.id);
    let open = |from: Ipv4Addr| ts.http_from(from, Method::GET, &stream).response();
    let first = open(ATTACKER).await;
    let second = open(ATTACKER).await;
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(second.status(), StatusCode::OK);
    let third = ts.http_from(ATTACKER, Method::GET, &stream).send().await;
    let wait = retry_after(&third);
    assert!(wait >= 1, "{third:?}");
    let elsewhere = open(PLAYER).await;
    assert_eq!(
        elsewhere.status(),
        StatusCode::OK,
        "another client's own cap"
    );
    let over_total = ts.http_from(THIRD, Method::GET, &stream).send().await;
    retry_after(&over_total);
    drop(first);
    let closed = Instant::now();
    let deadline = closed + Duration::from_secs(30);
    loop {
        let again = open(ATTACKER).await;
        if again.status() == StatusCode::OK {
            eprintln!("freed after {:?}", closed.elapsed());
            break;
        }
        assert!(
            Instant::now() < deadline,
            "a closed stream frees its place: {}",
            again.status()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop((second, elsewhere));
    ts.shutdown().await;
}

/// Item 6: the admin lists every key (paginated, never a secret) and revokes one; its tokens are
/// refused at once by every service, and it gets no new token.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item6_the_admin_lists_and_revokes_keys_and_a_revoked_key_stops_at_once_everywhere() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let second_admin = ts
        .admin
        .create_api_key(&catan_e2e::new_key("second admin", Role::Admin, None))
        .await
        .expect("a second admin key");
    let first = ts
        .http(Method::GET, "/v1/api-keys?limit=2")
        .token(&ts.admin_token)
        .send()
        .await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    assert_eq!(first.body().as_array().map(Vec::len), Some(2));
    assert!(
        first.header("link").is_some_and(|l| l.contains("offset=2")),
        "{first:?}"
    );
    let all = ts
        .http(Method::GET, "/v1/api-keys")
        .token(&ts.admin_token)
        .send()
        .await;
    let keys = all.body();
    let keys = keys.as_array().expect("a list");
    assert_eq!(
        keys.len(),
        4,
        "admin, director, scorer, second admin: {keys:?}"
    );
    assert!(
        !all.text.contains(&second_admin.api_key),
        "no secret is listed"
    );
    let director_id = keys
        .iter()
        .find(|k| k["role"] == "director")
        .map(|k| k["id"].as_str().expect("id").to_owned())
        .expect("the director's key");
    let director_token = ts.token(&fx.director_key).await;
    let listed_by_director = ts
        .http(Method::GET, "/v1/api-keys")
        .token(&director_token)
        .send()
        .await;
    assert_eq!(listed_by_director.status, StatusCode::FORBIDDEN);
    let admin_token = ts.token(&second_admin.api_key).await;
    let revoke = |id: String| {
        ts.http(Method::DELETE, &format!("/v1/api-keys/{id}"))
            .token(&ts.admin_token)
            .send()
    };
    // One call on each service with the tokens, before and after the revocation.
    let event = fx.event.id;
    let suite = &ts;
    let calls = async |director: &str, admin: &str| {
        let ts = suite;
        let season = uuid::Uuid::new_v4();
        let player = uuid::Uuid::new_v4();
        [
            ts.http(Method::POST, "/v1/players")
                .token(director)
                .json(&serde_json::json!({ "name": "Late entry" }))
                .send()
                .await
                .status,
            ts.http(Method::POST, &format!("/v1/events/{event}/rounds"))
                .token(director)
                .send()
                .await
                .status,
            ts.http(
                Method::POST,
                &format!("/v1/events/{event}/rounds/9/tables/1/result/confirm"),
            )
            .token(director)
            .send()
            .await
            .status,
            ts.http(
                Method::DELETE,
                &format!("/v1/seasons/{season}/qualified/{player}"),
            )
            .token(admin)
            .send()
            .await
            .status,
        ]
    };
    let before = calls(&director_token, &admin_token).await;
    assert!(
        !before.contains(&StatusCode::UNAUTHORIZED),
        "valid tokens: {before:?}"
    );
    assert_eq!(
        revoke(director_id.clone()).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        revoke(second_admin.id.to_string()).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        revoke(director_id).await.status,
        StatusCode::NOT_FOUND,
        "revoked already"
    );
    let configured = keys
        .iter()
        .find(|k| k["name"] == "admin (CATAN_ADMIN_KEY)")
        .map(|k| k["id"].as_str().expect("id").to_owned())
        .expect("the configured admin key");
    assert_eq!(
        revoke(configured).await.status,
        StatusCode::CONFLICT,
        "the configured admin key changes with the configuration"
    );
    let after = calls(&director_token, &admin_token).await;
    assert_eq!(
        after,
        [StatusCode::UNAUTHORIZED; 4],
        "registration, pairing, results and ranking refuse at once"
    );
    let again = ts
        .http(Method::POST, "/v1/auth/token")
        .json(&serde_json::json!({ "api_key": fx.director_key }))
        .send()
        .await;
    assert_eq!(again.status, StatusCode::UNAUTHORIZED, "no new token");
    let listed = ts
        .http(Method::GET, "/v1/api-keys")
        .token(&ts.admin_token)
        .send()
        .await
        .body();
    let revoked = listed
        .as_array()
        .expect("a list")
        .iter()
        .filter(|k| !k["revoked_at"].is_null())
        .count();
    assert_eq!(revoked, 2, "the list shows when: {listed}");
    ts.shutdown().await;
}

/// Item 6: when the configured admin key changes, the old one is revoked at start-up (its tokens
/// too, on every service); a weak configured admin key stops the start with a clear message.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item6_a_changed_admin_key_revokes_the_old_one_and_a_weak_one_is_refused() {
    let ts = catan_e2e::spawn_suite().await;
    let catan_e2e::TestSuite {
        suite,
        database_url,
        admin_key: old_key,
        admin_token: old_token,
        http_client,
        ..
    } = ts;
    suite.stop().await;
    let configured = |key: &str| {
        let mut settings = catan_kit::Settings::local(&database_url);
        settings.tokens.admin_key = Some(key.to_owned().into());
        settings
    };
    let weak = catan_suite::Suite::start(configured("admin-secret"), "127.0.0.1:0").await;
    let message = format!(
        "{:#}",
        weak.err().expect("a weak admin key stops the start")
    );
    assert!(
        message.contains("CATAN_ADMIN_KEY") && message.contains("too weak"),
        "{message}"
    );
    let new_key = format!("ck_new_admin_{}", uuid::Uuid::new_v4().simple());
    let suite = catan_suite::Suite::start(configured(&new_key), "127.0.0.1:0")
        .await
        .expect("the suite starts again");
    let anonymous = catan_api::ApiClient::new(&suite.url());
    let new_token = anonymous
        .token(&new_key)
        .await
        .expect("the new key")
        .access_token;
    let ts = catan_e2e::TestSuite {
        admin: anonymous.with_token(new_token.clone()),
        anonymous,
        suite,
        database_url,
        admin_key: new_key,
        admin_token: new_token,
        http_client,
    };
    let old = ts
        .http(Method::POST, "/v1/auth/token")
        .json(&serde_json::json!({ "api_key": old_key }))
        .send()
        .await;
    assert_eq!(
        old.status,
        StatusCode::UNAUTHORIZED,
        "the old key is revoked"
    );
    let region = serde_json::json!({ "name": "Anywhere" });
    let with_old = ts
        .http(Method::POST, "/v1/regions")
        .token(&old_token)
        .json(&region)
        .send()
        .await;
    assert_eq!(with_old.status, StatusCode::UNAUTHORIZED, "its token too");
    let season = uuid::Uuid::new_v4();
    let on_ranking = ts
        .http(
            Method::DELETE,
            &format!("/v1/seasons/{season}/qualified/{season}"),
        )
        .token(&old_token)
        .send()
        .await;
    assert_eq!(
        on_ranking.status,
        StatusCode::UNAUTHORIZED,
        "on every service"
    );
    let with_new = ts
        .http(Method::POST, "/v1/regions")
        .token(&ts.admin_token)
        .json(&region)
        .send()
        .await;
    assert_eq!(with_new.status, StatusCode::CREATED);
    ts.shutdown().await;
}

/// Item 3: a client without a token can get 429 from every operation (its address's budget is
/// taken before any routing), so the spec documents on every operation a 429 with a
/// problem+json body and a `Retry-After` header, and each real 429 is what is documented.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item3_every_operation_documents_the_429_a_client_without_a_token_gets() {
    let ts = spawn_suite_configured(|settings| {
        settings.clients.anonymous_per_second = 0.01;
        settings.clients.anonymous_burst = 2.0;
    })
    .await;
    let spec = ts.http(Method::GET, "/openapi.json").send().await.body();
    let operations: Vec<(Method, String, &serde_json::Value)> = spec["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .expect("a path item")
                .iter()
                .filter_map(|(method, operation)| {
                    let method = Method::from_bytes(method.to_uppercase().as_bytes()).ok()?;
                    Some((method, path.clone(), &operation["responses"]["429"]))
                })
        })
        .collect();
    assert!(operations.len() > 50, "{} operations", operations.len());
    let undocumented: Vec<String> = operations
        .iter()
        .filter(|(_, _, too_many)| {
            too_many["content"][catan_e2e::http::PROBLEM_JSON]["schema"]["$ref"]
                != "#/components/schemas/Problem"
                || too_many["headers"]["Retry-After"]["schema"]["type"] != "integer"
        })
        .map(|(method, path, _)| format!("{method} {path}"))
        .collect();
    assert!(
        undocumented.is_empty(),
        "without a documented 429 (problem+json, Retry-After): {undocumented:?}"
    );
    // Each operation answers the attacker the documented 429 once his budget (a burst of 2, on
    // each service) is spent.
    for (method, path, _) in &operations {
        let concrete = path
            .split('/')
            .map(|segment| match segment {
                "{number}" | "{round}" | "{table}" => "1".to_owned(),
                s if s.starts_with('{') => uuid::Uuid::new_v4().to_string(),
                s => s.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("/");
        let mut tries = 0;
        let answer = loop {
            let answer = ts
                .http_from(ATTACKER, method.clone(), &concrete)
                .json(&serde_json::json!({}))
                .send()
                .await;
            tries += 1;
            if answer.status == StatusCode::TOO_MANY_REQUESTS || tries == 3 {
                break answer;
            }
        };
        assert_eq!(
            answer.status,
            StatusCode::TOO_MANY_REQUESTS,
            "{method} {concrete}: {answer:?}"
        );
        assert!(retry_after(&answer) >= 1, "{method} {concrete}: {answer:?}");
    }
    let elsewhere = ts
        .http_from(PLAYER, Method::GET, "/v1/regions")
        .send()
        .await;
    assert_eq!(elsewhere.status, StatusCode::OK, "another address's budget");
    ts.shutdown().await;
}

/// Item 3: the web app reads the API on behalf of each visitor, telling it the visitor's address
/// with the proxy secret, so every visitor has his own budget of requests without a token: one
/// who spends his does not leave the others with error pages. A client cannot pass for another
/// visitor by sending the headers itself; an edge in front of the gateway with the secret can.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item3_each_visitor_of_the_web_app_has_his_own_budget() {
    use catan_kit::client::{CLIENT_ADDR_HEADER, PROXY_SECRET_HEADER};
    const SECRET: &str = "cps_an_edge_in_front_of_the_gateway";
    let ts = spawn_suite_configured(|settings| {
        settings.clients.anonymous_per_second = 0.01;
        settings.clients.anonymous_burst = 12.0;
        settings.clients.proxy_secret = Some(SECRET.to_owned().into());
    })
    .await;
    let home = |from: Ipv4Addr| ts.http_from(from, Method::GET, "/");
    let mut loads = 0;
    loop {
        let page = home(ATTACKER).send().await;
        if page.status != StatusCode::OK {
            assert_eq!(page.status, StatusCode::SERVICE_UNAVAILABLE, "{page:?}");
            break;
        }
        loads += 1;
        assert!(loads < 12, "every load reads the API without a token");
    }
    let visitor = home(PLAYER).send().await;
    assert_eq!(
        visitor.status,
        StatusCode::OK,
        "another visitor has his own budget"
    );
    // Passing for the other visitor neither frees the attacker nor spends the other's budget.
    for _ in 0..4 {
        let forged = home(ATTACKER)
            .header(CLIENT_ADDR_HEADER, &PLAYER.to_string())
            .header(PROXY_SECRET_HEADER, "a guess")
            .send()
            .await;
        assert_eq!(forged.status, StatusCode::SERVICE_UNAVAILABLE, "{forged:?}");
    }
    let visitor = home(PLAYER).send().await;
    assert_eq!(visitor.status, StatusCode::OK, "his budget is his own");
    // An edge with the secret is believed: the visitor it vouches for has a budget of his own.
    let behind_an_edge = home(ATTACKER)
        .header(CLIENT_ADDR_HEADER, "198.51.100.7")
        .header(PROXY_SECRET_HEADER, SECRET)
        .send()
        .await;
    assert_eq!(behind_an_edge.status, StatusCode::OK, "{behind_an_edge:?}");
    ts.shutdown().await;
}
