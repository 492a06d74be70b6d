//! A whole classic event through HTTP: 37 players, 3 qualifying rounds, semi-finals, final.

use catan_api::{DrawRound, Round, Stage, TableResult};
use catan_e2e::{assert_refused, seated, spawn_suite_with_event};
use num_rational::Ratio;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// Standings computed here from the posted results alone, without the domain crate.
fn independent_standings(results: &[TableResult]) -> Vec<(Uuid, u32, Ratio<i128>)> {
    let mut totals: HashMap<Uuid, (u32, Ratio<i128>)> = HashMap::new();
    for r in results.iter().filter(|r| r.stage == Stage::Qualifying) {
        let credited: Vec<(Uuid, u32)> = r
            .scores
            .iter()
            .map(|s| {
                let won = r.winner_player_id == Some(s.player_id);
                (s.player_id, if won { 10 } else { u32::from(s.vp.min(9)) })
            })
            .collect();
        let sum: i128 = credited.iter().map(|(_, v)| i128::from(*v)).sum();
        // A 3-player table's total is raised by its average.
        let table_total = if credited.len() == 3 {
            Ratio::new(sum * 4, 3)
        } else {
            Ratio::from_integer(sum)
        };
        for (player, vp) in credited {
            let entry = totals.entry(player).or_insert((0, Ratio::from_integer(0)));
            entry.0 += vp;
            entry.1 += Ratio::from_integer(i128::from(vp) * 100) / table_total;
        }
    }
    let mut rows: Vec<_> = totals
        .into_iter()
        .map(|(p, (vp, share))| (p, vp, share))
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)));
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_37_player_event_runs_from_registration_to_champion() {
    let (ts, fx) = spawn_suite_with_event(37, None).await;
    let event_id = fx.event.id;
    let mut rng = ChaCha8Rng::seed_from_u64(37);
    let mut rounds: Vec<Round> = Vec::new();
    let mut posted: Vec<TableResult> = Vec::new();

    for expected_number in 1..=5u32 {
        let round = fx.draw().await;
        assert_eq!(round.number, expected_number);
        // The stored round is the one returned, seed included.
        let stored = ts
            .anonymous
            .round(event_id, round.number)
            .await
            .expect("stored round");
        assert_eq!(stored.seed, round.seed);
        assert_eq!(stored.tables.len(), round.tables.len());
        for table in &round.tables {
            posted.push(fx.submit_random(&round, table, &mut rng).await);
        }
        rounds.push(round);
    }

    let stages: Vec<Stage> = rounds.iter().map(|r| r.stage).collect();
    assert_eq!(
        stages,
        [
            Stage::Qualifying,
            Stage::Qualifying,
            Stage::Qualifying,
            Stage::Semifinal,
            Stage::Final
        ]
    );

    // Every player seated once a round, at 7 tables of 4 and 3 of 3.
    let everyone: HashSet<Uuid> = fx.entries.iter().map(|e| e.player_ids[0]).collect();
    let mut met: HashMap<(Uuid, Uuid), u32> = HashMap::new();
    let mut three_player_games: HashMap<Uuid, u32> = HashMap::new();
    for round in &rounds[..3] {
        let seated: Vec<Uuid> = round
            .tables
            .iter()
            .flat_map(|t| t.seats.iter().map(|s| s.player_id))
            .collect();
        assert_eq!(seated.len(), 37, "round {}", round.number);
        assert_eq!(seated.iter().copied().collect::<HashSet<_>>(), everyone);
        let mut sizes: Vec<usize> = round.tables.iter().map(|t| t.seats.len()).collect();
        sizes.sort();
        assert_eq!(sizes, [3, 3, 3, 4, 4, 4, 4, 4, 4, 4]);
        for table in &round.tables {
            for a in &table.seats {
                for b in &table.seats {
                    if a.player_id < b.player_id {
                        *met.entry((a.player_id, b.player_id)).or_default() += 1;
                    }
                }
                if table.seats.len() == 3 {
                    *three_player_games.entry(a.player_id).or_default() += 1;
                }
            }
        }
        // The 3-player games stay spread evenly after every round.
        let counts: Vec<u32> = everyone
            .iter()
            .map(|p| three_player_games.get(p).copied().unwrap_or(0))
            .collect();
        assert!(
            counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1,
            "round {}",
            round.number
        );
    }
    assert!(
        met.values().all(|&m| m == 1),
        "nobody meets an opponent twice in the qualifying rounds"
    );

    // The standings are what the posted results say.
    let standings = ts.standings(event_id).await;
    assert_eq!(standings.after_round, 3);
    let expected = independent_standings(&posted);
    assert_eq!(standings.rows.len(), 37);
    for (row, (player, vp, share)) in standings.rows.iter().zip(&expected) {
        assert_eq!(row.vp, *vp);
        assert_eq!(
            row.vp_share_exact,
            format!("{}/{}", share.numer(), share.denom())
        );
        if row.player_id != *player {
            // Only a full tie may order two players differently.
            let theirs = expected
                .iter()
                .find(|(p, _, _)| *p == row.player_id)
                .expect("listed");
            assert_eq!((theirs.1, theirs.2), (*vp, *share));
        }
    }

    // The semi-finalists are the top 16; the finalists the semi winners.
    let top16: HashSet<Uuid> = standings.rows[..16].iter().map(|r| r.player_id).collect();
    let semi_players: HashSet<Uuid> = rounds[3]
        .tables
        .iter()
        .flat_map(|t| t.seats.iter().map(|s| s.player_id))
        .collect();
    assert_eq!(semi_players, top16);
    assert_eq!(rounds[3].tables.len(), 4);
    let rank_of: HashMap<Uuid, usize> = standings
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.player_id, i))
        .collect();
    let semi_winners: HashSet<Uuid> = posted
        .iter()
        .filter(|r| r.stage == Stage::Semifinal)
        .map(|r| {
            r.winner_player_id.unwrap_or_else(|| {
                // At the time limit the highest VP goes through; equal VP, the better qualifier.
                r.scores
                    .iter()
                    .max_by(|a, b| {
                        a.vp.cmp(&b.vp)
                            .then(rank_of[&b.player_id].cmp(&rank_of[&a.player_id]))
                    })
                    .expect("scores")
                    .player_id
            })
        })
        .collect();
    let finalists: HashSet<Uuid> = seated(&rounds[4].tables[0]).into_iter().collect();
    assert_eq!(rounds[4].tables.len(), 1);
    assert_eq!(finalists, semi_winners);

    // Placements: the final's winner, the other finalists, the semi-finalists, then the rest.
    let placements = ts.placements(event_id).await;
    let final_result = posted
        .iter()
        .find(|r| r.stage == Stage::Final)
        .expect("final result");
    assert!(placements.complete);
    assert_eq!(placements.rows.len(), 37);
    assert_eq!(placements.rows[0].player_id, final_result.winner_player_id);
    let places: Vec<Uuid> = placements.rows.iter().filter_map(|r| r.player_id).collect();
    assert_eq!(
        places[..4].iter().copied().collect::<HashSet<_>>(),
        finalists
    );
    assert_eq!(places[..16].iter().copied().collect::<HashSet<_>>(), top16);
    let rest: Vec<Uuid> = standings.rows[16..].iter().map(|r| r.player_id).collect();
    assert_eq!(places[16..], rest[..]);
    assert!(
        placements
            .rows
            .iter()
            .enumerate()
            .all(|(i, r)| usize::try_from(r.place).unwrap() == i + 1)
    );
    assert!(placements.rows[..4].iter().all(|r| r.stage == Stage::Final));
    assert!(
        placements.rows[4..16]
            .iter()
            .all(|r| r.stage == Stage::Semifinal)
    );
    assert!(
        placements.rows[16..]
            .iter()
            .all(|r| r.stage == Stage::Qualifying)
    );

    // The event is over: no further round.
    let extra = fx
        .director
        .draw_round(event_id, &DrawRound::default())
        .await;
    assert_refused(extra, 409, "the event is over");
    ts.shutdown().await;
}

