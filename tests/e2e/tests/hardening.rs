//! The findings of the outside review (issue 10), one test per item.

use catan_api::CreateEvent;
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{
    assert_refused, names, new_player, problem_of, spawn_suite, spawn_suite_with_event,
};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Sends `request_line` (and a `Host` header) over a plain TCP connection, byte for byte: no
/// client gets to normalise the path. Answers the status and the whole answer as text.
async fn raw(base_url: &str, request_line: &str) -> (u16, String) {
    let addr = base_url.trim_start_matches("http://");
    let request = format!(
        "{request_line}\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    );
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await?;
        stream.write_all(request.as_bytes()).await?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await?;
        std::io::Result::Ok(answer)
    };
    let answer = match tokio::time::timeout(Duration::from_secs(10), exchange).await {
        Ok(Ok(answer)) => String::from_utf8_lossy(&answer).into_owned(),
        Ok(Err(e)) => panic!("the exchange failed: {e}"),
        Err(_) => panic!("no answer within 10 s"),
    };
    match answer.split(' ').nth(1).map(str::parse) {
        Some(Ok(status)) => (status, answer),
        _ => panic!("no status line: {answer}"),
    }
}

/// Item 2: a path with dot segments, plain or percent-encoded, is refused by the gateway before
/// routing, so the internal inbox cannot be reached through it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item2_internal_routes_are_not_reached_through_dot_segments() {
    let ts = spawn_suite().await;
    let url = ts.suite.url();
    for path in [
        "/v1/events/%2e%2e/%2e%2e/internal/webhook-events",
        "/v1/events/%2E%2E/%2e./internal/webhook-events",
        "/v1/events/../../internal/webhook-events",
        "/v1/./players",
    ] {
        let (status, answer) = raw(&url, &format!("POST {path} HTTP/1.1")).await;
        assert_eq!(status, 400, "{path}: {answer}");
        assert!(
            answer.contains("application/problem+json") && answer.contains("segment"),
            "{path} is refused with a problem: {answer}"
        );
    }
    let (status, answer) = raw(&url, "POST /internal/webhook-events HTTP/1.1").await;
    assert_eq!(status, 404, "/internal/ is never routed: {answer}");
    ts.shutdown().await;
}

/// Item 4: `/docs` sends the browser on to the documentation at `/docs/`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item4_docs_without_its_slash_redirects() {
    let ts = spawn_suite().await;
    let url = ts.suite.url();
    let (status, answer) = raw(&url, "GET /docs HTTP/1.1").await;
    assert_eq!(status, 308, "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("location: /docs/\r\n"),
        "{answer}"
    );
    let (status, _) = raw(&url, "GET /docs/ HTTP/1.1").await;
    assert_eq!(status, 200, "the documentation itself");
    ts.shutdown().await;
}

