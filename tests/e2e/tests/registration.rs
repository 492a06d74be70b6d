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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn keep_apart_pairs_set_by_the_director_never_share_a_round_one_table() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(16, Some(1)).await;
    let p: Vec<Uuid> = fx.entries.iter().map(|e| e.player_ids[0]).collect();
    // Families: 0-1, 0-2, 1-2 (three siblings), and a club pair 3-4.
    let pairs = vec![[p[0], p[1]], [p[0], p[2]], [p[1], p[2]], [p[3], p[4]]];
    let body = catan_api::KeepApart {
        pairs: pairs.clone(),
    };
    let stored = fx
        .director
        .set_keep_apart(fx.event.id, &body)
        .await
        .expect("set");
    assert_eq!(stored.pairs.len(), 4);
    let same = catan_api::KeepApart {
        pairs: vec![[p[5], p[5]]],
    };
    assert_eq!(
        fx.director
            .set_keep_apart(fx.event.id, &same)
            .await
            .expect_err("one player")
            .status(),
        Some(422)
    );
    let stranger = catan_api::KeepApart {
        pairs: vec![[p[5], Uuid::new_v4()]],
    };
    assert_eq!(
        fx.director
            .set_keep_apart(fx.event.id, &stranger)
            .await
            .expect_err("not entered")
            .status(),
        Some(422)
    );
    assert_eq!(
        fx.scorer
            .set_keep_apart(fx.event.id, &body)
            .await
            .expect_err("scorer")
            .status(),
        Some(403)
    );
    for seed in [1, 2, 3] {
        let event = ts.classic_event(16, Some(1)).await;
        let q: Vec<Uuid> = event.entries.iter().map(|e| e.player_ids[0]).collect();
        let family = catan_api::KeepApart {
            pairs: vec![[q[0], q[1]], [q[0], q[2]], [q[1], q[2]], [q[3], q[4]]],
        };
        event
            .director
            .set_keep_apart(event.event.id, &family)
            .await
            .expect("set");
        let round = event
            .director
            .draw_round(event.event.id, &DrawRound { seed: Some(seed) })
            .await
            .expect("draw");
        assert_eq!(round.figures.keep_apart_broken, 0);
        for table in &round.tables {
            let seated: HashSet<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
            for [a, b] in &family.pairs {
                assert!(
                    !(seated.contains(a) && seated.contains(b)),
                    "seed {seed}: a kept-apart pair shares a table"
                );
            }
        }
    }
    ts.shutdown().await;
}
