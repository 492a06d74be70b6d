//! `catan-suite up --replicas 2` run as a user runs it: every service as two OS processes over one
//! PostgreSQL, behind the gateway. A classic event is played through the gateway with the typed
//! client (its retries, an idempotency key on every write) while one replica of each service is
//! SIGKILLed mid-round: every call succeeds, and what is stored is exactly what was posted.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

use catan_api::{
    ApiClient, CreateEntry, CreateEvent, DrawRound, RetryPolicy, Role, Round, TableResult,
};
use catan_e2e::{eventually, new_key, new_player, seated};
use catan_suite::demo::random_sheet;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use reqwest::StatusCode;
use uuid::Uuid;

#[path = "common/launcher.rs"]
mod launcher;
use launcher::{Launcher, signal};

/// Posts each table's sheet of `round` with `scorer`, in turn: what was sent and answered.
async fn post_all(
    scorer: &ApiClient,
    event_id: Uuid,
    round: &Round,
    sheets: Vec<(u32, catan_api::SubmitResult)>,
) -> Vec<(u32, u32, catan_api::SubmitResult, TableResult)> {
    let mut posted = Vec::new();
    for (table, sheet) in sheets {
        let answer = scorer
            .submit_result(event_id, round.number, table, &sheet)
            .await
            .unwrap_or_else(|e| panic!("round {} table {table}: {e}", round.number));
        posted.push((round.number, table, sheet, answer));
    }
    posted
}

