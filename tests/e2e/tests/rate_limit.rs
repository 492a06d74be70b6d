//! Rate limits per API key, answered 429 with Retry-After.

use catan_api::Role;
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{new_key, spawn_suite_configured};
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
        .create_api_key(&new_key("second admin", Role::Admin, None))
        .await
        .expect("a second key");
    let add_region = |token: &str, name: String| {
        let region = serde_json::json!({ "name": name });
        ts.http(Method::POST, "/v1/regions")
            .token(token)
            .json(&region)
            .send()
    };
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for i in 0..8 {
        let r = add_region(&ts.admin_token, format!("Region {i}")).await;
        if r.status == StatusCode::TOO_MANY_REQUESTS {
            assert!(r.is_problem(), "{r:?}");
            retry_after = r.header("retry-after").map(str::to_owned);
        }
        statuses.push(r.status.as_u16());
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
    let other_token = ts.token(&other.api_key).await;
    let r = add_region(&other_token, "Elsewhere".into()).await;
    assert_eq!(r.status, StatusCode::CREATED);
    for _ in 0..8 {
        let read = ts.http(Method::GET, "/v1/regions").send().await;
        assert_eq!(read.status, StatusCode::OK);
    }
    ts.shutdown().await;
}
