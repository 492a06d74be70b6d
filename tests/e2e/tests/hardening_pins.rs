//! Issue 10, items 1 and 7: the director reissues a player's PIN and confirms a result on his
//! behalf; PINs are 8 characters of an unambiguous alphabet, never kept in a stored idempotent
//! reply, and their digests are keyed with a server secret; expired idempotency records are
//! purged. Issue 41, item 4: the director reissues every PIN of an event at once, and wrong PINs
//! are counted per player, so a venue's typos behind one address lock out nobody else.

use catan_api::{CreateEntry, CreateEvent, PlayerPin, ResultStatus, Role, StandingsCount};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{
    assert_refused, eventually, new_key, seated, spawn_suite, spawn_suite_configured, won_by_first,
};
use catan_suite::Owner;
use uuid::Uuid;

/// The characters a PIN may have.
const PIN_ALPHABET: &str = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

fn is_a_pin(pin: &str) -> bool {
    pin.len() == 8 && pin.chars().all(|c| PIN_ALPHABET.contains(c))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item1_the_director_reissues_a_pin_and_the_old_one_stops_working() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(2, Some(1)).await;
    let other = ts.classic_event(1, Some(1)).await;
    let event = fx.event.id;
    let old = fx.entries[0].pins.as_ref().expect("pins")[0].clone();
    assert!(is_a_pin(&old.pin), "{}", old.pin);
    let player = old.player_id;
    ts.anonymous
        .player_token(event, player, &old.pin.to_lowercase())
        .await
        .expect("a PIN typed in lower case signs in");

    let path = format!("/v1/events/{event}/players/{player}/pin");
    let reissue = |token: &str, key: &str| {
        ts.http(Method::POST, &path)
            .token(token)
            .header("Idempotency-Key", key)
    };
    // Only the event's director, or the admin.
    let scorer = ts
        .admin
        .create_api_key(&new_key("Table app", Role::Scorer, Some(vec![event])))
        .await
        .expect("a scorer key");
    let scorer = ts.token(&scorer.api_key).await;
    reissue(&scorer, "by-scorer")
        .send()
        .await
        .assert_problem(StatusCode::FORBIDDEN);
    let other_director = ts.token(&other.director_key).await;
    reissue(&other_director, "by-another")
        .send()
        .await
        .assert_problem(StatusCode::FORBIDDEN);
    ts.http(Method::POST, &path)
        .send()
        .await
        .assert_problem(StatusCode::UNAUTHORIZED);

    let director = ts.token(&fx.director_key).await;
    let first = reissue(&director, "pin-again").send().await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    let new: PlayerPin = first.json();
    assert_eq!(new.player_id, player);
    assert!(is_a_pin(&new.pin), "{}", new.pin);
    assert_ne!(new.pin, old.pin);
    assert_refused(
        ts.anonymous.player_token(event, player, &old.pin).await,
        401,
        "the old PIN stops working at once",
    );
    ts.anonymous
        .player_token(event, player, &new.pin)
        .await
        .expect("the new PIN signs in");

    // A retry with the key is told the PIN was shown once, and reissues nothing.
    let retried = reissue(&director, "pin-again").send().await;
    retried.assert_problem(StatusCode::CONFLICT);
    assert!(retried.text.contains("shown once"), "{}", retried.text);
    assert!(!retried.text.contains(&new.pin));
    ts.anonymous
        .player_token(event, player, &new.pin)
        .await
        .expect("the retry changed nothing");

    // The admin may too; the other player's PIN is untouched.
    let by_admin = ts.admin.reissue_pin(event, player).await.expect("admin");
    assert!(is_a_pin(&by_admin.pin));
    let untouched = &fx.entries[1].pins.as_ref().expect("pins")[0];
    ts.anonymous
        .player_token(event, untouched.player_id, &untouched.pin)
        .await
        .expect("another player's PIN still works");
    // Someone with no entry in the event.
    let outsider = other.entries[0].player_ids[0];
    assert_refused(
        ts.admin.reissue_pin(event, outsider).await,
        404,
        "no entry here",
    );
    assert_refused(
        ts.admin.reissue_pin(event, Uuid::new_v4()).await,
        404,
        "no such player",
    );
    ts.shutdown().await;
}

