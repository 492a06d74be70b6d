//! A service that is down loses no result.

use catan_api::DrawRound;
use catan_e2e::spawn_suite;
use catan_suite::Owner;
use catan_suite::demo::random_sheet;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn results_posted_while_ranking_is_down_count_once_it_is_back() {
    let mut ts = spawn_suite().await;
    let fx = ts.classic_event(12, Some(2)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");
    let mut posted = Vec::new();
    let first = round.tables.first().expect("a table");
    let seated: Vec<Uuid> = first.seats.iter().map(|s| s.player_id).collect();
    posted.push(
        fx.scorer
            .submit_result(
                fx.event.id,
                1,
                first.number,
                &random_sheet(&seated, round.stage, &mut rng),
            )
            .await
            .expect("result"),
    );
    assert_eq!(
        ts.anonymous
            .standings(fx.event.id)
            .await
            .expect("standings")
            .results_counted,
        1
    );

    ts.suite.stop_service(Owner::Ranking).await;
    assert!(
        ts.anonymous.standings(fx.event.id).await.is_err(),
        "ranking is down"
    );
    for table in &round.tables[1..] {
        let seated: Vec<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
        let sheet = random_sheet(&seated, round.stage, &mut rng);
        posted.push(
            fx.scorer
                .submit_result(fx.event.id, 1, table.number, &sheet)
                .await
                .expect("results still accepted"),
        );
    }
    ts.suite
        .restart_service(Owner::Ranking)
        .await
        .expect("ranking restarts");

    let standings = ts
        .anonymous
        .standings(fx.event.id)
        .await
        .expect("standings");
    assert_eq!(standings.results_counted as usize, round.tables.len());
    assert_eq!(standings.after_round, 1);
    for row in &standings.rows {
        let expected: u32 = posted
            .iter()
            .flat_map(|r| r.scores.iter())
            .filter(|s| s.player_id == row.player_id)
            .map(|s| s.credited_vp as u32)
            .sum();
        assert_eq!(row.vp, expected);
    }
    // And the event goes on.
    fx.director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("round 2");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draw_while_a_peer_is_down_is_refused_cleanly_and_changes_nothing() {
    let mut ts = spawn_suite().await;
    let fx = ts.classic_event(8, Some(1)).await;
    ts.suite.stop_service(Owner::Registration).await;
    let err = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect_err("registration is down");
    assert_eq!(err.status(), Some(503));
    assert_eq!(ts.count("SELECT count(*) AS n FROM pairing.rounds"), 0);
    ts.suite
        .restart_service(Owner::Registration)
        .await
        .expect("registration restarts");
    fx.director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw after restart");
    ts.shutdown().await;
}
