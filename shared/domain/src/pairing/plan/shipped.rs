//! Templates computed offline for the fields whose search cannot reach the lower bound and so
//! spends its whole budget (seconds) on round 1: long events of 24–47 players, and 18 players
//! over 5 rounds. Each is the better of two fixed-seed searches of the planner
//! (`write_shipped_plans` below regenerates them); the portfolio takes it instead of searching
//! and relabels it per seed as any template, so round 1 takes milliseconds, not seconds.

use super::shipped_data::PLANS;

/// A whole event's slot orders from the empty history, as the portfolio's template.
pub(super) struct ShippedPlan {
    pub players: usize,
    pub rounds: usize,
    /// Per round, the slot order (tables of 4 first, each table in play order).
    pub slots: &'static [&'static [u8]],
}

/// The shipped template of `players` over `rounds`, if there is one.
pub(super) fn template(players: usize, rounds: usize) -> Option<Vec<Vec<u32>>> {
    let plan = PLANS
        .iter()
        .find(|plan| plan.players == players && plan.rounds == rounds)?;
    Some(
        plan.slots
            .iter()
            .map(|round| round.iter().map(|&p| u32::from(p)).collect())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::pairing::checks::assert_seats_everyone_once;
    use crate::pairing::plan::layout::Layout;
    use crate::pairing::plan_input::PlanInput;
    use crate::pairing::repeat_lower_bound;
    use crate::seating::table_sizes;

    /// The fields shipped: the 24–47 player long events whose search misses the lower bound or
    /// takes close to a second (the last six reach 0, in 0.4–1.1 s), and 18 players over 5
    /// rounds.
    const FIELDS: [(usize, usize); 25] = [
        (18, 5),
        (25, 7),
        (26, 7),
        (24, 8),
        (25, 8),
        (26, 8),
        (27, 8),
        (29, 8),
        (30, 8),
        (24, 9),
        (25, 9),
        (26, 9),
        (27, 9),
        (29, 9),
        (30, 9),
        (33, 9),
        (34, 9),
        (37, 9),
        (42, 9),
        (25, 6),
        (29, 7),
        (30, 7),
        (33, 8),
        (34, 8),
        (40, 9),
    ];

    /// The searches' seeds: the portfolio's first two (the second improves 26 × 7 to 1 repeat
    /// and five of the 9-round fields by 1–2; each pass over the fields takes minutes).
    const SEEDS: [u64; 2] = [0x9e37_79b9, 0x7f4a_7c15];

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
                                    (index, super::super::search(&input, &layout))
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
            text +=
                &format!("    ShippedPlan {{ players: {players}, rounds: {rounds}, slots: &[\n");
            for order in slots {
                let numbers: Vec<String> = order.iter().map(u32::to_string).collect();
                text += &format!("        &[{}],\n", numbers.join(", "));
            }
            text += "    ] },\n";
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
