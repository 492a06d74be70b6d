//! Every rule of the results sheet rejects bad input with a 4xx problem naming the field, and
//! nothing is stored; corrections are the director's alone, with history.

use catan_api::{BreakdownInput, ClientError, DrawRound, OutcomeKind, Round, SubmitResult};
use catan_e2e::{EventFixture, TestSuite, spawn_suite, won_by_first};
use uuid::Uuid;

fn breakdown(
    settlements: i64,
    cities: i64,
    vp_cards: i64,
    longest_road: bool,
    largest_army: bool,
) -> Option<BreakdownInput> {
    Some(BreakdownInput {
        settlements,
        cities,
        vp_cards,
        longest_road,
        largest_army,
    })
}

/// Asserts a 422 that names `field` with `code`, and that nothing was stored.
async fn assert_rejected(
    ts: &TestSuite,
    fx: &EventFixture,
    round: &Round,
    sheet: &SubmitResult,
    field: &str,
    code: &str,
) {
    let err = fx
        .scorer
        .submit_result(fx.event.id, round.number, round.tables[0].number, sheet)
        .await
        .expect_err("a bad sheet is refused");
    let ClientError::Problem { problem } = err else {
        panic!("a problem document, got {err:?}")
    };
    assert_eq!(problem.status, 422, "{field}/{code}: {problem:?}");
    assert!(
        problem
            .errors
            .iter()
            .any(|e| e.field == field && e.code == code),
        "expected {field}/{code} in {:?}",
        problem.errors
    );
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM results.results"),
        0,
        "nothing stored after {code}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_rule_of_the_results_sheet_rejects_bad_input_and_stores_nothing() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(8, Some(1)).await;
    let round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");
    let players: Vec<Uuid> = round.tables[0].seats.iter().map(|s| s.player_id).collect();
    let elsewhere = round.tables[1].seats[0].player_id;
    let ok = won_by_first(&players, &[10, 7, 5, 3]);

    let mut cases: Vec<(SubmitResult, &str, &str)> = Vec::new();
    let mut s = ok.clone();
    s.scores[3].player_id = elsewhere;
    cases.push((s, "scores[3].player_id", "unknown_player"));
    let mut s = ok.clone();
    s.scores[3].player_id = players[2];
    cases.push((s, "scores[3].player_id", "duplicate_player"));
    let mut s = ok.clone();
    s.scores.pop();
    cases.push((s, "scores", "missing_player"));
    let mut s = ok.clone();
    s.scores[2].vp = 1;
    cases.push((s, "scores[2].vp", "out_of_range"));
    let mut s = ok.clone();
    s.scores[0].vp = 23;
    cases.push((s, "scores[0].vp", "out_of_range"));
    let mut s = ok.clone();
    s.winner_player_id = None;
    cases.push((s, "winner_player_id", "winner_missing"));
    let mut s = ok.clone();
    s.winner_player_id = Some(elsewhere);
    cases.push((s, "winner_player_id", "winner_not_seated"));
    let mut s = ok.clone();
    s.scores[0].vp = 9;
    cases.push((s, "winner_player_id", "winner_below_ten"));
    let mut s = ok.clone();
    s.outcome = OutcomeKind::TimeLimit;
    cases.push((s, "winner_player_id", "winner_at_time_limit"));
    let mut s = ok.clone();
    s.scores[1].breakdown = breakdown(6, 0, 1, false, false);
    cases.push((s, "scores[1].breakdown.settlements", "out_of_range"));
    let mut s = ok.clone();
    s.scores[0].breakdown = breakdown(0, 5, 0, false, false);
    cases.push((s, "scores[0].breakdown.cities", "out_of_range"));
    let mut s = ok.clone();
    s.scores[3].vp = 3;
    s.scores[3].breakdown = breakdown(1, 0, 2, false, false);
    cases.push((s, "scores[3].breakdown", "too_few_buildings"));
    let mut s = ok.clone();
    s.scores[1].breakdown = breakdown(3, 1, 0, false, false);
    cases.push((s, "scores[1].breakdown", "breakdown_sum_mismatch"));
    let mut s = ok.clone();
    s.scores[0].breakdown = breakdown(2, 1, 4, true, false);
    s.scores[1].breakdown = breakdown(3, 1, 2, false, false);
    cases.push((s, "scores", "too_many_vp_cards"));
    let mut s = ok.clone();
    s.scores[0].breakdown = breakdown(2, 3, 0, true, false);
    s.scores[1].breakdown = breakdown(3, 1, 0, true, false);
    cases.push((s, "scores", "multiple_longest_road_holders"));
    let mut s = ok.clone();
    s.scores[0].breakdown = breakdown(2, 3, 0, false, true);
    s.scores[1].breakdown = breakdown(3, 1, 0, false, true);
    cases.push((s, "scores", "multiple_largest_army_holders"));

    for (sheet, field, code) in &cases {
        assert_rejected(&ts, &fx, &round, sheet, field, code).await;
    }

    // A sheet with a breakdown that adds up is accepted.
    let mut good = ok.clone();
    good.scores[0].breakdown = breakdown(2, 3, 0, true, false);
    good.scores[1].breakdown = breakdown(3, 2, 0, false, false);
    let stored = fx
        .scorer
        .submit_result(fx.event.id, 1, round.tables[0].number, &good)
        .await
        .expect("valid sheet");
    assert_eq!(stored.version, 1);
    assert_eq!(stored.scores[0].credited_vp, 10);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn results_for_tables_rounds_or_bodies_that_do_not_exist_are_refused() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(8, Some(1)).await;
    let round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");
    let players: Vec<Uuid> = round.tables[0].seats.iter().map(|s| s.player_id).collect();
    let sheet = won_by_first(&players, &[10, 7, 5, 3]);
    let no_table = fx
        .scorer
        .submit_result(fx.event.id, 1, 9, &sheet)
        .await
        .expect_err("no table 9");
    assert_eq!(no_table.status(), Some(404));
    let no_round = fx
        .scorer
        .submit_result(fx.event.id, 2, 1, &sheet)
        .await
        .expect_err("round 2 not drawn");
    assert_eq!(no_round.status(), Some(404));

    // Malformed JSON and a wrong type are problems too.
    let http = reqwest::Client::new();
    let url = format!(
        "{}/v1/events/{}/rounds/1/tables/1/result",
        ts.suite.url(),
        fx.event.id
    );
    let token = ts
        .anonymous
        .token(&ts.admin_key)
        .await
        .expect("token")
        .access_token;
    for body in [
        "{not json",
        r#"{"outcome":"won","scores":"many"}"#,
        r#"{"outcome":"draw","scores":[]}"#,
    ] {
        let resp = http
            .put(&url)
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("answer");
        assert!(resp.status().is_client_error(), "{body}: {}", resp.status());
        assert_eq!(resp.headers()["content-type"], "application/problem+json");
        let problem: serde_json::Value = resp.json().await.expect("problem");
        assert!(problem["detail"].as_str().is_some_and(|d| !d.is_empty()));
    }
    assert_eq!(ts.count("SELECT count(*) AS n FROM results.results"), 0);

    // Unknown routes and oversized bodies answer with problems as well.
    let resp = http
        .get(format!("{}/v1/nowhere", ts.suite.url()))
        .send()
        .await
        .expect("answer");
    assert_eq!(resp.status(), 404);
    assert_eq!(resp.headers()["content-type"], "application/problem+json");
    let huge = format!(
        r#"{{"outcome":"won","scores":[],"pad":"{}"}}"#,
        "x".repeat(200_000)
    );
    let resp = http
        .put(&url)
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .expect("answer");
    assert_eq!(resp.status(), 413);
    assert_eq!(resp.headers()["content-type"], "application/problem+json");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn only_the_director_corrects_a_result_and_every_version_is_kept() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(4, Some(1)).await;
    let round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");
    let players: Vec<Uuid> = round.tables[0].seats.iter().map(|s| s.player_id).collect();
    let first = won_by_first(&players, &[10, 7, 5, 3]);
    let created = fx
        .scorer
        .submit_result(fx.event.id, 1, 1, &first)
        .await
        .expect("first result");
    assert_eq!(created.version, 1);
    // The same sheet again changes nothing.
    let again = fx
        .scorer
        .submit_result(fx.event.id, 1, 1, &first)
        .await
        .expect("same sheet");
    assert_eq!(again.version, 1);

    let mut corrected = first.clone();
    corrected.scores[1].vp = 8;
    let refused = fx
        .scorer
        .submit_result(fx.event.id, 1, 1, &corrected)
        .await
        .expect_err("scorer cannot correct");
    assert_eq!(refused.status(), Some(409));
    assert_eq!(
        ts.anonymous
            .result(fx.event.id, 1, 1)
            .await
            .expect("result")
            .scores[1]
            .vp,
        7
    );

    let fixed = fx
        .director
        .correct_result(fx.event.id, 1, 1, &corrected, "\"v1\"")
        .await
        .expect("director corrects");
    assert_eq!(fixed.version, 2);
    let history = ts
        .anonymous
        .result_history(fx.event.id, 1, 1)
        .await
        .expect("history");
    let versions: Vec<(u32, u8)> = history
        .items
        .iter()
        .map(|r| (r.version, r.scores[1].vp))
        .collect();
    assert_eq!(versions, [(1, 7), (2, 8)]);
    let standings = ts
        .anonymous
        .standings(fx.event.id)
        .await
        .expect("standings");
    let vp = standings
        .rows
        .iter()
        .find(|r| r.player_id == players[1])
        .expect("listed")
        .vp;
    assert_eq!(vp, 8, "standings count the corrected result");

    // A final cannot end at the time limit: with 4 players the top 4 go straight to the final.
    let final_round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("final");
    assert_eq!(final_round.stage, catan_api::Stage::Final);
    let finalists: Vec<Uuid> = final_round.tables[0]
        .seats
        .iter()
        .map(|s| s.player_id)
        .collect();
    let mut timed_out = won_by_first(&finalists, &[10, 7, 5, 3]);
    timed_out.outcome = OutcomeKind::TimeLimit;
    timed_out.winner_player_id = None;
    timed_out.scores[0].vp = 9;
    let err = fx
        .scorer
        .submit_result(fx.event.id, 2, 1, &timed_out)
        .await
        .expect_err("final needs a winner");
    let ClientError::Problem { problem } = err else {
        panic!("problem")
    };
    assert!(
        problem
            .errors
            .iter()
            .any(|e| e.field == "outcome" && e.code == "final_at_time_limit"),
        "{problem:?}"
    );
    ts.shutdown().await;
}
