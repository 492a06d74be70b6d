//! Rate limits per API key, answered 429 with Retry-After.

use catan_api::{CreateApiKey, Role};
use catan_e2e::spawn_suite_configured;
use catan_kit::settings::RateLimitSettings;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_over_its_limit_gets_429_with_retry_after_and_other_keys_do_not() {
    let ts = spawn_suite_configured(|settings| {
        // Slow refill, so that even a loaded machine sends the burst faster than it refills.
        settings.rate_limit = RateLimitSettings {
            per_second: 0.25,
            burst: 4.0,
        };
    })
    .await;
    let other = ts
        .admin
        .create_api_key(&CreateApiKey {
            name: "second admin".into(),
            role: Role::Admin,
            event_ids: None,
        })
        .await
        .expect("a second key");
    let http = reqwest::Client::new();
    let token = ts
        .anonymous
        .token(&ts.admin_key)
        .await
        .expect("token")
        .access_token;
    let url = format!("{}/v1/regions", ts.suite.url());
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for i in 0..8 {
        let r = http
            .post(&url)
            .bearer_auth(&token)
            .json(&serde_json::json!({ "name": format!("Region {i}") }))
            .send()
            .await
            .expect("answer");
        if r.status() == 429 {
            assert_eq!(r.headers()["content-type"], "application/problem+json");
            retry_after = r
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
        }
        statuses.push(r.status().as_u16());
    }
    assert!(
        statuses.contains(&201) && statuses.contains(&429),
        "{statuses:?}"
    );
    let wait: u64 = retry_after.expect("Retry-After").parse().expect("seconds");
    assert!(
        (1..=4).contains(&wait),
        "retry after {wait} s at 0.25 requests a second"
    );
    let refused = statuses.iter().filter(|s| **s == 429).count() as i64;
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM registration.regions"),
        8 - refused,
        "a refused request wrote nothing"
    );
    // Another key has its own budget; public reads are not limited per key.
    let other_token = ts
        .anonymous
        .token(&other.api_key)
        .await
        .expect("token")
        .access_token;
    let r = http
        .post(&url)
        .bearer_auth(&other_token)
        .json(&serde_json::json!({ "name": "Elsewhere" }))
        .send()
        .await
        .expect("answer");
    assert_eq!(r.status(), 201);
    for _ in 0..8 {
        assert_eq!(http.get(&url).send().await.expect("answer").status(), 200);
    }
    ts.shutdown().await;
}