/// Item 4: an integral float (`10.0`) is the integer it is, as JSON Schema's `integer` has it;
/// a fraction (`12.5`) is still refused with a 422 naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item4_an_integral_float_is_taken_for_an_integer_field() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let sheet = fx.draw_and_sheet(&[10, 6, 5, 4]).await;
    let mut body = serde_json::to_value(&sheet).expect("a sheet");
    let url = format!("/v1/events/{}/rounds/1/tables/1/result", fx.event.id);
    let put = |body: &serde_json::Value| {
        ts.http(Method::PUT, &url)
            .token(&ts.admin_token)
            .json(body)
            .send()
    };
    body["scores"][1]["vp"] = serde_json::json!(12.5);
    let refused = put(&body).await;
    refused.assert_problem(StatusCode::UNPROCESSABLE_ENTITY);
    let fields = refused.body()["errors"].to_string();
    assert!(fields.contains(r#""field":"vp""#), "{fields}");
    for (score, vp) in [10.0, 6.0, 5.0, 4.0].into_iter().enumerate() {
        body["scores"][score]["vp"] = serde_json::json!(vp);
    }
    assert_eq!(
        body["scores"][0]["vp"].to_string(),
        "10.0",
        "sent as a float"
    );
    let recorded = put(&body).await;
    assert_eq!(
        recorded.status,
        StatusCode::CREATED,
        "{:?}",
        recorded.body()
    );
    assert_eq!(recorded.body()["scores"][0]["vp"], 10);
    ts.shutdown().await;
}

/// Item 4: a keep-apart "pair" of 11 ids is refused with a 422 naming the pair, not as malformed
/// JSON; the spec says a pair has exactly 2 ids.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item4_a_keep_apart_pair_of_eleven_ids_is_refused_naming_it() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let ids: Vec<_> = fx.entries.iter().map(|e| e.player_ids[0]).collect();
    let eleven = vec![ids[0]; 11];
    let body = serde_json::json!({"pairs": [[ids[0], ids[1]], eleven]});
    let url = format!("/v1/events/{}/keep-apart", fx.event.id);
    let refused = ts
        .http(Method::PUT, &url)
        .token(&ts.admin_token)
        .json(&body)
        .send()
        .await;
    refused.assert_problem(StatusCode::UNPROCESSABLE_ENTITY);
    let fields = refused.body()["errors"].to_string();
    assert!(fields.contains(r#""field":"pairs[1]""#), "{fields}");
    let spec = ts.http(Method::GET, "/openapi.json").send().await.body();
    let pair = &spec["components"]["schemas"]["KeepApart"]["properties"]["pairs"]["items"];
    assert_eq!(
        (pair["minItems"].as_u64(), pair["maxItems"].as_u64()),
        (Some(2), Some(2))
    );
    ts.shutdown().await;
}

/// Item 13: names that hold bidi overrides or isolates, or zero-width characters, are refused
/// (players, regions, events); a name is kept in normalisation form C.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item13_names_that_spoof_are_refused() {
    let ts = spawn_suite().await;
    for name in [
        "Alice\u{202E}ecilA",
        "Al\u{200B}ice",
        "\u{2067}Alice\u{2069}",
    ] {
        let player = ts.admin.create_player(&new_player(name)).await;
        let problem = problem_of(assert_refused(player, 422, "a player"));
        assert!(names(&problem, Some("name"), "invalid_name"), "{problem:?}");
        let region = ts.admin.create_region(name).await;
        let problem = problem_of(assert_refused(region, 422, "a region"));
        assert!(names(&problem, Some("name"), "invalid_name"), "{problem:?}");
        let event = ts.admin.create_event(&CreateEvent::classic(name)).await;
        let problem = problem_of(assert_refused(event, 422, "an event"));
        assert!(names(&problem, Some("name"), "invalid_name"), "{problem:?}");
    }
    let composed = ts.admin.create_player(&new_player("Jose\u{301}")).await;
    assert_eq!(composed.expect("a player").name, "Jos\u{e9}");
    ts.shutdown().await;
}

/// How many times `owner` has served the JWKS (every status), from its metrics.
#[expect(
    clippy::expect_used,
    reason = "a test helper: unreadable metrics fail the test"
)]
async fn jwks_fetches(ts: &catan_e2e::TestSuite, owner: catan_suite::Owner) -> f64 {
    let metrics = ts
        .http_client
        .get(format!("{}/metrics", ts.suite.service_url(owner)))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("metrics text");
    metrics
        .lines()
        .filter(|line| {
            line.starts_with("catan_http_requests_total{")
                && line.contains("route=\"/.well-known/jwks.json\"")
        })
        .filter_map(|line| line.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum()
}

/// Item 9: tokens signed with keys no one knows (a forged `kid` each) are refused with 401 at
/// once by every service that verifies them against registration's JWKS, and make it fetch the
/// keys at most once a second each, not once a token; a genuine token verifies meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item9_unknown_key_ids_are_refused_at_once_without_a_fetch_each() {
    use catan_kit::auth::{SigningKey, claims_for};
    let ts = spawn_suite().await;
    let before = jwks_fetches(&ts, catan_suite::Owner::Registration).await;
    assert!(
        before >= 3.0,
        "each service fetched the keys at start: {before}"
    );
    let forged: Vec<String> = (0..90)
        .map(|_| {
            let claims = claims_for(
                uuid::Uuid::new_v4(),
                catan_api::Role::Admin,
                None,
                Duration::from_secs(600),
            );
            SigningKey::generate().sign(&claims).expect("a token")
        })
        .collect();
    let event = uuid::Uuid::new_v4();
    let paths = [
        (Method::POST, format!("/v1/events/{event}/rounds")),
        (
            Method::POST,
            format!("/v1/events/{event}/rounds/1/tables/1/result/confirm"),
        ),
        (
            Method::DELETE,
            format!("/v1/seasons/{event}/qualified/{event}"),
        ),
    ];
    let started = std::time::Instant::now();
    let answers = futures_util::future::join_all(
        forged
            .iter()
            .zip(paths.iter().cycle())
            .map(|(token, (method, path))| ts.http(method.clone(), path).token(token).send()),
    )
    .await;
    let elapsed = started.elapsed();
    for answer in &answers {
        answer.assert_problem(StatusCode::UNAUTHORIZED);
    }
    let fetches = jwks_fetches(&ts, catan_suite::Owner::Registration).await - before;
    // Pairing, results and ranking each fetch at most once a second (and once a minute anyway).
    let allowed = 3.0 * (elapsed.as_secs_f64().ceil() + 2.0);
    assert!(
        fetches <= allowed,
        "{fetches} fetches of the keys for 90 forged tokens in {elapsed:?} (at most {allowed})"
    );
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    let genuine = ts
        .http(Method::POST, &paths[0].1)
        .token(&ts.admin_token)
        .send()
        .await;
    genuine.assert_problem(StatusCode::NOT_FOUND);
    ts.shutdown().await;
}

