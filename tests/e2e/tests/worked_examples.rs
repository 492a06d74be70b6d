//! The rule set's worked examples, reproduced exactly through the API.

use catan_api::{OutcomeKind, ScoreInput, SubmitResult};
use catan_e2e::{place_of, seated, spawn_suite_with_event, won_by_first};
use catan_suite::demo::random_sheet;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use uuid::Uuid;

/// A sheet where the `fixed` players have their VP and the others fill the table up to `total`:
/// whoever has 10 wins; if nobody fixed has 10, the first other player wins with 10.
fn sheet_with_total(seated: &[Uuid], fixed: &[(Uuid, i64)], total: i64) -> SubmitResult {
    let others: Vec<Uuid> = seated
        .iter()
        .copied()
        .filter(|p| !fixed.iter().any(|(f, _)| f == p))
        .collect();
    let mut scores: Vec<ScoreInput> = fixed
        .iter()
        .map(|&(player_id, vp)| ScoreInput {
            player_id,
            vp,
            breakdown: None,
        })
        .collect();
    let mut remaining = total - fixed.iter().map(|(_, vp)| vp).sum::<i64>();
    let mut winner = fixed.iter().find(|(_, vp)| *vp >= 10).map(|(p, _)| *p);
    let mut free = others.as_slice();
    if winner.is_none() {
        winner = Some(free[0]);
        scores.push(ScoreInput {
            player_id: free[0],
            vp: 10,
            breakdown: None,
        });
        remaining -= 10;
        free = &free[1..];
    }
    for (i, &player_id) in free.iter().enumerate() {
        let left = (free.len() - i) as i64;
        let vp = remaining / left + i64::from(remaining % left > 0);
        assert!((2..=9).contains(&vp), "a total of {total} cannot be filled");
        scores.push(ScoreInput {
            player_id,
            vp,
            breakdown: None,
        });
        remaining -= vp;
    }
    assert_eq!(remaining, 0);
    SubmitResult {
        early_reason: None,
        checked: None,
        outcome: OutcomeKind::Won,
        winner_player_id: winner,
        winner_entry_id: None,
        scores,
    }
}

/// A player's game: (his VP, the table's total VP).
type Game = (i64, i64);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn equal_vp_is_decided_by_the_exact_sum_of_vp_shares() {
    let (ts, fx) = spawn_suite_with_event(16, None).await;
    let (a, b) = (fx.entries[0].player_ids[0], fx.entries[1].player_ids[0]);
    // A: 10 of 32, 8 of 30, 10 of 36. B: 10 of 30, 10 of 33, 8 of 36. A round's pair of games
    // can share one table only when the totals agree (30 or 36), so those are kept for a meeting.
    let mut games: Vec<(Game, Game, bool)> = vec![
        ((10, 32), (10, 33), false),
        ((8, 30), (10, 30), true),
        ((10, 36), (8, 36), true),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..3 {
        let round = fx.draw().await;
        let table_of = |player: Uuid| {
            let at = |t: &catan_api::Table| t.seats.iter().any(|s| s.player_id == player);
            round.tables.iter().position(at).expect("seated")
        };
        let (ta, tb) = (table_of(a), table_of(b));
        let pick = if ta == tb {
            games
                .iter()
                .position(|g| g.2)
                .expect("a shareable game is left")
        } else {
            games.iter().position(|g| !g.2).unwrap_or(0)
        };
        let ((a_vp, a_total), (b_vp, b_total), _) = games.remove(pick);
        for (i, table) in round.tables.iter().enumerate() {
            let players = seated(table);
            let sheet = if i == ta && i == tb {
                sheet_with_total(&players, &[(a, a_vp), (b, b_vp)], a_total)
            } else if i == ta {
                sheet_with_total(&players, &[(a, a_vp)], a_total)
            } else if i == tb {
                sheet_with_total(&players, &[(b, b_vp)], b_total)
            } else {
                random_sheet(&players, round.stage, &mut rng)
            };
            fx.submit(round.number, table.number, &sheet).await;
        }
    }
    let standings = ts.standings(fx.event.id).await;
    let (place_a, place_b) = (place_of(&standings, a), place_of(&standings, b));
    let (ra, rb) = (&standings.rows[place_a], &standings.rows[place_b]);
    assert_eq!((ra.vp, rb.vp), (28, 28));
    assert_eq!(ra.vp_share, "85.69");
    assert_eq!(rb.vp_share, "85.86");
    // Exactly: 31.25 + 80/3 + 250/9 and 100/3 + 1000/33 + 200/9.
    assert_eq!(ra.vp_share_exact, "3085/36");
    assert_eq!(rb.vp_share_exact, "8500/99");
    assert!(rb.rank < ra.rank, "B ranks above A");
    assert!(place_b < place_a);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_three_player_table_total_is_raised_by_its_average() {
    // 15 players: three tables of 4 and one of 3.
    let (ts, fx) = spawn_suite_with_event(15, Some(1)).await;
    let round = fx.draw().await;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut trio = Vec::new();
    for table in &round.tables {
        let players = seated(table);
        let sheet = if players.len() == 3 {
            trio = players.clone();
            won_by_first(&players, &[10, 9, 5])
        } else {
            random_sheet(&players, round.stage, &mut rng)
        };
        fx.submit(round.number, table.number, &sheet).await;
    }
    assert_eq!(trio.len(), 3, "the draw has one 3-player table");
    let standings = ts.standings(fx.event.id).await;
    let row = |p: Uuid| &standings.rows[place_of(&standings, p)];
    let shares = [row(trio[0]), row(trio[1]), row(trio[2])].map(|r| r.vp_share.as_str());
    assert_eq!(shares, ["31.25", "28.13", "15.63"]);
    assert_eq!(row(trio[0]).three_player_games, 1);
    ts.shutdown().await;
}