/// Issue 41: a no-show dropped after the draw, and the round drawn again without him from a new
/// seed, the earlier draw kept in the audit trail; two players swapped by hand; both refused once
/// a table has a result.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_round_is_redrawn_after_a_no_show_and_swapped_by_hand_until_a_result_exists() {
    use catan_api::{DropEntry, SwapPlayers};
    use catan_e2e::http::{Method, StatusCode};
    let (ts, fx) = spawn_suite_with_event(13, None).await;
    let event_id = fx.event.id;
    let first = fx.draw().await;
    let no_show = fx.entries[0].player_ids[0];
    assert!(first.tables.iter().any(|t| seated(t).contains(&no_show)));
    // A sheet refused before the changes: results has read the round as first drawn, and must
    // not check the later sheets against that reading.
    let impossible = catan_e2e::won_by_first(&seated(&first.tables[0]), &[12, 11, 7, 6]);
    assert_refused(
        fx.scorer.submit_result(event_id, 1, 1, &impossible).await,
        422,
        "a non-winner at 11",
    );
    fx.director
        .drop_entry(
            event_id,
            fx.entries[0].id,
            &DropEntry {
                reason: "did not show".into(),
                exclude: false,
            },
        )
        .await
        .expect("dropped");

    let redraw = || fx.director.with_idempotency_key("redraw-once");
    let redrawn = redraw()
        .redraw_round(event_id, 1, &DrawRound::default())
        .await
        .expect("redrawn");
    let seated_now: HashSet<Uuid> = redrawn.tables.iter().flat_map(seated).collect();
    assert_eq!(seated_now.len(), 12, "the twelve still in the event");
    assert!(!seated_now.contains(&no_show), "the no-show is not seated");
    let sizes: Vec<usize> = redrawn.tables.iter().map(|t| t.seats.len()).collect();
    assert_eq!(sizes, [4, 4, 4]);
    assert_eq!(redrawn.number, 1);
    assert_ne!(redrawn.seed, first.seed, "a new seed");
    assert_eq!(
        redrawn.drawn_at, first.drawn_at,
        "still the round first drawn then"
    );
    assert!(!redrawn.changed_by_hand);
    let stored = ts.anonymous.round(event_id, 1).await.unwrap();
    assert_eq!(stored.seed, redrawn.seed, "the new seed is stored");
    let stored_seats: Vec<Vec<Uuid>> = stored.tables.iter().map(seated).collect();
    let redrawn_seats: Vec<Vec<Uuid>> = redrawn.tables.iter().map(seated).collect();
    assert_eq!(stored_seats, redrawn_seats);
    // Sent again with its key: the same answer, not a third draw.
    let again = redraw()
        .redraw_round(event_id, 1, &DrawRound::default())
        .await
        .unwrap();
    assert_eq!(again.seed, redrawn.seed, "a retried redraw writes once");

    // The draw it replaced is in the audit trail: its seed and its tables.
    let trail = ts
        .http(Method::GET, &format!("/v1/audit?event_id={event_id}"))
        .token(&ts.admin_token)
        .send()
        .await;
    assert_eq!(trail.status, StatusCode::OK);
    let previous: Vec<serde_json::Value> = trail
        .body()
        .as_array()
        .expect("records")
        .iter()
        .filter(|r| r["route"] == "/v1/events/{event_id}/rounds/{number}/redraw")
        .map(|r| serde_json::from_str(r["targets"]["previous_draw"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(previous.len(), 1, "one redraw recorded");
    assert_eq!(previous[0]["seed"], first.seed);
    let first_seats: Vec<Vec<Uuid>> = first.tables.iter().map(seated).collect();
    assert_eq!(previous[0]["tables"], serde_json::json!(first_seats));

    // Two players swapped: each takes the other's table and seat; the round says so.
    let (a, b) = (
        redrawn.tables[0].seats[0].clone(),
        redrawn.tables[2].seats[3].clone(),
    );
    let swap = |player_id, with_player_id| SwapPlayers {
        player_id,
        with_player_id,
    };
    let swapped = fx
        .director
        .swap_players(event_id, 1, &swap(a.player_id, b.player_id))
        .await
        .expect("swapped");
    assert!(swapped.changed_by_hand);
    assert_eq!(swapped.tables[0].seats[0].player_id, b.player_id);
    assert_eq!(swapped.tables[0].seats[0].entry_id, b.entry_id);
    assert_eq!(swapped.tables[2].seats[3].player_id, a.player_id);
    assert!(
        ts.anonymous
            .round(event_id, 1)
            .await
            .unwrap()
            .changed_by_hand
    );
    let same_table = redrawn.tables[1].seats[1].player_id;
    let refused = fx
        .director
        .swap_players(
            event_id,
            1,
            &swap(redrawn.tables[1].seats[0].player_id, same_table),
        )
        .await;
    assert_refused(refused, 422, "two players of one table");
    let refused = fx
        .director
        .swap_players(event_id, 1, &swap(no_show, same_table))
        .await;
    assert_refused(refused, 422, "a player not seated");
    let refused = fx
        .scorer
        .swap_players(event_id, 1, &swap(a.player_id, b.player_id))
        .await;
    assert_refused(refused, 403, "only the director");

    // Once a table has a result, neither is taken, and the refusal names the table.
    // The sheet of the swapped table, as it is seated now, is taken.
    let round = ts.anonymous.round(event_id, 1).await.unwrap();
    let sheet = catan_e2e::won_by_first(&seated(&round.tables[0]), &[10, 8, 7, 6]);
    fx.submit(1, 1, &sheet).await;
    let refused = fx
        .director
        .redraw_round(event_id, 1, &DrawRound::default())
        .await;
    let problem = catan_e2e::problem::problem_of(assert_refused(refused, 409, "a result exists"));
    assert!(problem.detail.contains("table 1"), "{}", problem.detail);
    let refused = fx
        .director
        .swap_players(event_id, 1, &swap(b.player_id, a.player_id))
        .await;
    assert_refused(refused, 409, "a result exists");
    let unchanged = ts.anonymous.round(event_id, 1).await.unwrap();
    assert_eq!(unchanged.seed, redrawn.seed, "nothing changed");
    ts.shutdown().await;
}