/// Item 1: wrong PINs are counted in memory (per player and address), so a player's row keeps no
/// count of them and no lock (the columns of the 15-minute lock of before are gone, not left
/// unused).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item1_a_player_keeps_no_count_of_wrong_pins_nor_a_lock() {
    let ts = spawn_suite().await;
    let columns = |names: &str| {
        ts.count(&format!(
            "SELECT count(*) AS n FROM information_schema.columns \
             WHERE table_schema = 'registration' AND table_name = 'entry_players' \
             AND column_name IN ({names})"
        ))
    };
    assert_eq!(
        columns("'event_id', 'entry_id', 'player_id', 'position', 'pin_sha256'"),
        5,
        "the player's entry and his PIN's digest"
    );
    assert_eq!(
        columns("'failed_pin_attempts', 'pin_locked_until'"),
        0,
        "no per-player count of wrong PINs, no lock"
    );
    ts.shutdown().await;
}

/// Issue 41, item 4: the director (or the region's organiser, or the admin) gives every player of
/// the event a new PIN in one call: every old PIN stops at once, and a retry with the key is told
/// they were shown once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_pin_of_an_event_is_reissued_at_once_and_shown_once() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(5, Some(1)).await;
    let other = ts.classic_event(1, Some(1)).await;
    let event = fx.event.id;
    let old: Vec<PlayerPin> = fx
        .entries
        .iter()
        .flat_map(|e| e.pins.clone().unwrap_or_default())
        .collect();
    let path = format!("/v1/events/{event}/pins");
    let reissue = |token: &str, key: &str| {
        ts.http(Method::POST, &path)
            .token(token)
            .header("Idempotency-Key", key)
    };
    let scorer = ts
        .admin
        .create_api_key(&new_key("Table app", Role::Scorer, Some(vec![event])))
        .await
        .expect("a scorer key");
    let scorer = ts.token(&scorer.api_key).await;
    reissue(&scorer, "all-by-scorer")
        .send()
        .await
        .assert_problem(StatusCode::FORBIDDEN);
    let other_director = ts.token(&other.director_key).await;
    reissue(&other_director, "all-by-another")
        .send()
        .await
        .assert_problem(StatusCode::FORBIDDEN);
    ts.http(Method::POST, &path)
        .send()
        .await
        .assert_problem(StatusCode::UNAUTHORIZED);

    let director = ts.token(&fx.director_key).await;
    let first = reissue(&director, "all-again").send().await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    let new: Vec<PlayerPin> = first.json();
    let players = |pins: &[PlayerPin]| pins.iter().map(|p| p.player_id).collect::<Vec<_>>();
    assert_eq!(
        players(&new),
        players(&old),
        "every entered player, in the entries' order"
    );
    for (old, new) in old.iter().zip(&new) {
        assert!(is_a_pin(&new.pin), "{}", new.pin);
        assert_refused(
            ts.anonymous
                .player_token(event, old.player_id, &old.pin)
                .await,
            401,
            "every old PIN stops working at once",
        );
        ts.anonymous
            .player_token(event, new.player_id, &new.pin)
            .await
            .expect("the new PIN signs in");
    }

    // A retry with the key is told the PINs were shown once (with its code), and reissues none.
    let retried = reissue(&director, "all-again").send().await;
    retried.assert_problem(StatusCode::CONFLICT);
    assert!(retried.text.contains("shown once"), "{}", retried.text);
    assert!(retried.text.contains("shown_once"), "{}", retried.text);
    for pin in &new {
        assert!(!retried.text.contains(&pin.pin), "{}", retried.text);
    }
    ts.anonymous
        .player_token(event, new[0].player_id, &new[0].pin)
        .await
        .expect("the retry changed nothing");
    let kept = format!(
        "SELECT count(*) AS n FROM registration.idempotency_keys \
         WHERE key = 'all-again' AND response::text LIKE '%{}%'",
        new[0].pin
    );
    assert_eq!(ts.count(&kept), 0, "no PIN in the stored reply");

    // The admin may too; the other event's PINs are untouched.
    let by_admin = ts.admin.reissue_all_pins(event).await.expect("admin");
    assert_eq!(by_admin.len(), 5);
    let untouched = &other.entries[0].pins.as_ref().expect("pins")[0];
    ts.anonymous
        .player_token(other.event.id, untouched.player_id, &untouched.pin)
        .await
        .expect("another event's PIN still works");
    assert_refused(
        ts.admin.reissue_all_pins(Uuid::new_v4()).await,
        404,
        "no such event",
    );
    ts.shutdown().await;
}

