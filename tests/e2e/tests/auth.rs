//! Keys are limited to their role and events; expired, tampered or foreign tokens get 401.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use catan_api::{CreateApiKey, CreatePlayer, DrawRound, Role};
use catan_e2e::{spawn_suite, won_by_first};
use catan_kit::auth::{SigningKey, claims_for};
use std::time::Duration;
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_for_one_event_cannot_write_another() {
    let ts = spawn_suite().await;
    let a = ts.classic_event(4, Some(1)).await;
    let b = ts.classic_event(4, Some(1)).await;
    let round = b
        .director
        .draw_round(b.event.id, &DrawRound::default())
        .await
        .expect("draw b");
    let players: Vec<Uuid> = round.tables[0].seats.iter().map(|s| s.player_id).collect();
    let sheet = won_by_first(&players, &[10, 5, 5, 5]);
    let err = a
        .scorer
        .submit_result(b.event.id, 1, 1, &sheet)
        .await
        .expect_err("scorer of A on B");
    assert_eq!(err.status(), Some(403));
    let err = a
        .director
        .submit_result(b.event.id, 1, 1, &sheet)
        .await
        .expect_err("director of A on B");
    assert_eq!(err.status(), Some(403));
    let err = a
        .director
        .draw_round(b.event.id, &DrawRound::default())
        .await
        .expect_err("director of A draws B");
    assert_eq!(err.status(), Some(403));
    // A scorer posts results but does not run the event.
    let err = b
        .scorer
        .draw_round(b.event.id, &DrawRound::default())
        .await
        .expect_err("scorer draws");
    assert_eq!(err.status(), Some(403));
    let err = b
        .scorer
        .create_player(&CreatePlayer {
            name: "X".into(),
            region_id: None,
        })
        .await
        .expect_err("scorer registers");
    assert_eq!(err.status(), Some(403));
    let err = b
        .director
        .create_api_key(&CreateApiKey {
            name: "mine".into(),
            role: Role::Admin,
            event_ids: None,
        })
        .await
        .expect_err("director makes an admin key");
    assert_eq!(err.status(), Some(403));
    assert_eq!(ts.count("SELECT count(*) AS n FROM results.results"), 0);
    b.scorer
        .submit_result(b.event.id, 1, 1, &sheet)
        .await
        .expect("B's own scorer");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn expired_tampered_and_foreign_tokens_get_401_and_public_reads_need_none() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(4, Some(1)).await;
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
        let jwks: serde_json::Value =
            reqwest::get(format!("{}/.well-known/jwks.json", ts.suite.url()))
                .await
                .expect("jwks")
                .json()
                .await
                .expect("json");
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
    let body = CreatePlayer {
        name: "Intruder".into(),
        region_id: None,
    };
    for (what, token) in cases {
        // Registration verifies locally; pairing verifies from the JWKS: both refuse.
        let err = ts
            .anonymous
            .with_token(token.clone())
            .create_player(&body)
            .await
            .expect_err(what);
        assert_eq!(err.status(), Some(401), "{what} at registration");
        let err = ts
            .anonymous
            .with_token(token)
            .draw_round(fx.event.id, &DrawRound::default())
            .await
            .expect_err(what);
        assert_eq!(err.status(), Some(401), "{what} at pairing");
    }
    assert!(
        ts.anonymous
            .with_token(genuine)
            .create_player(&body)
            .await
            .is_ok(),
        "the real key's token works"
    );
    assert_eq!(
        ts.anonymous
            .create_player(&body)
            .await
            .expect_err("no token")
            .status(),
        Some(401)
    );
    assert_eq!(
        ts.anonymous
            .token("ck_wrong")
            .await
            .expect_err("bad key")
            .status(),
        Some(401)
    );
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
    let ts = spawn_suite().await;
    let fx = ts.classic_event(4, Some(1)).await;
    let before = ts
        .anonymous
        .token(&ts.admin_key)
        .await
        .expect("token")
        .access_token;
    let kid = |token: &str| {
        jsonwebtoken::decode_header(token)
            .expect("header")
            .kid
            .expect("kid")
    };
    let http = reqwest::Client::new();
    let rotated = http
        .post(format!("{}/v1/admin/signing-keys", ts.suite.url()))
        .bearer_auth(&before)
        .send()
        .await
        .expect("rotate");
    assert_eq!(rotated.status(), 201);
    let after = ts
        .anonymous
        .token(&ts.admin_key)
        .await
        .expect("token")
        .access_token;
    assert_ne!(kid(&before), kid(&after), "new tokens name the new key");
    let jwks: serde_json::Value = reqwest::get(format!("{}/.well-known/jwks.json", ts.suite.url()))
        .await
        .expect("jwks")
        .json()
        .await
        .expect("json");
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
    for token in [&before, &after] {
        let client = ts.anonymous.with_token(token.clone());
        client
            .create_player(&CreatePlayer {
                name: "Rotated".into(),
                region_id: None,
            })
            .await
            .expect("registration");
        let err = client
            .draw_round(Uuid::new_v4(), &DrawRound::default())
            .await
            .expect_err("no such event");
        assert_eq!(err.status(), Some(404), "the token was accepted by pairing");
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
    let director = ts
        .anonymous
        .token(&fx.director_key)
        .await
        .expect("token")
        .access_token;
    let refused = http
        .post(format!("{}/v1/admin/signing-keys", ts.suite.url()))
        .bearer_auth(director)
        .send()
        .await
        .expect("answer");
    assert_eq!(refused.status(), 403);
    ts.shutdown().await;
}