/// Issue 42, item 1: every page route (public, console, phone, screen, their scripts and their
/// 404) answers with the pages' content security policy, nothing against framing missing, and
/// no sniffing; every answer of the API carries `nosniff` and a referrer policy.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_page_and_every_api_answer_carries_the_security_headers() {
    let (ts, fx) = spawn_suite_with_event(8, Some(1)).await;
    fx.draw().await;
    let event = fx.event.id;
    let player = fx.entries[0]
        .player_id
        .expect("a classic entry is a player");
    let pages = [
        "/".to_owned(),
        "/ratings".to_owned(),
        format!("/events/{event}"),
        format!("/events/{event}/standings-table"),
        format!("/events/{event}/screen"),
        format!("/events/{event}/rounds/1/sheets"),
        format!("/players/{player}"),
        "/sign-in".to_owned(),
        "/console".to_owned(),
        "/console/keys".to_owned(),
        format!("/console/events/{event}"),
        format!("/events/{event}/sign-in"),
        format!("/events/{event}/me"),
        "/static/live.js".to_owned(),
        "/static/style.css".to_owned(),
        "/no-such-page".to_owned(),
    ];
    for page in &pages {
        let answer = ts.http(Method::GET, page).send().await;
        let policy = answer
            .header("content-security-policy")
            .unwrap_or_else(|| panic!("{page} has no content security policy"));
        for directive in [
            "script-src 'self'",
            "frame-ancestors 'none'",
            "form-action 'self'",
            "base-uri 'none'",
            "object-src 'none'",
        ] {
            assert!(
                policy.contains(directive),
                "{page}: {directive} in {policy}"
            );
        }
        assert_eq!(answer.header("x-frame-options"), Some("DENY"), "{page}");
        assert_eq!(
            answer.header("x-content-type-options"),
            Some("nosniff"),
            "{page}"
        );
        assert!(answer.header("referrer-policy").is_some(), "{page}");
        assert!(
            answer.header("strict-transport-security").is_none(),
            "{page}: no https promise over plain http"
        );
    }
    for api in [
        "/v1/events".to_owned(),
        format!("/v1/events/{event}/standings"),
        "/v1/no-such-thing".to_owned(),
        "/openapi.json".to_owned(),
    ] {
        let answer = ts.http(Method::GET, &api).send().await;
        assert_eq!(
            answer.header("x-content-type-options"),
            Some("nosniff"),
            "{api}"
        );
        assert_eq!(
            answer.header("referrer-policy"),
            Some("strict-origin-when-cross-origin"),
            "{api}"
        );
    }
    ts.shutdown().await;
}

/// Issue 42, item 4: a league dashboard on another site reads the API from its visitors'
/// browsers (its preflight is answered and the answer names it), while a write from a browser
/// is allowed only to the sites the operator lists.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn other_sites_read_from_browsers_and_only_listed_sites_write() {
    let ts = catan_e2e::spawn_suite_configured(|settings| {
        settings.http.cors_write_origins = vec!["https://club.example".to_owned()];
    })
    .await;
    let preflight = |origin: &str, method: &str| {
        ts.http(Method::OPTIONS, "/v1/events")
            .header("origin", origin)
            .header("access-control-request-method", method)
            .header(
                "access-control-request-headers",
                "authorization, content-type, idempotency-key",
            )
            .send()
    };
    let read = preflight("https://league.example", "GET").await;
    assert!(read.status.is_success(), "{}", read.status);
    assert_eq!(
        read.header("access-control-allow-origin"),
        Some("https://league.example")
    );
    let events = ts
        .http(Method::GET, "/v1/events")
        .header("origin", "https://league.example")
        .send()
        .await;
    assert_eq!(
        events.header("access-control-allow-origin"),
        Some("https://league.example"),
        "the dashboard's script may read the answer"
    );
    let unlisted = preflight("https://league.example", "POST").await;
    assert!(unlisted.status.is_client_error(), "{}", unlisted.status);
    assert_eq!(unlisted.header("access-control-allow-origin"), None);
    let listed = preflight("https://club.example", "POST").await;
    assert!(listed.status.is_success(), "{}", listed.status);
    assert_eq!(
        listed.header("access-control-allow-origin"),
        Some("https://club.example")
    );
    ts.shutdown().await;
}