/// A random but legal sheet for each of `tables` of `round`.
fn sheets_for(
    round: &Round,
    tables: &[catan_api::Table],
    rng: &mut ChaCha8Rng,
) -> Vec<(u32, catan_api::SubmitResult)> {
    tables
        .iter()
        .map(|t| (t.number, random_sheet(&seated(t), round.stage, rng)))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_event_goes_on_while_one_replica_of_each_service_is_killed() {
    let database_url = tokio::task::spawn_blocking(catan_e2e::fresh_database)
        .await
        .unwrap()
        .expect("a fresh test database");
    let admin_key = format!("ck_test_admin_{}", Uuid::new_v4().simple());
    // 4 standings streams in all: 2 for each ranking replica.
    let launcher = Launcher::start(&database_url, &admin_key, &[("CATAN_STREAMS_TOTAL", "4")]);
    let url = launcher
        .printed(120, "the gateway's URL", |line| {
            line.strip_prefix("Catan tournament API on ")
                .and_then(|rest| rest.split_whitespace().next())
                .map(str::to_owned)
        })
        .await;
    let replicas = launcher.replicas();
    assert_eq!(
        replicas.len(),
        8,
        "two processes of each service: {replicas:?}"
    );
    let limits = launcher
        .printed(1, "the limits", |l| {
            l.contains("limits of each replica").then(|| l.to_owned())
        })
        .await;
    assert!(limits.contains("CATAN_STREAMS_TOTAL=2"), "{limits}");

    // The client a table app uses: retries with backoff, one idempotency key per write.
    let anonymous = ApiClient::new(&url);
    let admin = anonymous.with_token(
        anonymous
            .token(&admin_key)
            .await
            .expect("token")
            .access_token,
    );
    let event = admin
        .create_event(&CreateEvent {
            qualifying_rounds: Some(2),
            ..CreateEvent::classic("Replicated open")
        })
        .await
        .expect("event");
    let scorer_key = admin
        .create_api_key(&new_key("table app", Role::Scorer, Some(vec![event.id])))
        .await
        .expect("scorer key");
    let scorer = anonymous.with_token(
        anonymous
            .token(&scorer_key.api_key)
            .await
            .expect("scorer token")
            .access_token,
    );
    for i in 0..16 {
        let player = admin
            .create_player(&new_player(&format!("Player {i:02}")))
            .await
            .expect("player");
        admin
            .create_entry(event.id, &CreateEntry::player(player.id))
            .await
            .expect("entry");
    }

    // The streams' total is shared out: each ranking replica holds 2 of the 4, and once both are
    // full the gateway's next stream is refused, whichever replica it reaches.
    eventually(30, "ranking knows the event", async || {
        anonymous.standings(event.id).await.ok()
    })
    .await;
    let http = reqwest::Client::new();
    let stream_path = format!("/v1/events/{}/standings/stream", event.id);
    let mut streams = Vec::new();
    for index in [1, 2] {
        let base = &replicas[&("ranking".to_owned(), index)].1;
        for _ in 0..2 {
            let stream = http.get(format!("{base}{stream_path}")).send().await;
            assert_eq!(
                stream.as_ref().map(|s| s.status()).ok(),
                Some(StatusCode::OK)
            );
            streams.push(stream);
        }
        let third = http.get(format!("{base}{stream_path}")).send().await;
        assert_eq!(
            third.expect("an answer").status(),
            StatusCode::TOO_MANY_REQUESTS,
            "ranking {index} holds 2 streams, half the total"
        );
    }
    let fifth = http.get(format!("{url}{stream_path}")).send().await;
    assert_eq!(
        fifth.expect("an answer").status(),
        StatusCode::TOO_MANY_REQUESTS,
        "4 streams is the total over both replicas"
    );
    drop(streams);

    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let draw = async || {
        admin
            .draw_round(event.id, &DrawRound::default())
            .await
            .expect("a draw")
    };
    let first = draw().await;
    let mut posted = post_all(
        &scorer,
        event.id,
        &first,
        sheets_for(&first, &first.tables, &mut rng),
    )
    .await;

    // Round 2: a table's result, then the others while one replica of each service is killed.
    let second = draw().await;
    let (before, during) = second.tables.split_at(1);
    let sheets = sheets_for(&second, before, &mut rng);
    posted.extend(post_all(&scorer, event.id, &second, sheets).await);
    let sheets = sheets_for(&second, during, &mut rng);
    // A client that never retries: the gateway alone must skip the dead replicas.
    let once = ApiClient::with_policy(
        &url,
        RetryPolicy {
            attempts: 1,
            ..RetryPolicy::default()
        },
    );
    let kill_one_of_each = async {
        for service in ["registration", "pairing", "results", "ranking"] {
            signal("KILL", replicas[&(service.to_owned(), 1)].0);
        }
        // Twice each, so that both replicas' turns come.
        for _ in 0..2 {
            once.event(event.id).await.expect("registration answers");
            once.round(event.id, 2).await.expect("pairing answers");
            once.result(event.id, 1, 1).await.expect("results answer");
            once.standings(event.id).await.expect("ranking answers");
        }
    };
    // The posts start first: the kills land while one is in flight.
    let (answers, ()) = tokio::join!(
        post_all(&scorer, event.id, &second, sheets),
        kill_one_of_each
    );
    posted.extend(answers);

    // The qualifying standings count exactly the results posted, once each.
    let standings = eventually(20, "the standings count round 2", async || {
        let standings = anonymous.standings(event.id).await.expect("standings");
        (standings.results_counted == 8).then_some(standings)
    })
    .await;
    assert_eq!(standings.after_round, 2);
    for row in &standings.rows {
        let vp: u32 = posted
            .iter()
            .flat_map(|(_, _, _, answer)| &answer.scores)
            .filter(|s| s.player_id == row.player_id)
            .map(|s| u32::from(s.credited_vp))
            .sum();
        assert_eq!(row.vp, vp, "{}", row.name);
    }

    // The semi-finals and the final, on the replicas left (and those started again).
    for _ in 0..2 {
        let round = draw().await;
        let sheets = sheets_for(&round, &round.tables, &mut rng);
        posted.extend(post_all(&scorer, event.id, &round, sheets).await);
    }
    let (_, _, final_sheet, _) = posted.last().expect("the final");
    let champion = final_sheet.winner_player_id.expect("a final is won");
    let placements = eventually(20, "the placements", async || {
        let placements = anonymous.placements(event.id).await.expect("placements");
        placements.complete.then_some(placements)
    })
    .await;
    assert_eq!(placements.rows[0].player_id, Some(champion));

    // What is stored is what was posted: each sheet once, as sent, and nothing else.
    for (round, table, sheet, answer) in &posted {
        let stored = anonymous
            .result(event.id, *round, *table)
            .await
            .expect("a stored result");
        assert_eq!(
            stored.version, 1,
            "round {round} table {table} written once"
        );
        assert_eq!(stored.winner_player_id, sheet.winner_player_id);
        assert_eq!(stored.scores, answer.scores);
        let mut sent: Vec<(Uuid, i64)> = sheet.scores.iter().map(|s| (s.player_id, s.vp)).collect();
        let mut kept: Vec<(Uuid, i64)> = stored
            .scores
            .iter()
            .map(|s| (s.player_id, i64::from(s.vp)))
            .collect();
        sent.sort_unstable();
        kept.sort_unstable();
        assert_eq!(kept, sent, "round {round} table {table}");
    }
    let all = anonymous.event_results(event.id).await.expect("results");
    assert_eq!(all.len(), posted.len(), "no result but those posted");

    // The launcher started the killed replicas again.
    for service in ["registration", "pairing", "results", "ranking"] {
        launcher
            .printed(30, &format!("{service} 1 started again"), |l| {
                l.contains(&format!("{service} 1 started again"))
                    .then_some(())
            })
            .await;
    }
    for (_, url) in replicas.values() {
        eventually(60, "every replica answers again", async || {
            let health = http.get(format!("{url}/health")).send().await;
            health.is_ok_and(|h| h.status() == 200).then_some(())
        })
        .await;
    }

    // A revoked key's tokens are refused at once by every replica of every service, not only by
    // the one that revoked it and the one of each service its notice reached.
    let key = admin
        .create_api_key(&new_key("second admin", Role::Admin, None))
        .await
        .expect("a key");
    let token = anonymous
        .token(&key.api_key)
        .await
        .expect("token")
        .access_token;
    let writes = [
        (
            "registration",
            reqwest::Method::POST,
            "/v1/players".to_owned(),
        ),
        (
            "pairing",
            reqwest::Method::POST,
            format!("/v1/events/{}/rounds", event.id),
        ),
        (
            "results",
            reqwest::Method::PUT,
            format!("/v1/events/{}/rounds/1/tables/1/result", event.id),
        ),
        ("ranking", reqwest::Method::POST, "/v1/seasons".to_owned()),
    ];
    // Each replica, asked directly, with a body no write takes: 422 once the token is taken, 401
    // when it is refused.
    let statuses = async || {
        let mut statuses = Vec::new();
        for (service, method, path) in &writes {
            for index in [1, 2] {
                let base = &replicas[&((*service).to_owned(), index)].1;
                let answer = http
                    .request(method.clone(), format!("{base}{path}"))
                    .bearer_auth(&token)
                    .json(&serde_json::json!({"seed": "not a number"}))
                    .send()
                    .await
                    .expect("an answer");
                statuses.push((format!("{service} {index}"), answer.status().as_u16()));
            }
        }
        statuses
    };
    for (replica, status) in statuses().await {
        assert_eq!(status, 422, "{replica} takes the token");
    }
    let revoked = http
        .delete(format!("{url}/v1/api-keys/{}", key.id))
        .bearer_auth(
            anonymous
                .token(&admin_key)
                .await
                .expect("token")
                .access_token,
        )
        .header("idempotency-key", Uuid::new_v4().to_string())
        .send()
        .await
        .expect("revoked");
    assert!(revoked.status().is_success(), "{}", revoked.status());
    for (replica, status) in statuses().await {
        assert_eq!(
            status, 401,
            "{replica} refuses the revoked key's token at once"
        );
    }

    launcher.stop();
    catan_e2e::drop_database(&database_url).await;
}
