//! Every rule of the results sheet rejects bad input with a 4xx problem naming the field, and
//! nothing is stored; corrections are the director's alone, with history.

use catan_api::{BreakdownInput, CheckedSheet, OutcomeKind, SubmitResult};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{
    assert_refused, assert_sheet_refused, names, place_of, problem_of, seated,
    spawn_suite_with_event, won_by_first,
};

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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_rule_of_the_results_sheet_rejects_bad_input_and_stores_nothing() {
    let (ts, fx) = spawn_suite_with_event(8, Some(1)).await;
    let round = fx.draw().await;
    let players = seated(&round.tables[0]);
    let elsewhere = round.tables[1].seats[0].player_id;
    let ok = won_by_first(&players, &[10, 7, 5, 3]);

    // What is wrong with the good sheet, and the field and the code that say so.
    type Edit<'a> = &'a dyn Fn(&mut SubmitResult);
    let cases: [(Edit, &str, &str); 14] = [
        (
            &|s| s.scores[3].player_id = elsewhere,
            "scores[3].player_id",
            "unknown_player",
        ),
        (
            &|s| s.scores[3].player_id = players[2],
            "scores[3].player_id",
            "duplicate_player",
        ),
        (&|s| s.scores.truncate(3), "scores", "missing_player"),
        (&|s| s.scores[2].vp = 1, "scores[2].vp", "out_of_range"),
        (&|s| s.scores[0].vp = 23, "scores[0].vp", "out_of_range"),
        (
            &|s| s.winner_player_id = None,
            "winner_player_id",
            "winner_missing",
        ),
        (
            &|s| s.winner_player_id = Some(elsewhere),
            "winner_player_id",
            "winner_not_seated",
        ),
        (
            &|s| s.scores[0].vp = 9,
            "winner_player_id",
            "winner_below_ten",
        ),
        (
            &|s| s.outcome = OutcomeKind::TimeLimit,
            "winner_player_id",
            "winner_at_time_limit",
        ),
        (
            &|s| s.scores[1].breakdown = breakdown(6, 0, 1, false, false),
            "scores[1].breakdown.settlements",
            "out_of_range",
        ),
        (
            &|s| s.scores[0].breakdown = breakdown(0, 5, 0, false, false),
            "scores[0].breakdown.cities",
            "out_of_range",
        ),
        (
            &|s| {
                s.scores[3].vp = 3;
                s.scores[3].breakdown = breakdown(1, 0, 2, false, false);
            },
            "scores[3].breakdown",
            "too_few_buildings",
        ),
        (
            &|s| s.scores[1].breakdown = breakdown(3, 1, 0, false, false),
            "scores[1].breakdown",
            "breakdown_sum_mismatch",
        ),
        (
            &|s| {
                s.scores[0].breakdown = breakdown(2, 1, 4, true, false);
                s.scores[1].breakdown = breakdown(3, 1, 2, false, false);
            },
            "scores",
            "too_many_vp_cards",
        ),
    ];
    let at = (round.number, round.tables[0].number);
    for (edit, field, code) in cases {
        let mut sheet = ok.clone();
        edit(&mut sheet);
        assert_sheet_refused(&ts, &fx, at, &sheet, Some(field), code).await;
    }
    // A bonus claimed by two players.
    for (road, army, code) in [
        (true, false, "multiple_longest_road_holders"),
        (false, true, "multiple_largest_army_holders"),
    ] {
        let mut sheet = ok.clone();
        sheet.scores[0].breakdown = breakdown(2, 3, 0, road, army);
        sheet.scores[1].breakdown = breakdown(3, 1, 0, road, army);
        assert_sheet_refused(&ts, &fx, at, &sheet, Some("scores"), code).await;
    }

    // A sheet with a breakdown that adds up is accepted.
    let mut good = ok.clone();
    good.scores[0].breakdown = breakdown(2, 3, 0, true, false);
    good.scores[1].breakdown = breakdown(3, 2, 0, false, false);
    let stored = fx.submit(1, round.tables[0].number, &good).await;
    assert_eq!(stored.version, 1);
    assert_eq!(stored.scores[0].credited_vp, 10);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn results_for_tables_rounds_or_bodies_that_do_not_exist_are_refused() {
    let (ts, fx) = spawn_suite_with_event(8, Some(1)).await;
    let sheet = fx.draw_and_sheet(&[10, 7, 5, 3]).await;
    let no_table = fx.scorer.submit_result(fx.event.id, 1, 9, &sheet).await;
    assert_refused(no_table, 404, "no table 9");
    let no_round = fx.scorer.submit_result(fx.event.id, 2, 1, &sheet).await;
    assert_refused(no_round, 404, "round 2 not drawn");

    // Malformed JSON and a wrong type are problems too.
    let url = format!("/v1/events/{}/rounds/1/tables/1/result", fx.event.id);
    let put = |body: String| {
        ts.http(Method::PUT, &url)
            .token(&ts.admin_token)
            .json_text(body)
            .send()
    };
    for body in [
        "{not json",
        r#"{"outcome":"won","scores":"many"}"#,
        r#"{"outcome":"draw","scores":[]}"#,
    ] {
        let resp = put(body.to_string()).await;
        assert!(resp.status.is_client_error(), "{body}: {}", resp.status);
        assert!(resp.is_problem(), "{body}");
        let problem = resp.body();
        assert!(problem["detail"].as_str().is_some_and(|d| !d.is_empty()));
    }
    assert_eq!(ts.count("SELECT count(*) AS n FROM results.results"), 0);

    // Unknown routes and oversized bodies answer with problems as well.
    let nowhere = ts.http(Method::GET, "/v1/nowhere").send().await;
    nowhere.assert_problem(StatusCode::NOT_FOUND);
    let huge = format!(
        r#"{{"outcome":"won","scores":[],"pad":"{}"}}"#,
        "x".repeat(200_000)
    );
    put(huge)
        .await
        .assert_problem(StatusCode::PAYLOAD_TOO_LARGE);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn only_the_director_corrects_a_result_and_every_version_is_kept() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let first = fx.draw_and_sheet(&[10, 7, 5, 3]).await;
    assert_eq!(fx.submit(1, 1, &first).await.version, 1);
    // The same sheet again changes nothing.
    assert_eq!(fx.submit(1, 1, &first).await.version, 1);

    let mut corrected = first.clone();
    corrected.scores[1].vp = 8;
    let by_scorer = fx.scorer.submit_result(fx.event.id, 1, 1, &corrected).await;
    assert_refused(by_scorer, 409, "scorer cannot correct");
    let kept = ts
        .anonymous
        .result(fx.event.id, 1, 1)
        .await
        .expect("result");
    assert_eq!(kept.scores[1].vp, 7);

    let fixed = fx
        .director
        .correct_result(fx.event.id, 1, 1, &corrected, "\"v1\"")
        .await
        .expect("director corrects");
    assert_eq!(fixed.version, 2);
    let history = ts.anonymous.result_history(fx.event.id, 1, 1).await;
    let versions: Vec<(u32, u8)> = history
        .expect("history")
        .items
        .iter()
        .map(|r| (r.version, r.scores[1].vp))
        .collect();
    assert_eq!(versions, [(1, 7), (2, 8)]);
    let standings = ts.standings(fx.event.id).await;
    let second = place_of(&standings, first.scores[1].player_id);
    assert_eq!(
        standings.rows[second].vp, 8,
        "standings count the corrected result"
    );

    // A final cannot end at the time limit: with 4 players the top 4 go straight to the final.
    let final_round = fx.draw().await;
    assert_eq!(final_round.stage, catan_api::Stage::Final);
    let mut timed_out = won_by_first(&seated(&final_round.tables[0]), &[10, 7, 5, 3]);
    timed_out.outcome = OutcomeKind::TimeLimit;
    timed_out.winner_player_id = None;
    timed_out.scores[0].vp = 9;
    let refused = fx.scorer.submit_result(fx.event.id, 2, 1, &timed_out).await;
    let problem = problem_of(refused.expect_err("final needs a winner"));
    assert!(
        names(&problem, Some("outcome"), "final_at_time_limit"),
        "{problem:?}"
    );
    ts.shutdown().await;
}

/// Issue 41, item 2, the worked example: a non-winner typed at 10 VP beside a winner at 12 is
/// refused on his VP, saying what each player would be credited; a non-winner at 11 is refused,
/// the table app and the player cannot mark the sheet checked, and the director can, with a
/// reason the audit trail keeps.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_non_winner_at_ten_or_more_is_refused_unless_the_director_marks_the_sheet_checked() {
    let (ts, fx) = spawn_suite_with_event(8, Some(2)).await;
    let round = fx.draw().await;
    let players = seated(&round.tables[0]);
    let at = (round.number, round.tables[0].number);

    let typo = won_by_first(&players, &[12, 10, 7, 5]);
    assert_sheet_refused(
        &ts,
        &fx,
        at,
        &typo,
        Some("scores[1].vp"),
        "non_winner_at_ten",
    )
    .await;
    let problem = problem_of(
        fx.director
            .submit_result(fx.event.id, at.0, at.1, &typo)
            .await
            .expect_err("a non-winner at 10"),
    );
    let said = &problem.errors[0].message;
    assert!(
        said.contains("credited 9") && said.contains("10, 9, 7, 5"),
        "{said}"
    );

    let eleven = won_by_first(&players, &[12, 11, 7, 5]);
    assert_sheet_refused(
        &ts,
        &fx,
        at,
        &eleven,
        Some("scores[1].vp"),
        "non_winner_at_ten",
    )
    .await;
    let reason = "N cut W's road on N's turn: W had 11 without winning";
    let checked = SubmitResult {
        checked: Some(CheckedSheet {
            reason: reason.into(),
        }),
        ..eleven.clone()
    };
    let by_table_app = fx
        .scorer
        .submit_result(fx.event.id, at.0, at.1, &checked)
        .await;
    let refused = problem_of(assert_refused(
        by_table_app,
        403,
        "a table app cannot mark it",
    ));
    assert!(
        refused.detail.contains("only the tournament director"),
        "{refused:?}"
    );
    let pin_of = |player: uuid::Uuid| {
        fx.entries
            .iter()
            .flat_map(|e| e.pins.iter().flatten())
            .find(|p| p.player_id == player)
            .map(|p| p.pin.clone())
            .expect("a PIN")
    };
    let player = ts
        .player_client(fx.event.id, players[1], &pin_of(players[1]))
        .await;
    let by_player = player
        .submit_result(fx.event.id, at.0, at.1, &checked)
        .await;
    assert_refused(by_player, 403, "a player cannot mark it");
    let blank = SubmitResult {
        checked: Some(CheckedSheet {
            reason: "  ".into(),
        }),
        ..eleven.clone()
    };
    let problem = problem_of(
        fx.director
            .submit_result(fx.event.id, at.0, at.1, &blank)
            .await
            .expect_err("a blank reason"),
    );
    assert!(
        names(&problem, Some("checked.reason"), "invalid_reason"),
        "{problem:?}"
    );
    let none = ts.anonymous.result(fx.event.id, at.0, at.1).await;
    assert_refused(none, 404, "nothing stored while refused");

    let taken = fx
        .director
        .submit_result(fx.event.id, at.0, at.1, &checked)
        .await
        .expect("checked by the director");
    let credited: Vec<u8> = taken.scores.iter().map(|s| s.credited_vp).collect();
    assert_eq!(credited, [10, 9, 7, 5]);
    let trail = ts
        .http(Method::GET, &format!("/v1/audit?event_id={}", fx.event.id))
        .token(&ts.admin_token)
        .send()
        .await;
    assert_eq!(trail.status, StatusCode::OK);
    let records = trail.body();
    let kept: Vec<&serde_json::Value> = records
        .as_array()
        .expect("records")
        .iter()
        .filter(|r| r["targets"]["checked_reason"] == reason)
        .collect();
    assert_eq!(kept.len(), 1, "{records:?}");
    assert_eq!(kept[0]["method"], "PUT");
    ts.shutdown().await;
}

