//! Hardening (issue 10): draws pair only by standings that count every result of the rounds
//! drawn before (item 8).

use catan_api::{CreateEntry, CreateEvent, DrawRound, ResultStatus, Stage, StandingsCount};
use catan_e2e::{assert_refused, problem_of, seated, seated_entries, spawn_suite};
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