/// Issue 41, item 4 ("PINs at a venue"): 30 players of one event behind the venue's one address,
/// 10 wrong tries spread over 5 of them: every other player signs in at once. A player who keeps
/// mistyping waits, told the real wait, and only he.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_venues_typos_behind_one_address_lock_out_no_one_else() {
    use std::net::Ipv4Addr;
    let ts = spawn_suite().await;
    let fx = ts.classic_event(30, Some(1)).await;
    let event = fx.event.id;
    let pins: Vec<PlayerPin> = fx
        .entries
        .iter()
        .flat_map(|e| e.pins.clone().unwrap_or_default())
        .collect();
    assert_eq!(pins.len(), 30);
    let venue = Ipv4Addr::new(127, 0, 0, 41);
    let sign_in = |player: Uuid, pin: &str| {
        let body = serde_json::json!({ "event_id": event, "player_id": player, "pin": pin });
        ts.http_from(venue, Method::POST, "/v1/auth/player-token")
            .json(&body)
            .send()
    };
    let wrong = |pin: &str| {
        format!(
            "{}{}",
            if pin.starts_with('A') { 'B' } else { 'A' },
            &pin[1..]
        )
    };
    for pin in &pins[..5] {
        for _ in 0..2 {
            let typo = sign_in(pin.player_id, &wrong(&pin.pin)).await;
            assert_eq!(typo.status, StatusCode::UNAUTHORIZED, "{}", typo.text);
        }
    }
    // Every player signs in at once, those who mistyped too.
    for pin in &pins {
        let signed = sign_in(pin.player_id, &pin.pin).await;
        assert_eq!(signed.status, StatusCode::OK, "{}", signed.text);
    }

    // One player's sixth wrong PIN in a row makes him wait a second, said as such.
    let (typist, next) = (&pins[5], &pins[6]);
    for _ in 0..5 {
        let typo = sign_in(typist.player_id, &wrong(&typist.pin)).await;
        assert_eq!(typo.status, StatusCode::UNAUTHORIZED, "{}", typo.text);
    }
    let waits = sign_in(typist.player_id, &typist.pin).await;
    assert_eq!(
        waits.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        waits.text
    );
    waits.assert_problem(StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = waits
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("seconds");
    assert_eq!(wait, 1, "the first wait is a second");
    let problem = waits.body();
    assert_eq!(problem["retry_after_seconds"], 1, "{problem}");
    assert_eq!(
        problem["errors"][0]["code"], "too_many_wrong_pins",
        "{problem}"
    );
    assert!(
        waits.text.contains("try again in 1 second"),
        "the real wait: {}",
        waits.text
    );
    // Meanwhile the player beside him signs in.
    let beside = sign_in(next.player_id, &next.pin).await;
    assert_eq!(beside.status, StatusCode::OK, "{}", beside.text);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let waited = sign_in(typist.player_id, &typist.pin).await;
    assert_eq!(waited.status, StatusCode::OK, "{}", waited.text);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item1_the_director_confirms_a_result_on_a_players_behalf() {
    let ts = spawn_suite().await;
    let body = CreateEvent {
        qualifying_rounds: Some(1),
        standings_count: Some(StandingsCount::Confirmed),
        ..CreateEvent::classic("Confirmed-only open")
    };
    let fx = ts.classic_event_as(&body, 4).await;
    let event = fx.event.id;
    let round = fx.draw().await;
    let table = &round.tables[0];
    let players = seated(table);
    fx.submit(1, table.number, &won_by_first(&players, &[10, 7, 5, 3]))
        .await;
    let pin_of = |player: Uuid| {
        fx.entries
            .iter()
            .flat_map(|e| e.pins.clone().unwrap_or_default())
            .find(|p| p.player_id == player)
            .expect("a PIN")
            .pin
    };
    // Three players sign themselves.
    for player in &players[..3] {
        ts.player_client(event, *player, &pin_of(*player))
            .await
            .confirm_result(event, 1, table.number)
            .await
            .expect("confirm");
    }
    let missing = players[3];
    // Neither a scorer nor another player confirms for him; a director names whom.
    assert_refused(
        fx.scorer
            .confirm_result_for(event, 1, table.number, missing)
            .await,
        403,
        "a scorer",
    );
    let first = ts
        .player_client(event, players[0], &pin_of(players[0]))
        .await;
    assert_refused(
        first
            .confirm_result_for(event, 1, table.number, missing)
            .await,
        403,
        "a player for another",
    );
    assert_refused(
        fx.director.confirm_result(event, 1, table.number).await,
        422,
        "the director names the player",
    );
    let outsider = Uuid::new_v4();
    assert_refused(
        fx.director
            .confirm_result_for(event, 1, table.number, outsider)
            .await,
        403,
        "not at this table",
    );

    let second = ts
        .admin
        .create_api_key(&new_key("Head judge", Role::Director, Some(vec![event])))
        .await
        .expect("a second director key");
    let confirmed = ts
        .client_for(&second.api_key)
        .await
        .confirm_result_for(event, 1, table.number, missing)
        .await
        .expect("the director confirms for the fourth player");
    assert_eq!(confirmed.status, ResultStatus::Confirmed);
    assert!(confirmed.confirmed_by.contains(&missing));
    assert_eq!(confirmed.confirmed_by_director.len(), 1);
    let by_director = &confirmed.confirmed_by_director[0];
    assert_eq!(by_director.player_id, missing);
    assert_eq!(by_director.by, second.id, "the director's key");

    // The history says so for that version; the standings count the result.
    let history = ts
        .anonymous
        .result_history(event, 1, table.number)
        .await
        .expect("history");
    let v1 = &history.items[0];
    assert_eq!(v1.confirmed_by.len(), 4);
    assert_eq!(v1.confirmed_by_director, confirmed.confirmed_by_director);
    assert_eq!(ts.standings(event).await.results_counted, 1);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item7_no_pin_is_kept_in_a_stored_idempotent_reply() {
    let ts = spawn_suite().await;
    let fx = ts
        .event(&CreateEvent::classic("Replayed entries open"))
        .await;
    let player = ts.players(&fx, 1).await[0];
    let director = ts.token(&fx.director_key).await;
    let path = format!("/v1/events/{}/entries", fx.event.id);
    let enter = || {
        ts.http(Method::POST, &path)
            .token(&director)
            .header("Idempotency-Key", "enter-once")
            .json(&CreateEntry::player(player))
    };
    let first = enter().send().await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    let entry: catan_api::Entry = first.json();
    let pin = entry.pins.expect("the PINs come with the entry")[0]
        .pin
        .clone();

    let retried = enter().send().await;
    retried.assert_problem(StatusCode::CONFLICT);
    assert!(retried.text.contains("shown once"), "{}", retried.text);
    assert!(!retried.text.contains(&pin), "{}", retried.text);
    let entries = "SELECT count(*) AS n FROM registration.entries";
    assert_eq!(ts.count(entries), 1, "the retry entered no one");

    // A reissued PIN is not kept either.
    let reissued = ts
        .http(
            Method::POST,
            &format!("/v1/events/{}/players/{player}/pin", fx.event.id),
        )
        .token(&director)
        .header("Idempotency-Key", "reissue-once")
        .send()
        .await;
    assert_eq!(reissued.status, StatusCode::OK, "{}", reissued.text);
    let new: PlayerPin = reissued.json();

    let kept = "SELECT count(*) AS n FROM registration.idempotency_keys \
                WHERE key IN ('enter-once', 'reissue-once')";
    assert_eq!(ts.count(kept), 2, "both keys are remembered");
    for secret in [&pin, &new.pin] {
        let with_pin = format!(
            "SELECT count(*) AS n FROM registration.idempotency_keys \
             WHERE response::text LIKE '%{secret}%' OR response::text LIKE '%\"pins\"%'"
        );
        assert_eq!(ts.count(&with_pin), 0, "no PIN in a stored reply");
    }
    ts.shutdown().await;
}

/// Stores `expired` records 25 hours old and one an hour old in `schema`'s idempotency table.
fn remember_keys(ts: &catan_e2e::TestSuite, schema: &str, expired: i64) {
    let inserted = ts.count(&format!(
        "WITH kept AS (
             INSERT INTO {schema}.idempotency_keys
                 (api_key_id, key, request_hash, status, response, created_at)
             SELECT gen_random_uuid(), 'old-' || n, '\\x00'::bytea, 201, '{{\"body\": {{}}}}'::jsonb,
                    now() - interval '25 hours' - n * interval '1 second'
             FROM generate_series(1, {expired}) AS n
             UNION ALL
             SELECT gen_random_uuid(), 'recent', '\\x00'::bytea, 201, '{{\"body\": {{}}}}'::jsonb,
                    now() - interval '1 hour'
             RETURNING 1)
         SELECT count(*) AS n FROM kept"
    ));
    assert_eq!(inserted, expired + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item7_every_service_purges_expired_idempotency_records() {
    let mut ts = spawn_suite().await;
    // More than one batch (1000) in results, a few in each other service.
    remember_keys(&ts, "results", 2500);
    for schema in ["registration", "pairing", "ranking"] {
        remember_keys(&ts, schema, 3);
    }
    // The purge runs at each start (and every 10 minutes).
    for owner in [
        Owner::Results,
        Owner::Registration,
        Owner::Pairing,
        Owner::Ranking,
    ] {
        ts.suite.restart_service(owner).await.expect("restarts");
    }
    for schema in ["results", "registration", "pairing", "ranking"] {
        let expired =
            format!("SELECT count(*) AS n FROM {schema}.idempotency_keys WHERE key LIKE 'old-%'");
        eventually(20, &format!("{schema}'s expired keys purged"), async || {
            (ts.count(&expired) == 0).then_some(())
        })
        .await;
        let recent =
            format!("SELECT count(*) AS n FROM {schema}.idempotency_keys WHERE key = 'recent'");
        assert_eq!(ts.count(&recent), 1, "{schema} keeps a live record");
    }
    ts.shutdown().await;
}

/// `bytes` as a PostgreSQL bytea literal.
fn bytea(bytes: &[u8]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("'\\x{hex}'::bytea")
}

/// Sets the stored PIN digest of the player in the event: how many rows it changed.
fn store_digest(ts: &catan_e2e::TestSuite, event: Uuid, player: Uuid, digest: &[u8]) -> i64 {
    ts.count(&format!(
        "WITH changed AS (
             UPDATE registration.entry_players SET pin_sha256 = {}
             WHERE event_id = '{event}' AND player_id = '{player}' RETURNING 1)
         SELECT count(*) AS n FROM changed",
        bytea(digest)
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item7_pin_digests_are_keyed_with_the_server_secret() {
    use catan_kit::pin_key::PinKey;
    let configured = "cpk_the_first_test_pin_key_of_32_chars_or_more";
    let ts = spawn_suite_configured(|s| s.tokens.pin_key = Some(configured.into())).await;
    let fx = ts.classic_event(1, Some(1)).await;
    let (event, pin) = (
        fx.event.id,
        fx.entries[0].pins.as_ref().expect("pins")[0].clone(),
    );
    let player = pin.player_id;
    let ours = PinKey::from_secret(&configured.into()).digest(event, player, &pin.pin);
    let other = PinKey::from_secret(&"cpk_another_test_pin_key_of_32_chars_or_more".into())
        .digest(event, player, &pin.pin);
    assert_ne!(ours, other, "another key gives another digest");
    let stored_as = |digest: &[u8]| {
        ts.count(&format!(
            "SELECT count(*) AS n FROM registration.entry_players \
             WHERE player_id = '{player}' AND pin_sha256 = {}",
            bytea(digest)
        ))
    };
    assert_eq!(stored_as(&ours), 1, "HMAC-SHA256 under CATAN_PIN_KEY");
    let unkeyed = ts.count(&format!(
        "SELECT count(*) AS n FROM registration.entry_players WHERE player_id = '{player}' \
         AND pin_sha256 = sha256(uuid_send(event_id) || uuid_send(player_id) || convert_to('{}', 'UTF8'))",
        pin.pin
    ));
    assert_eq!(unkeyed, 0, "not the unkeyed SHA-256 of before");

    // The server checks the PIN under its own key: a digest made under another key fails.
    assert_eq!(store_digest(&ts, event, player, &other), 1);
    assert_refused(
        ts.anonymous.player_token(event, player, &pin.pin).await,
        401,
        "a digest made under another key",
    );
    assert_eq!(store_digest(&ts, event, player, &ours), 1);
    ts.anonymous
        .player_token(event, player, &pin.pin)
        .await
        .expect("its own key's digest signs in");
    ts.shutdown().await;

    // Unconfigured (a service run alone), registration keys them with a key of its database.
    let ts = spawn_suite().await;
    let fx = ts.classic_event(1, Some(1)).await;
    let (event, pin) = (
        fx.event.id,
        fx.entries[0].pins.as_ref().expect("pins")[0].clone(),
    );
    #[derive(diesel::QueryableByName)]
    struct Kept {
        #[diesel(sql_type = diesel::sql_types::Bytea)]
        secret: Vec<u8>,
    }
    let mut conn = {
        use diesel::Connection;
        diesel::PgConnection::establish(&ts.database_url).expect("test database")
    };
    let kept: Kept = {
        use diesel::RunQueryDsl;
        diesel::sql_query("SELECT secret FROM registration.pin_key")
            .get_result(&mut conn)
            .expect("a kept key")
    };
    assert_eq!(kept.secret.len(), 32);
    let digest = PinKey::from_bytes(kept.secret).digest(event, pin.player_id, &pin.pin);
    let stored = ts.count(&format!(
        "SELECT count(*) AS n FROM registration.entry_players WHERE pin_sha256 = {}",
        bytea(&digest)
    ));
    assert_eq!(stored, 1);
    ts.shutdown().await;
}
