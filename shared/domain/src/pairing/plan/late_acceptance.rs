//! Late Acceptance Hill Climbing over the planned rounds.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::effort::Effort;
use super::search::Search;
use crate::pairing::plan_input::index_u32;

impl Search<'_> {
    /// Late Acceptance Hill Climbing; returns the best layout seen and its cost. Stops at
    /// `lower_bound` (the plan's, computed once by the caller: it is not cheap), after
    /// `iterations`, after `patience` iterations without a new best, or when `effort` runs out.
    pub(super) fn run(
        &mut self,
        iterations: u64,
        patience: u64,
        lower_bound: u64,
        effort: &mut Effort,
        rng: &mut ChaCha8Rng,
    ) -> (Vec<Vec<u32>>, u64) {
        const HISTORY_LENGTH: usize = 400;
        let mut last_improvement = 0;
        let mut cost = self.cost();
        let mut best = (self.slots.clone(), cost);
        let mut recent = vec![cost; HISTORY_LENGTH];
        let mut conflicts = self.all_conflicts(Self::in_conflict);
        let plan = self.input.plan_rounds;
        // `slot` is `iteration % HISTORY_LENGTH`: where this iteration's cost is remembered.
        for (iteration, slot) in (0..iterations).zip((0..HISTORY_LENGTH).cycle()) {
            if cost <= lower_bound || iteration - last_improvement > patience || effort.exhausted()
            {
                break;
            }
            effort.swaps(1);
            if conflicts.is_empty() {
                effort.conflict_scan(self.n, plan);
                conflicts = self.all_conflicts(Self::in_conflict);
            }
            // Mostly work on players in conflict; sometimes move anyone, to escape plateaus.
            let (round, a) = if !conflicts.is_empty() && rng.random_bool(0.8) {
                let index = rng.random_range(0..conflicts.len());
                let (round, player) = conflicts[index];
                if !self.in_conflict(round, player) {
                    conflicts.swap_remove(index);
                    continue;
                }
                (round, player)
            } else {
                (
                    rng.random_range(0..plan),
                    rng.random_range(0..index_u32(self.n)),
                )
            };
            // A quarter of the moves reorder a table (play-order positions only).
            let b = if rng.random_bool(0.25) {
                let members = self.table_members(round, self.table_at(round, a));
                members[rng.random_range(0..members.len())]
            } else {
                self.slots[round][rng.random_range(0..self.n)]
            };
            if a == b {
                continue;
            }
            let (three_a, three_b) = (self.at_three(round, a), self.at_three(round, b));
            if three_a != three_b {
                let (leaving, joining) = if three_a { (a, b) } else { (b, a) };
                if !self.cross_swap_keeps_threes_even(round, leaving, joining) {
                    continue;
                }
            }
            // Between tables, both tables then take their best seat order.
            let (table_a, table_b) = (self.table_at(round, a), self.table_at(round, b));
            let (delta, orders) = if table_a == table_b {
                (self.swap_delta(round, a, b), None)
            } else {
                let (delta, order_a, order_b) = self.swap_and_reseat_delta(round, a, b);
                (delta, Some((order_a, order_b)))
            };
            let candidate = (cost as i64 + delta) as u64;
            if delta <= 0 || candidate <= recent[slot] {
                self.apply_swap(round, a, b);
                if let Some((order_a, order_b)) = orders {
                    self.set_order(round, table_a, order_a);
                    self.set_order(round, table_b, order_b);
                }
                cost = candidate;
                if cost < best.1 {
                    best = (self.slots.clone(), cost);
                    last_improvement = iteration;
                }
                for player in [a, b] {
                    if self.in_conflict(round, player) {
                        conflicts.push((round, player));
                    }
                }
            }
            recent[slot] = cost;
        }
        best
    }
}
