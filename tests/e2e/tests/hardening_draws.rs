//! Hardening (issue 10): draws pair only by standings that count every result of the rounds
//! drawn before (item 8); a real event's seeds are the server's, and only a practice event takes a
//! chosen one (item 12).

use catan_api::{CreateEntry, CreateEvent, DrawRound, ResultStatus, Round, Stage, StandingsCount};
use catan_e2e::{
    EventFixture, assert_refused, names, problem_of, seated, seated_entries, spawn_suite,
};
use catan_suite::Owner;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// Item 8: the semi-finals drawn right after the last qualifying result count it, from the results
/// service itself: ranking's read model may be behind, or down.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item_8_a_semifinal_drawn_right_after_the_last_result_counts_it_with_ranking_down() {
    let mut ts = spawn_suite().await;
    let fx = ts.classic_event(20, Some(1)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let round = fx.draw().await;
    let (last, rest) = round.tables.split_last().expect("a table");
    for table in rest {
        fx.submit_random(&round, table, &mut rng).await;
    }
    let early = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await;
    let detail = problem_of(assert_refused(early, 409, "a table has no result")).detail;
    assert!(detail.contains("not complete"), "{detail}");

    ts.suite.stop_service(Owner::Ranking).await;
    fx.submit_random(&round, last, &mut rng).await;
    let semifinal = fx.draw().await;
    assert_eq!(semifinal.stage, Stage::Semifinal);
    ts.suite
        .restart_service(Owner::Ranking)
        .await
        .expect("ranking restarts");
    ts.settled().await;
    let standings = ts.standings(fx.event.id).await;
    assert_eq!(standings.results_counted as usize, round.tables.len());
    let top_16: HashSet<Uuid> = standings.rows.iter().take(16).map(|r| r.entry_id).collect();
    assert_eq!(
        seated_entries(&semifinal),
        top_16,
        "the semi-finals seat the top 16 of standings that count the last result"
    );
    ts.shutdown().await;
}

/// Item 8: in an event that counts only confirmed results, a posted sheet not yet confirmed keeps
/// the semi-finals from being drawn (409 saying which table), until it is confirmed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item_8_a_confirmed_only_event_draws_its_semifinal_once_every_sheet_is_confirmed() {
    let ts = spawn_suite().await;
    let body = CreateEvent {
        qualifying_rounds: Some(1),
        standings_count: Some(StandingsCount::Confirmed),
        ..CreateEvent::classic("Confirmed-only open")
    };
    let mut fx = ts.event(&body).await;
    let mut pins: HashMap<Uuid, String> = HashMap::new();
    for player in ts.players(&fx, 16).await {
        let entry = fx
            .director
            .create_entry(fx.event.id, &CreateEntry::player(player))
            .await
            .expect("entry");
        for pin in entry.pins.clone().expect("the new entry's PINs") {
            pins.insert(pin.player_id, pin.pin);
        }
        fx.entries.push(entry);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(88);
    let round = fx.draw().await;
    for table in &round.tables {
        fx.submit_random(&round, table, &mut rng).await;
    }
    let (last, confirmed_first) = round.tables.split_last().expect("a table");
    for table in confirmed_first {
        for player in seated(table) {
            let client = ts.player_client(fx.event.id, player, &pins[&player]).await;
            client
                .confirm_result(fx.event.id, round.number, table.number)
                .await
                .expect("confirm");
        }
    }
    let early = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await;
    let detail = problem_of(assert_refused(early, 409, "a sheet is not confirmed")).detail;
    assert!(
        detail.contains("confirmed") && detail.contains(&format!("round 1 table {}", last.number)),
        "the refusal names the unconfirmed table: {detail}"
    );
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM pairing.rounds"),
        1,
        "nothing was drawn"
    );

    let mut status = ResultStatus::Posted;
    for player in seated(last) {
        let client = ts.player_client(fx.event.id, player, &pins[&player]).await;
        status = client
            .confirm_result(fx.event.id, round.number, last.number)
            .await
            .expect("confirm")
            .status;
    }
    assert_eq!(status, ResultStatus::Confirmed);
    let semifinal = fx.draw().await;
    assert_eq!(semifinal.stage, Stage::Semifinal);
    assert_eq!(seated_entries(&semifinal).len(), 16);
    ts.shutdown().await;
}

/// Item 12: a real event refuses a chosen seed (422 naming `seed`), and each of its draws takes a
/// fresh seed from the server, published with the round.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item_12_a_real_event_refuses_a_chosen_seed_and_draws_a_fresh_one_each_time() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(16, Some(1)).await;
    assert!(
        !fx.event.practice,
        "an event is real unless made a practice one"
    );
    let chosen = fx
        .director
        .draw_round(fx.event.id, &DrawRound { seed: Some(424242) })
        .await;
    let problem = problem_of(assert_refused(chosen, 422, "a chosen seed in a real event"));
    assert!(names(&problem, Some("seed"), "not_allowed"), "{problem:?}");
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM pairing.rounds"),
        0,
        "nothing was drawn"
    );

    let mut seeds = vec![fx.draw().await];
    for _ in 0..3 {
        seeds.push(ts.classic_event(16, Some(1)).await.draw().await);
    }
    for round in &seeds {
        assert!(!round.seed_chosen, "the server drew the seed");
        let published = ts
            .anonymous
            .round(round.event_id, round.number)
            .await
            .expect("the round");
        assert_eq!((published.seed, published.seed_chosen), (round.seed, false));
    }
    let distinct: HashSet<u64> = seeds.iter().map(|r| r.seed).collect();
    assert_eq!(distinct.len(), seeds.len(), "a fresh seed each draw");
    ts.shutdown().await;
}

/// Item 12: a practice event takes a chosen seed, says so on the round, and the published seed of
/// a real draw reproduces it there.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn item_12_a_practice_event_reproduces_a_draw_from_its_seed() {
    // Each table's seats as positions in the event's entry order: what the same seed and field
    // give again in another event.
    let by_entry_order = |fx: &EventFixture, round: &Round| -> Vec<Vec<usize>> {
        round
            .tables
            .iter()
            .map(|t| {
                t.seats
                    .iter()
                    .map(|s| {
                        fx.entries
                            .iter()
                            .position(|e| e.id == s.entry_id)
                            .expect("an entry of the event")
                    })
                    .collect()
            })
            .collect()
    };
    let ts = spawn_suite().await;
    let real = ts.classic_event(20, Some(1)).await;
    let drawn = real.draw().await;
    let practice = CreateEvent {
        qualifying_rounds: Some(1),
        practice: Some(true),
        ..CreateEvent::classic("Practice open")
    };
    let replay = ts.classic_event_as(&practice, 20).await;
    assert!(replay.event.practice);
    let replayed = replay
        .director
        .draw_round(
            replay.event.id,
            &DrawRound {
                seed: Some(drawn.seed),
            },
        )
        .await
        .expect("a practice event takes a chosen seed");
    assert!(replayed.seed_chosen, "the round shows its seed was chosen");
    assert_eq!(replayed.seed, drawn.seed);
    assert_eq!(
        by_entry_order(&replay, &replayed),
        by_entry_order(&real, &drawn),
        "the same seed and field give the same tables"
    );
    ts.shutdown().await;
}
