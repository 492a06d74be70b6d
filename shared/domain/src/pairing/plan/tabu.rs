//! Tabu search against the repeated meetings and positions the hill climb leaves.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::effort::Effort;
use super::search::Search;
use super::weights::WEIGHT_REPEAT_SQUARED;
use crate::pairing::plan_input::index_u32;

impl Search<'_> {
    /// Whether `a` and `b` may swap seats in `round` without breaking the 3-player rule.
    fn swap_keeps_threes_even(&self, round: usize, a: u32, b: u32) -> bool {
        match (self.at_three(round, a), self.at_three(round, b)) {
            (true, false) => self.cross_swap_keeps_threes_even(round, a, b),
            (false, true) => self.cross_swap_keeps_threes_even(round, b, a),
            _ => true,
        }
    }

    /// Tabu search against repeated meetings and keep-apart breaks: each step makes the best
    /// swap of a player meeting someone again (a few sampled) with anyone of the same round; a
    /// player may not return to a table it just left for a few steps. After a long stall a few
    /// random swaps shake the layout. Once no pair meets again the players repeating a play-order
    /// position are the ones moved; a swap between tables reseats both tables. Returns the best
    /// layout seen and its cost; stops at `lower_bound`, after `iterations`, or when `effort`
    /// runs out.
    pub(super) fn tabu(
        &mut self,
        iterations: u64,
        lower_bound: u64,
        effort: &mut Effort,
        rng: &mut ChaCha8Rng,
    ) -> (Vec<Vec<u32>>, u64) {
        const SAMPLED_CONFLICTS: usize = 8;
        const STALL: u64 = 2_000;
        const SHAKE_SWAPS: usize = 3;
        let tables = self.layout.table_size.len();
        let n = self.n;
        let tabu_index = |round: usize, player: u32, table: u32| {
            (round * n + player as usize) * tables + table as usize
        };
        let mut tabu_until = vec![0u64; self.input.plan_rounds * n * tables];
        let mut cost = self.cost();
        let mut best = (self.slots.clone(), cost);
        let mut since_best = 0;
        for iteration in 0..iterations {
            if cost <= lower_bound || effort.exhausted() {
                break;
            }
            effort.conflict_scan(n, self.input.plan_rounds);
            // Repeated meetings first; once there are none, repeated positions.
            let conflicts = if cost < WEIGHT_REPEAT_SQUARED {
                self.all_conflicts(Self::in_conflict)
            } else {
                self.all_conflicts(Self::meets_in_conflict)
            };
            if conflicts.is_empty() {
                break;
            }
            let mut chosen: Option<(usize, u32, u32, i64)> = None;
            let mut ties = 0u32;
            for _ in 0..SAMPLED_CONFLICTS.min(conflicts.len()) {
                effort.swaps(n as u64);
                let (round, a) = conflicts[rng.random_range(0..conflicts.len())];
                let table_a = self.table_at(round, a);
                for slot in 0..n {
                    let b = self.slots[round][slot];
                    if b == a || !self.swap_keeps_threes_even(round, a, b) {
                        continue;
                    }
                    let table_b = self.layout.slot_table[slot];
                    let delta = if table_a == table_b {
                        self.swap_delta(round, a, b)
                    } else {
                        self.swap_and_reseat_delta(round, a, b).0
                    };
                    let tabu = table_a != table_b
                        && (tabu_until[tabu_index(round, a, table_b)] > iteration
                            || tabu_until[tabu_index(round, b, table_a)] > iteration);
                    // A barred move is still taken if it beats the best layout seen.
                    if tabu && (cost as i64 + delta) as u64 >= best.1 {
                        continue;
                    }
                    let better = match chosen {
                        None => true,
                        Some((.., best_delta)) if delta < best_delta => true,
                        Some((.., best_delta)) if delta == best_delta => {
                            ties += 1;
                            rng.random_range(0..ties) == 0
                        }
                        _ => false,
                    };
                    if better {
                        if chosen.is_none_or(|(.., best_delta)| delta < best_delta) {
                            ties = 1;
                        }
                        chosen = Some((round, a, b, delta));
                    }
                }
            }
            let Some((round, a, b, delta)) = chosen else {
                continue;
            };
            let (table_a, table_b) = (self.table_at(round, a), self.table_at(round, b));
            if table_a == table_b {
                self.apply_swap(round, a, b);
            } else {
                let (_, order_a, order_b) = self.swap_and_reseat_delta(round, a, b);
                self.apply_swap(round, a, b);
                self.set_order(round, table_a, order_a);
                self.set_order(round, table_b, order_b);
            }
            cost = (cost as i64 + delta) as u64;
            if table_a != table_b {
                let tenure = 3 + rng.random_range(0..8);
                tabu_until[tabu_index(round, a, table_a)] = iteration + tenure;
                tabu_until[tabu_index(round, b, table_b)] = iteration + tenure;
            }
            if cost < best.1 {
                best = (self.slots.clone(), cost);
                since_best = 0;
            } else {
                since_best += 1;
            }
            if since_best > STALL {
                since_best = 0;
                for _ in 0..SHAKE_SWAPS {
                    let round = rng.random_range(0..self.input.plan_rounds);
                    let a = rng.random_range(0..index_u32(n));
                    let b = rng.random_range(0..index_u32(n));
                    if a != b && self.swap_keeps_threes_even(round, a, b) {
                        cost = (cost as i64 + self.swap_delta(round, a, b)) as u64;
                        self.apply_swap(round, a, b);
                    }
                }
            }
        }
        best
    }
}
