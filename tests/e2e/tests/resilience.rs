//! A service that is down loses no result.

use catan_api::DrawRound;
use catan_e2e::{assert_refused, spawn_suite_with_event};
use catan_suite::Owner;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn results_posted_while_ranking_is_down_count_once_it_is_back() {
    let (mut ts, fx) = spawn_suite_with_event(12, Some(2)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let round = fx.draw().await;
    let (first, rest) = round.tables.split_first().expect("a table");
    let mut posted = vec![fx.submit_random(&round, first, &mut rng).await];
    assert_eq!(ts.standings(fx.event.id).await.results_counted, 1);

    ts.suite.stop_service(Owner::Ranking).await;
    assert!(
        ts.anonymous.standings(fx.event.id).await.is_err(),
        "ranking is down"
    );
    // Results are still accepted.
    for table in rest {
        posted.push(fx.submit_random(&round, table, &mut rng).await);
    }
    ts.suite
        .restart_service(Owner::Ranking)
        .await
        .expect("ranking restarts");

    let standings = ts.standings(fx.event.id).await;
    assert_eq!(standings.results_counted as usize, round.tables.len());
    assert_eq!(standings.after_round, 1);
    for row in &standings.rows {
        let expected: u32 = posted
            .iter()
            .flat_map(|r| r.scores.iter())
            .filter(|s| s.player_id == row.player_id)
            .map(|s| u32::from(s.credited_vp))
            .sum();
        assert_eq!(row.vp, expected);
    }
    // And the event goes on.
    fx.draw().await;
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draw_while_a_peer_is_down_is_refused_cleanly_and_changes_nothing() {
    let (mut ts, fx) = spawn_suite_with_event(8, Some(1)).await;
    ts.suite.stop_service(Owner::Registration).await;
    let drawn = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await;
    assert_refused(drawn, 503, "registration is down");
    assert_eq!(ts.count("SELECT count(*) AS n FROM pairing.rounds"), 0);
    ts.suite
        .restart_service(Owner::Registration)
        .await
        .expect("registration restarts");
    fx.draw().await;
    ts.shutdown().await;
}