/// Issue 41, item 3: the director voids a posted sheet before the next round is drawn; the table
/// then has no result, the standings leave the game out, the history keeps the voided version,
/// and a new sheet is the next version. A table app cannot void; once the next round is drawn,
/// nobody can (409).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_voided_result_leaves_the_table_and_the_standings_until_a_new_sheet() {
    let (ts, fx) = spawn_suite_with_event(4, Some(2)).await;
    let first = fx.draw_and_sheet(&[10, 7, 5, 3]).await;
    let winner = first.scores[0].player_id;
    assert_eq!(fx.submit(1, 1, &first).await.version, 1);
    let standings = ts.standings(fx.event.id).await;
    assert_eq!(standings.rows[place_of(&standings, winner)].vp, 10);

    let by_table_app = fx.scorer.void_result(fx.event.id, 1, 1).await;
    assert_refused(by_table_app, 403, "a table app cannot void");
    let voided = fx
        .director
        .void_result(fx.event.id, 1, 1)
        .await
        .expect("the director voids");
    assert!(voided.voided);
    assert_eq!(voided.version, 1);
    let none = ts.anonymous.result(fx.event.id, 1, 1).await;
    assert_refused(none, 404, "the table has no result");
    let again = fx.director.void_result(fx.event.id, 1, 1).await;
    assert_refused(again, 404, "nothing left to void");
    let standings = ts.standings(fx.event.id).await;
    let row = &standings.rows[place_of(&standings, winner)];
    assert_eq!((row.vp, row.games), (0, 0), "the standings follow the void");

    // A new sheet, from the table app, is version 2; the history keeps both.
    let second = won_by_first(&seated_of(&first), &[10, 8, 6, 4]);
    let recorded = fx
        .scorer
        .submit_result(fx.event.id, 1, 1, &second)
        .await
        .expect("a new sheet after the void");
    assert_eq!((recorded.version, recorded.voided), (2, false));
    let history = ts
        .anonymous
        .result_history(fx.event.id, 1, 1)
        .await
        .expect("history");
    let versions: Vec<(u32, bool, u8)> = history
        .items
        .iter()
        .map(|r| (r.version, r.voided, r.scores[1].vp))
        .collect();
    assert_eq!(versions, [(1, true, 7), (2, false, 8)]);
    let standings = ts.standings(fx.event.id).await;
    let second_player = first.scores[1].player_id;
    assert_eq!(standings.rows[place_of(&standings, second_player)].vp, 8);

    // Once round 2 is drawn, round 1's results stand.
    fx.draw().await;
    let late = fx.director.void_result(fx.event.id, 1, 1).await;
    let problem = problem_of(assert_refused(late, 409, "the next round is drawn"));
    assert!(problem.detail.contains("round 2 is drawn"), "{problem:?}");
    ts.shutdown().await;
}

/// The players of a sheet, in its order.
fn seated_of(sheet: &SubmitResult) -> Vec<uuid::Uuid> {
    sheet.scores.iter().map(|s| s.player_id).collect()
}
