//! Entries, drops, exclusions and late entries as the tournament director sees them.

use catan_api::{CreateEntry, CreateEvent, CreatePlayer, DrawRound, DropEntry, EntryStatus};
use catan_e2e::spawn_suite;
use catan_suite::demo::random_sheet;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dropped_and_excluded_players_are_not_seated_and_late_entries_join_the_next_round() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(13, Some(3)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let round1 = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("round 1");
    assert_eq!(
        round1.tables.iter().map(|t| t.seats.len()).sum::<usize>(),
        13
    );

    // Round 2 cannot be drawn before round 1 is complete.
    let early = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect_err("incomplete round");
    assert_eq!(early.status(), Some(409));
    for table in &round1.tables {
        let seated: Vec<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
        fx.scorer
            .submit_result(
                fx.event.id,
                1,
                table.number,
                &random_sheet(&seated, round1.stage, &mut rng),
            )
            .await
            .expect("result");
    }

    let dropped = &fx.entries[0];
    let excluded = &fx.entries[1];
    let d = fx
        .director
        .drop_entry(
            fx.event.id,
            dropped.id,
            &DropEntry {
                reason: "went home".into(),
                exclude: false,
            },
        )
        .await
        .expect("drop");
    assert_eq!(d.status, EntryStatus::Dropped);
    let x = fx
        .director
        .drop_entry(
            fx.event.id,
            excluded.id,
            &DropEntry {
                reason: "conduct".into(),
                exclude: true,
            },
        )
        .await
        .expect("exclude");
    assert_eq!(x.status, EntryStatus::Excluded);
    let twice = fx
        .director
        .drop_entry(
            fx.event.id,
            dropped.id,
            &DropEntry {
                reason: "again".into(),
                exclude: false,
            },
        )
        .await;
    assert_eq!(twice.expect_err("already dropped").status(), Some(409));
    let late = fx
        .director
        .create_player(&CreatePlayer {
            name: "Late Larry".into(),
            region_id: None,
        })
        .await
        .expect("player");
    let late_entry = fx
        .director
        .create_entry(fx.event.id, &CreateEntry::player(late.id))
        .await
        .expect("late entry");
    let duplicate = fx
        .director
        .create_entry(fx.event.id, &CreateEntry::player(late.id))
        .await;
    assert_eq!(duplicate.expect_err("entered twice").status(), Some(409));

    let round2 = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("round 2");
    let seated: HashSet<Uuid> = round2
        .tables
        .iter()
        .flat_map(|t| t.seats.iter().map(|s| s.entry_id))
        .collect();
    assert_eq!(seated.len(), 12, "13 - 2 + 1 players");
    assert!(!seated.contains(&dropped.id) && !seated.contains(&excluded.id));
    assert!(seated.contains(&late_entry.id));

    // Dropped players keep their round-1 games in the standings.
    let standings = ts
        .anonymous
        .standings(fx.event.id)
        .await
        .expect("standings");
    let row = standings
        .rows
        .iter()
        .find(|r| r.entry_id == dropped.id)
        .expect("still listed");
    assert_eq!((row.games, row.status), (1, EntryStatus::Dropped));
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fields_that_cannot_be_seated_and_bad_registrations_are_refused() {
    let ts = spawn_suite().await;
    let five = ts.classic_event(5, None).await;
    let err = five
        .director
        .draw_round(five.event.id, &DrawRound::default())
        .await
        .expect_err("5 cannot be seated");
    assert_eq!(err.status(), Some(409));
    assert!(err.to_string().contains('5'), "{err}");
    assert_eq!(ts.count("SELECT count(*) AS n FROM pairing.rounds"), 0);

    let two = ts.classic_event(2, None).await;
    assert_eq!(
        two.director
            .draw_round(two.event.id, &DrawRound::default())
            .await
            .expect_err("2 players")
            .status(),
        Some(409)
    );

    let bad_rounds = ts
        .admin
        .create_event(&CreateEvent {
            qualifying_rounds: Some(0),
            ..CreateEvent::classic("x")
        })
        .await
        .expect_err("0 rounds");
    assert_eq!(bad_rounds.status(), Some(422));
    let no_name = ts
        .admin
        .create_player(&CreatePlayer {
            name: "  ".into(),
            region_id: None,
        })
        .await
        .expect_err("blank name");
    assert_eq!(no_name.status(), Some(422));
    let ghost = five
        .director
        .create_entry(five.event.id, &CreateEntry::player(Uuid::new_v4()))
        .await
        .expect_err("no such player");
    assert_eq!(ghost.status(), Some(422));
    let unknown_event = ts
        .anonymous
        .event(Uuid::new_v4())
        .await
        .expect_err("no such event");
    assert_eq!(unknown_event.status(), Some(404));
    let too_big_seed = five
        .director
        .draw_round(
            five.event.id,
            &DrawRound {
                seed: Some(1 << 60),
            },
        )
        .await
        .expect_err("seed");
    assert_eq!(too_big_seed.status(), Some(422));
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_same_seed_and_field_give_the_same_round() {
    let ts = spawn_suite().await;
    let first = ts.classic_event(22, None).await;
    let second = ts.classic_event(22, None).await;
    let a = first
        .director
        .draw_round(first.event.id, &DrawRound { seed: Some(424242) })
        .await
        .expect("draw");
    let b = second
        .director
        .draw_round(second.event.id, &DrawRound { seed: Some(424242) })
        .await
        .expect("draw");
    // Entries are numbered in entry order, so the nth entrant of each event sits in the same seat.
    let position = |fx: &catan_e2e::EventFixture, round: &catan_api::Round| -> Vec<Vec<usize>> {
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
                            .expect("entry")
                    })
                    .collect()
            })
            .collect()
    };
    assert_eq!(a.seed, 424242);
    assert_eq!(position(&first, &a), position(&second, &b));
    ts.shutdown().await;
}
