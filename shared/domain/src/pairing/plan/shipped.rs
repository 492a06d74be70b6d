//! Templates computed offline for the fields whose search, within `effort::PLAN_BUDGET`, plans
//! worse than it does without the cap: long events (6 to 12 rounds) of 7–50 players, and 18
//! players over 5 rounds. Searched without the cap they spent seconds on round 1 (up to 7 s).
//! Each is the best of the portfolio's three fixed-seed searches, run without the cap
//! (`write_shipped_plans` below regenerates them); the portfolio takes it instead of searching
//! and relabels it per seed as any template, so round 1 takes milliseconds.

use super::shipped_data::PLANS;
use crate::pairing::plan_input::index_u32;

/// A whole event's slot orders from the empty history, as the portfolio's template.
pub(super) struct ShippedPlan {
    pub players: usize,
    pub rounds: usize,
    /// The rounds' slot orders (tables of 4 first, each table in play order), separated by
    /// spaces; one character a player (`PLAYER_DIGITS`), so 124 plans take 40 kB.
    pub slots: &'static str,
}

/// Player `i` is written as the `i`-th character.
const PLAYER_DIGITS: &str = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// The shipped template of `players` over `rounds`, if there is one.
pub(super) fn template(players: usize, rounds: usize) -> Option<Vec<Vec<u32>>> {
    let plan = PLANS
        .iter()
        .find(|plan| plan.players == players && plan.rounds == rounds)?;
    plan.slots
        .split(' ')
        .map(|round| {
            round
                .chars()
                .map(|digit| PLAYER_DIGITS.find(digit).map(index_u32))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::pairing::checks::assert_seats_everyone_once;
    use crate::pairing::plan::effort::Effort;
    use crate::pairing::plan::layout::Layout;
    use crate::pairing::plan_input::PlanInput;
    use crate::pairing::repeat_lower_bound;
    use crate::seating::table_sizes;

    /// The fields shipped: those whose search within `PLAN_BUDGET` plans worse (a higher cost:
    /// more repeats, more pairs meeting a third time or more position repeats) than without it,
    /// found by comparing `classic-sweep --from 6 --to 200 --rounds 2..12` with and without the
    /// cap, and 18 players over 5 rounds, by rounds and players. Every other field up to 200
    /// players and 12 rounds plans the same within the cap.
    const FIELDS: [(usize, usize); 124] = [
        (18, 5),
        (14, 6),
        (18, 6),
        (21, 6),
        (22, 6),
        (23, 6),
        (25, 6),
        (7, 7),
        (10, 7),
        (11, 7),
        (14, 7),
        (17, 7),
        (19, 7),
        (20, 7),
        (21, 7),
        (22, 7),
        (23, 7),
        (25, 7),
        (26, 7),
        (29, 7),
        (30, 7),
        (10, 8),
        (17, 8),
        (18, 8),
        (19, 8),
        (20, 8),
        (21, 8),
        (24, 8),
        (25, 8),
        (26, 8),
        (27, 8),
        (29, 8),
        (30, 8),
        (33, 8),
        (34, 8),
        (14, 9),
        (15, 9),
        (16, 9),
        (17, 9),
        (21, 9),
        (22, 9),
        (23, 9),
        (24, 9),
        (25, 9),
        (26, 9),
        (27, 9),
        (29, 9),
        (30, 9),
        (33, 9),
        (34, 9),
        (37, 9),
        (40, 9),
        (42, 9),
        (12, 10),
        (13, 10),
        (15, 10),
        (16, 10),
        (21, 10),
        (22, 10),
        (23, 10),
        (24, 10),
        (25, 10),
        (26, 10),
        (27, 10),
        (29, 10),
        (30, 10),
        (31, 10),
        (33, 10),
        (34, 10),
        (35, 10),
        (36, 10),
        (38, 10),
        (39, 10),
        (40, 10),
        (41, 10),
        (11, 11),
        (13, 11),
        (15, 11),
        (17, 11),
        (18, 11),
        (19, 11),
        (20, 11),
        (25, 11),
        (26, 11),
        (27, 11),
        (29, 11),
        (30, 11),
        (31, 11),
        (33, 11),
        (34, 11),
        (35, 11),
        (36, 11),
        (37, 11),
        (38, 11),
        (39, 11),
        (40, 11),
        (42, 11),
        (45, 11),
        (7, 12),
        (15, 12),
        (17, 12),
        (18, 12),
        (20, 12),
        (22, 12),
        (25, 12),
        (26, 12),
        (29, 12),
        (30, 12),
        (31, 12),
        (33, 12),
        (34, 12),
        (35, 12),
        (36, 12),
        (37, 12),
        (38, 12),
        (39, 12),
        (40, 12),
        (41, 12),
        (42, 12),
        (44, 12),
        (45, 12),
        (47, 12),
        (48, 12),
        (50, 12),
    ];

    /// The searches' seeds: the portfolio's, so each plan is at least as good as the portfolio's
    /// search without the cap (minutes of CPU for each pass over the fields).
    const SEEDS: [u64; 3] = super::super::portfolio::PORTFOLIO;

    /// A search's slot orders and their cost.
    type Found = (Vec<Vec<u32>>, u64);

    fn fresh(players: usize, rounds: usize, seed: u64) -> PlanInput {
        PlanInput {
            players,
            sizes: table_sizes(players).unwrap(),
            history: Vec::new(),
            plan_rounds: rounds,
            three_player_games: vec![0; players],
            positions_before: vec![[0; 4]; players],
            keep_apart: vec![Vec::new(); players],
            seed,
        }
    }

    fn repeats(slots: &[Vec<u32>], layout: &Layout) -> u32 {
        let mut meetings: HashMap<(u32, u32), u32> = HashMap::new();
        for order in slots {
            for (&start, &size) in layout.table_start.iter().zip(&layout.table_size) {
                let table = &order[start..start + size];
                for (i, &a) in table.iter().enumerate() {
                    for &b in &table[i + 1..] {
                        *meetings.entry((a.min(b), a.max(b))).or_default() += 1;
                    }
                }
            }
        }
        meetings.values().map(|m| m - 1).sum()
    }

    #[test]
    fn every_shipped_plan_seats_everyone_once_and_keeps_three_player_games_even() {
        for plan in PLANS {
            let sizes = table_sizes(plan.players).unwrap();
            let layout = Layout::new(sizes);
            let slots = template(plan.players, plan.rounds).unwrap();
            assert_eq!(slots.len(), plan.rounds);
            let mut games = vec![0u32; plan.players];
            for order in &slots {
                assert_seats_everyone_once([order], plan.players);
                let (at_four, at_three) = order.split_at(4 * sizes.fours);
                let most_at_three = at_three.iter().map(|&p| games[p as usize]).max();
                let fewest_at_four = at_four.iter().map(|&p| games[p as usize]).min();
                if let (Some(most), Some(fewest)) = (most_at_three, fewest_at_four) {
                    assert!(most <= fewest, "{} players: uneven", plan.players);
                }
                for &p in at_three {
                    games[p as usize] += 1;
                }
            }
            let bound = repeat_lower_bound(plan.players, plan.rounds).unwrap();
            assert!(repeats(&slots, &layout) >= bound.repeats);
        }
    }

    #[test]
    fn the_planner_gives_every_seed_a_shipped_plan_relabelled() {
        for plan in PLANS.iter().filter(|plan| plan.rounds >= 8) {
            let layout = Layout::new(table_sizes(plan.players).unwrap());
            let shipped = repeats(&template(plan.players, plan.rounds).unwrap(), &layout);
            let mut first_rounds = Vec::new();
            for seed in [1, 2] {
                let planned = super::super::plan_rounds(&fresh(plan.players, plan.rounds, seed));
                let slots: Vec<Vec<u32>> = planned.rounds.iter().map(|r| r.concat()).collect();
                assert_eq!(
                    repeats(&slots, &layout),
                    shipped,
                    "{} players",
                    plan.players
                );
                first_rounds.push(slots[0].clone());
            }
            assert_ne!(
                first_rounds[0], first_rounds[1],
                "each seed draws its own round 1"
            );
        }
    }

    /// Regenerates `shipped_data.rs`: for each field, the best (by the search's objective) of
    /// the searches with `SEEDS`. Minutes of CPU:
    /// `cargo test -p catan-domain -- --ignored write_shipped_plans`.
    #[test]
    #[ignore = "regenerates the shipped plans"]
    fn write_shipped_plans() {
        assert!(
            FIELDS
                .iter()
                .all(|&(players, _)| players <= PLAYER_DIGITS.len())
        );
        // Seed by seed over every field (two threads, each taking every other field); the file
        // is written after each seed, so the first pass already has a plan for every field.
        let mut best: Vec<Option<Found>> = vec![None; FIELDS.len()];
        for seed in SEEDS {
            let found: Vec<Vec<(usize, Found)>> = std::thread::scope(|scope| {
                let workers: Vec<_> = (0..2)
                    .map(|worker| {
                        scope.spawn(move || {
                            (worker..FIELDS.len())
                                .step_by(2)
                                .map(|index| {
                                    let (players, rounds) = FIELDS[index];
                                    let layout = Layout::new(table_sizes(players).unwrap());
                                    let input = fresh(players, rounds, seed);
                                    let mut effort = Effort::unlimited();
                                    let found = super::super::search(&input, &layout, &mut effort);
                                    (index, found)
                                })
                                .collect()
                        })
                    })
                    .collect();
                workers.into_iter().map(|w| w.join().unwrap()).collect()
            });
            for (index, candidate) in found.into_iter().flatten() {
                if best[index].as_ref().is_none_or(|b| candidate.1 < b.1) {
                    let (players, rounds) = FIELDS[index];
                    let layout = Layout::new(table_sizes(players).unwrap());
                    println!(
                        "{players} x {rounds}, seed {seed:#x}: {} repeats",
                        repeats(&candidate.0, &layout)
                    );
                    best[index] = Some(candidate);
                }
            }
            write_plans(&best);
        }
    }

    fn write_plans(best: &[Option<Found>]) {
        let mut text = String::from(
            "//! Generated by `shipped::tests::write_shipped_plans`: do not edit.\n\n\
             use super::shipped::ShippedPlan;\n\n\
             #[rustfmt::skip]\npub(super) const PLANS: &[ShippedPlan] = &[\n",
        );
        for (&(players, rounds), plan) in FIELDS.iter().zip(best) {
            let Some((slots, _)) = plan else { continue };
            let digits: Vec<char> = PLAYER_DIGITS.chars().collect();
            let rounds_text: Vec<String> = slots
                .iter()
                .map(|order| order.iter().map(|&p| digits[p as usize]).collect())
                .collect();
            text += &format!(
                "    ShippedPlan {{ players: {players}, rounds: {rounds}, slots: \"{}\" }},\n",
                rounds_text.join(" ")
            );
        }
        text += "];\n";
        std::fs::write(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/src/pairing/plan/shipped_data.rs"
            ),
            text,
        )
        .unwrap();
    }
}
