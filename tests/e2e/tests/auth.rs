//! Keys are limited to their role and events; expired, tampered or foreign tokens get 401.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use catan_api::{DrawRound, Role};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{assert_refused, new_key, new_player, spawn_suite_with_event};
use catan_kit::auth::{SigningKey, claims_for};
use std::time::Duration;
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_for_one_event_cannot_write_another() {
    let (ts, a) = spawn_suite_with_event(4, Some(1)).await;
    let b = ts.classic_event(4, Some(1)).await;
    let sheet = b.draw_and_sheet(&[10, 5, 5, 5]).await;
    let (on_b, draw) = (b.event.id, DrawRound::default());
    let posted = a.scorer.submit_result(on_b, 1, 1, &sheet).await;
    assert_refused(posted, 403, "scorer of A on B");
    let posted = a.director.submit_result(on_b, 1, 1, &sheet).await;
    assert_refused(posted, 403, "director of A on B");
    let drawn = a.director.draw_round(on_b, &draw).await;
    assert_refused(drawn, 403, "director of A draws B");
    // A scorer posts results but does not run the event.
    let drawn = b.scorer.draw_round(on_b, &draw).await;
    assert_refused(drawn, 403, "scorer draws");
    let x = new_player("X");
    assert_refused(b.scorer.create_player(&x).await, 403, "scorer registers");
    let admin_key = new_key("mine", Role::Admin, None);
    let keyed = b.director.create_api_key(&admin_key).await;
    assert_refused(keyed, 403, "director makes an admin key");
    assert_eq!(ts.count("SELECT count(*) AS n FROM results.results"), 0);
    b.submit(1, 1, &sheet).await;
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn expired_tampered_and_foreign_tokens_get_401_and_public_reads_need_none() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let key = ts.signing_key();
    let admin_claims = || claims_for(Uuid::new_v4(), Role::Admin, None, Duration::from_secs(600));
    let mut expired = admin_claims();
    expired.iat -= 7200;
    expired.nbf -= 7200;
    expired.exp -= 3600;
    let mut not_yet = admin_claims();
    not_yet.nbf += 3600;
    let mut wrong_audience = admin_claims();
    wrong_audience.aud = "someone-else".into();
    let genuine = key.sign(&admin_claims()).expect("sign");
    let tampered = {
        let scorer = key
            .sign(&claims_for(
                Uuid::new_v4(),
                Role::Scorer,
                Some(vec![fx.event.id]),
                Duration::from_secs(600),
            ))
            .expect("sign");
        let mut parts: Vec<String> = scorer.split('.').map(str::to_owned).collect();
        let mut payload: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(&parts[1]).unwrap()).unwrap();
        payload["role"] = "admin".into();
        parts[1] = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&payload).unwrap());
        parts.join(".")
    };
    let unsigned = {
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&admin_claims()).unwrap());
        format!("{header}.{payload}.")
    };
    let foreign = SigningKey::generate().sign(&admin_claims()).expect("sign");
    let mut wrong_issuer = admin_claims();
    wrong_issuer.iss = "someone-else".into();
    // Algorithm confusion: an HMAC token keyed with the public key the JWKS publishes.
    let confused = {
        let jwks = ts.http(Method::GET, "/.well-known/jwks.json").send().await;
        let jwks = jwks.body();
        let key = &jwks["keys"][0];
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
        header.kid = key["kid"].as_str().map(str::to_owned);
        let secret = URL_SAFE_NO_PAD
            .decode(key["x"].as_str().expect("x"))
            .expect("public key");
        jsonwebtoken::encode(
            &header,
            &admin_claims(),
            &jsonwebtoken::EncodingKey::from_secret(&secret).expect("hmac key"),
        )
        .expect("hs256")
    };
    let cases = [
        ("expired", key.sign(&expired).unwrap()),
        ("not yet valid", key.sign(&not_yet).unwrap()),
        ("wrong audience", key.sign(&wrong_audience).unwrap()),
        ("tampered", tampered),
        ("alg none", unsigned),
        ("unknown key", foreign),
        ("wrong issuer", key.sign(&wrong_issuer).unwrap()),
        ("HS256 with the public key", confused),
        ("garbage", "not-a-token".to_string()),
    ];
    let body = new_player("Intruder");
    for (what, token) in cases {
        // Registration verifies locally; pairing verifies from the JWKS: both refuse.
        let client = ts.anonymous.with_token(token);
        let created = client.create_player(&body).await;
        assert_refused(created, 401, &format!("{what} at registration"));
        let drawn = client.draw_round(fx.event.id, &DrawRound::default()).await;
        assert_refused(drawn, 401, &format!("{what} at pairing"));
    }
    assert!(
        ts.anonymous
            .with_token(genuine)
            .create_player(&body)
            .await
            .is_ok(),
        "the real key's token works"
    );
    assert_refused(ts.anonymous.create_player(&body).await, 401, "no token");
    assert_refused(ts.anonymous.token("ck_wrong").await, 401, "bad key");
    // Standings and placements are public.
    assert!(ts.anonymous.standings(fx.event.id).await.is_ok());
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM registration.players WHERE name = 'Intruder'"),
        1
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn rotating_the_signing_key_keeps_earlier_tokens_valid_until_they_expire() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let before = ts.token(&ts.admin_key).await;
    let kid = |token: &str| {
        jsonwebtoken::decode_header(token)
            .expect("header")
            .kid
            .expect("kid")
    };
    let rotate = || ts.http(Method::POST, "/v1/admin/signing-keys");
    assert_eq!(
        rotate().token(&before).send().await.status,
        StatusCode::CREATED
    );
    let after = ts.token(&ts.admin_key).await;
    assert_ne!(kid(&before), kid(&after), "new tokens name the new key");
    // Verifiers fetch keys at most once a second: the new key's first token after that fetches it.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let jwks = ts.http(Method::GET, "/.well-known/jwks.json").send().await;
    let jwks = jwks.body();
    let published: Vec<&str> = jwks["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .filter_map(|k| k["kid"].as_str())
        .collect();
    assert!(
        published.contains(&kid(&before).as_str()) && published.contains(&kid(&after).as_str())
    );
    // Both tokens work at registration (which signs) and at pairing (which verifies from the JWKS).
    let rotated = new_player("Rotated");
    for token in [&before, &after] {
        let client = ts.anonymous.with_token(token.clone());
        client.create_player(&rotated).await.expect("registration");
        let drawn = client
            .draw_round(Uuid::new_v4(), &DrawRound::default())
            .await;
        assert_refused(drawn, 404, "the token was accepted by pairing");
    }
    // A scorer key's new token is still limited to its event.
    let scorer_token = fx
        .scorer
        .token(&ts.admin_key)
        .await
        .expect("token")
        .access_token;
    assert_ne!(scorer_token, before);
    // Only admins rotate.
    let director = ts.token(&fx.director_key).await;
    assert_eq!(
        rotate().token(&director).send().await.status,
        StatusCode::FORBIDDEN
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item9_a_retired_signing_key_is_refused_everywhere_after_the_next_refresh() {
    let (ts, _fx) = spawn_suite_with_event(4, Some(1)).await;
    let kid = |token: &str| {
        jsonwebtoken::decode_header(token)
            .expect("header")
            .kid
            .expect("kid")
    };
    let accepted_everywhere = |token: &str| {
        let client = ts.anonymous.with_token(token.to_string());
        async move {
            let registered = client.create_player(&new_player("Keyed")).await;
            let drawn = client
                .draw_round(Uuid::new_v4(), &DrawRound::default())
                .await;
            (registered, drawn)
        }
    };
    let old = ts.token(&ts.admin_key).await;
    let (registered, drawn) = accepted_everywhere(&old).await;
    registered.expect("the old key's token at registration");
    assert_refused(drawn, 404, "the old key's token accepted by pairing");

    let rotate = || ts.http(Method::POST, "/v1/admin/signing-keys");
    assert_eq!(
        rotate().token(&old).send().await.status,
        StatusCode::CREATED
    );
    let current = ts.token(&ts.admin_key).await;
    let retire = |kid: &str| ts.http(Method::DELETE, &format!("/v1/admin/signing-keys/{kid}"));
    let refused = retire(&kid(&current)).token(&current).send().await;
    assert_eq!(
        refused.status,
        StatusCode::CONFLICT,
        "the current key stays"
    );
    let unknown = retire("no-such-key").token(&current).send().await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let retired = retire(&kid(&old)).token(&current).send().await;
    assert_eq!(retired.status, StatusCode::NO_CONTENT);
    let jwks = ts.http(Method::GET, "/.well-known/jwks.json").send().await;
    let listed: Vec<String> = jwks.body()["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .filter_map(|k| k["kid"].as_str().map(str::to_owned))
        .collect();
    assert!(listed.contains(&kid(&current)) && !listed.contains(&kid(&old)));

    // The current key's first token past the refresh interval makes each service fetch the keys.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let (registered, drawn) = accepted_everywhere(&current).await;
    registered.expect("the current key's token at registration");
    assert_refused(drawn, 404, "the current key's token accepted by pairing");
    let (registered, drawn) = accepted_everywhere(&old).await;
    assert_refused(registered, 401, "the retired key's token at registration");
    assert_refused(drawn, 401, "the retired key's token at pairing");
    ts.shutdown().await;
}
