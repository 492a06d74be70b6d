//! Local search over the remaining qualifying rounds of a classic event.
//!
//! The planner lays out every remaining round (the one being drawn and those after it) and
//! improves them together with Late Acceptance Hill Climbing over swap moves (two players of
//! one round change tables). Players are dense indices `0..n` here; the caller maps them.
//!
//! A move never breaks a hard rule: everybody is seated once per round by construction, table
//! sizes never change, and a swap between a table of 3 and a table of 4 is only made when the
//! 3-player counts of every planned round stay within one of each other.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::seating::TableSizes;

use super::construct;

/// No table: the player was absent in that round.
pub(crate) const ABSENT: u32 = u32::MAX;

/// Weights of the objective, one tier per rule, highest first. A tier outweighs every
/// realistic total of the tiers below it, so minimising the sum minimises them in order.
pub const WEIGHT_KEEP_APART_FIRST_ROUND: u64 = 1 << 56;
pub const WEIGHT_REPEAT: u64 = 1 << 40;
pub const WEIGHT_REPEAT_SQUARED: u64 = 1 << 28;
pub const WEIGHT_POSITION_REPEAT: u64 = 1 << 14;
pub const WEIGHT_KEEP_APART_LATER: u64 = 1;

/// Cost of a player having sat `times` times in one play-order position.
fn position_cost(times: u32) -> u64 {
    WEIGHT_POSITION_REPEAT * u64::from(times.saturating_sub(1))
}

/// Cost of a pair that meets `meetings` times: repeats, then their squares.
pub(crate) fn pair_cost(meetings: u32) -> u64 {
    let extra = u64::from(meetings.saturating_sub(1));
    WEIGHT_REPEAT * extra + WEIGHT_REPEAT_SQUARED * extra * extra
}

pub(crate) struct PlanInput {
    pub players: usize,
    pub sizes: TableSizes,
    /// Earlier rounds, each a list of tables of dense players (absent players left out).
    pub history: Vec<Vec<Vec<u32>>>,
    /// Rounds to plan, the one being drawn included (at least 1).
    pub plan_rounds: usize,
    /// 3-player games each player counts as having had before the first planned round.
    pub three_player_games: Vec<u32>,
    /// Times each player sat in each play-order position in earlier rounds.
    pub positions_before: Vec<[u32; 4]>,
    /// For each player, the players they must be kept apart from.
    pub keep_apart: Vec<Vec<u32>>,
    pub seed: u64,
}

pub(crate) struct Plan {
    /// Every planned round as tables of dense players, laid out as `TableSizes::in_order`.
    pub rounds: Vec<Vec<Vec<u32>>>,
}

struct Layout {
    table_start: Vec<usize>,
    table_size: Vec<usize>,
    slot_table: Vec<u32>,
}

impl Layout {
    fn new(sizes: TableSizes) -> Layout {
        let mut table_start = Vec::new();
        let mut table_size = Vec::new();
        let mut slot_table = Vec::new();
        for (table, size) in sizes.in_order().enumerate() {
            table_start.push(slot_table.len());
            table_size.push(size);
            slot_table.extend(std::iter::repeat_n(table as u32, size));
        }
        Layout {
            table_start,
            table_size,
            slot_table,
        }
    }
}

struct Search<'a> {
    input: &'a PlanInput,
    layout: &'a Layout,
    n: usize,
    history_rounds: usize,
    rounds_total: usize,
    /// `table_of[player * rounds_total + round]`: history rounds first, then planned ones.
    table_of: Vec<u32>,
    /// Per planned round: slot -> player and player -> slot.
    slots: Vec<Vec<u32>>,
    slot_of: Vec<Vec<u32>>,
    /// `threes[r][p]`: 3-player games of `p` before planned round `r` (`r` in `0..=plan`).
    threes: Vec<Vec<u32>>,
    /// `histogram[(r * 2 + at_three) * levels + count]`: players per count and table size.
    histogram: Vec<u32>,
    levels: usize,
    /// Times each player sits in each play-order position, history and plan.
    positions: Vec<[u32; 4]>,
    /// Seat orders of a table of 3 and of 4 (see `seat_orders`).
    orders: [Vec<Vec<usize>>; 2],
}

impl<'a> Search<'a> {
    fn new(input: &'a PlanInput, layout: &'a Layout, slots: Vec<Vec<u32>>) -> Search<'a> {
        let n = input.players;
        let history_rounds = input.history.len();
        let rounds_total = history_rounds + input.plan_rounds;
        let mut table_of = vec![ABSENT; n * rounds_total];
        for (round, tables) in input.history.iter().enumerate() {
            for (table, players) in tables.iter().enumerate() {
                for &player in players {
                    table_of[player as usize * rounds_total + round] = table as u32;
                }
            }
        }
        let mut slot_of = vec![vec![0u32; n]; input.plan_rounds];
        for (round, order) in slots.iter().enumerate() {
            for (slot, &player) in order.iter().enumerate() {
                slot_of[round][player as usize] = slot as u32;
                table_of[player as usize * rounds_total + history_rounds + round] =
                    layout.slot_table[slot];
            }
        }
        let levels =
            *input.three_player_games.iter().max().unwrap_or(&0) as usize + input.plan_rounds + 2;
        let mut search = Search {
            input,
            layout,
            n,
            history_rounds,
            rounds_total,
            table_of,
            slots,
            slot_of,
            threes: Vec::new(),
            histogram: Vec::new(),
            levels,
            positions: input.positions_before.clone(),
            orders: [seat_orders(3), seat_orders(4)],
        };
        for round in 0..input.plan_rounds {
            for player in 0..n as u32 {
                let position = search.position_at(round, player);
                search.positions[player as usize][position] += 1;
            }
        }
        search.recount_threes();
        search
    }

    /// Play-order position (0 = first) of `player` in planned `round`.
    fn position_at(&self, round: usize, player: u32) -> usize {
        let slot = self.slot_of[round][player as usize] as usize;
        slot - self.layout.table_start[self.layout.slot_table[slot] as usize]
    }

    fn first_three_slot(&self) -> usize {
        4 * self.input.sizes.fours
    }

    fn at_three(&self, round: usize, player: u32) -> bool {
        self.slot_of[round][player as usize] as usize >= self.first_three_slot()
    }

    fn recount_threes(&mut self) {
        let plan = self.input.plan_rounds;
        let mut threes = vec![self.input.three_player_games.clone()];
        let mut histogram = vec![0u32; plan * 2 * self.levels];
        for round in 0..plan {
            let mut next = threes[round].clone();
            for player in 0..self.n as u32 {
                let three = self.at_three(round, player);
                let count = threes[round][player as usize] as usize;
                histogram[(round * 2 + usize::from(three)) * self.levels + count] += 1;
                next[player as usize] += u32::from(three);
            }
            threes.push(next);
        }
        self.threes = threes;
        self.histogram = histogram;
    }

    fn meetings(&self, a: u32, b: u32) -> u32 {
        let rows = self.rounds_total;
        let ta = &self.table_of[a as usize * rows..(a as usize + 1) * rows];
        let tb = &self.table_of[b as usize * rows..(b as usize + 1) * rows];
        ta.iter()
            .zip(tb)
            .filter(|&(x, y)| x == y && *x != ABSENT)
            .count() as u32
    }

    fn history_meetings(&self, a: u32, b: u32) -> u32 {
        let rows = self.rounds_total;
        let history = self.history_rounds;
        let ta = &self.table_of[a as usize * rows..a as usize * rows + history];
        let tb = &self.table_of[b as usize * rows..b as usize * rows + history];
        ta.iter()
            .zip(tb)
            .filter(|&(x, y)| x == y && *x != ABSENT)
            .count() as u32
    }

    fn kept_apart(&self, a: u32, b: u32) -> bool {
        self.input.keep_apart[a as usize].contains(&b)
    }

    fn keep_apart_weight(&self, round: usize) -> u64 {
        if self.history_rounds + round == 0 {
            WEIGHT_KEEP_APART_FIRST_ROUND
        } else {
            WEIGHT_KEEP_APART_LATER
        }
    }

    fn table_members(&self, round: usize, table: u32) -> &[u32] {
        let start = self.layout.table_start[table as usize];
        &self.slots[round][start..start + self.layout.table_size[table as usize]]
    }

    fn table_at(&self, round: usize, player: u32) -> u32 {
        self.layout.slot_table[self.slot_of[round][player as usize] as usize]
    }

    /// Whether `player` in `round` shares its table with someone it meets again or must avoid,
    /// or sits in a play-order position it has had before.
    fn in_conflict(&self, round: usize, player: u32) -> bool {
        self.positions[player as usize][self.position_at(round, player)] > 1
            || self.meets_in_conflict(round, player)
    }

    /// Whether `player` in `round` shares its table with someone it meets again or must avoid.
    fn meets_in_conflict(&self, round: usize, player: u32) -> bool {
        let table = self.table_at(round, player);
        self.table_members(round, table).iter().any(|&other| {
            other != player && (self.meetings(player, other) > 1 || self.kept_apart(player, other))
        })
    }

    /// The objective over what the plan adds to the event: the pair costs beyond what earlier
    /// rounds already fixed, and keep-apart pairs sharing a planned table. 0 is a lower bound.
    fn cost(&self) -> u64 {
        let mut total = 0;
        for round in 0..self.input.plan_rounds {
            let weight = self.keep_apart_weight(round);
            for table in 0..self.layout.table_size.len() as u32 {
                let members = self.table_members(round, table);
                for (i, &a) in members.iter().enumerate() {
                    for &b in &members[i + 1..] {
                        if self.kept_apart(a, b) {
                            total += weight;
                        }
                        // Count each pair once: at its first planned meeting.
                        let met_earlier_in_plan = (0..round)
                            .any(|earlier| self.table_at(earlier, a) == self.table_at(earlier, b));
                        if !met_earlier_in_plan {
                            // History alone is fixed; only what the plan adds is counted.
                            total += pair_cost(self.meetings(a, b))
                                - pair_cost(self.history_meetings(a, b));
                        }
                    }
                }
            }
        }
        for (player, times) in self.positions.iter().enumerate() {
            for (position, &count) in times.iter().enumerate() {
                total += position_cost(count)
                    - position_cost(self.input.positions_before[player][position]);
            }
        }
        total
    }

    /// Change of the position costs if `a` and `b` exchange seats in `round`.
    fn position_delta(&self, round: usize, a: u32, b: u32) -> i64 {
        let (from_a, from_b) = (self.position_at(round, a), self.position_at(round, b));
        if from_a == from_b {
            return 0;
        }
        let moving = |player: u32, from: usize, to: usize| {
            let times = &self.positions[player as usize];
            position_cost(times[to] + 1) as i64 - position_cost(times[to]) as i64
                + position_cost(times[from] - 1) as i64
                - position_cost(times[from]) as i64
        };
        moving(a, from_a, from_b) + moving(b, from_b, from_a)
    }

    /// Change of the objective if `a` and `b` swap seats in `round`.
    fn swap_delta(&self, round: usize, a: u32, b: u32) -> i64 {
        let positions = self.position_delta(round, a, b);
        if self.table_at(round, a) == self.table_at(round, b) {
            return positions;
        }
        let weight = self.keep_apart_weight(round) as i64;
        let mut delta = 0i64;
        let mut leave_and_join = |leaving: u32, joining: u32, table: u32| {
            for &other in self.table_members(round, table) {
                if other == leaving {
                    continue;
                }
                let old = self.meetings(leaving, other);
                delta += pair_cost(old - 1) as i64 - pair_cost(old) as i64;
                let new = self.meetings(joining, other);
                delta += pair_cost(new + 1) as i64 - pair_cost(new) as i64;
                if self.kept_apart(leaving, other) {
                    delta -= weight;
                }
                if self.kept_apart(joining, other) {
                    delta += weight;
                }
            }
        };
        leave_and_join(a, b, self.table_at(round, a));
        leave_and_join(b, a, self.table_at(round, b));
        delta + positions
    }

    /// Position cost of `player` sitting in `position` in `round`, every other seat fixed.
    fn seat_cost(&self, round: usize, player: u32, position: usize) -> u64 {
        let here = u32::from(self.position_at(round, player) == position);
        if self.positions[player as usize][position] > here {
            WEIGHT_POSITION_REPEAT
        } else {
            0
        }
    }

    /// The seat order of `members` (one table of `round`, possibly after a swap) with the
    /// fewest repeated positions given every other seat: its cost and the order's index.
    fn best_order(&self, round: usize, members: &[u32]) -> (u64, usize) {
        let mut price = [[0u64; 4]; 4];
        for (i, &player) in members.iter().enumerate() {
            for (position, cell) in price[i].iter_mut().enumerate().take(members.len()) {
                *cell = self.seat_cost(round, player, position);
            }
        }
        self.orders[members.len() - 3]
            .iter()
            .enumerate()
            .map(|(index, seats)| {
                let cost = seats.iter().enumerate().map(|(i, &to)| price[i][to]).sum();
                (cost, index)
            })
            .min()
            .expect("a table has seat orders")
    }

    /// Puts `table` of `round` in its `order`-th seat order (member i moves to seat
    /// `orders[..][order][i]`).
    fn set_order(&mut self, round: usize, table: u32, order: usize) {
        let start = self.layout.table_start[table as usize];
        let size = self.layout.table_size[table as usize];
        let members = self.table_members(round, table).to_vec();
        for (i, &player) in members.iter().enumerate() {
            let to = self.orders[size - 3][order][i];
            self.positions[player as usize][i] -= 1;
            self.positions[player as usize][to] += 1;
            self.slots[round][start + to] = player;
            self.slot_of[round][player as usize] = (start + to) as u32;
        }
    }

    /// A swap of `a` and `b` (at different tables of `round`) followed by the best seat order
    /// of both tables: the change of the objective and the two orders.
    fn swap_and_reseat_delta(&self, round: usize, a: u32, b: u32) -> (i64, usize, usize) {
        let meetings = self.swap_delta(round, a, b) - self.position_delta(round, a, b);
        let (table_a, table_b) = (self.table_at(round, a), self.table_at(round, b));
        let now: u64 = [table_a, table_b]
            .iter()
            .flat_map(|&table| self.table_members(round, table))
            .map(|&player| self.seat_cost(round, player, self.position_at(round, player)))
            .sum();
        let after = |table: u32, leaving: u32, joining: u32| -> Vec<u32> {
            self.table_members(round, table)
                .iter()
                .map(|&player| if player == leaving { joining } else { player })
                .collect()
        };
        let (cost_a, order_a) = self.best_order(round, &after(table_a, a, b));
        let (cost_b, order_b) = self.best_order(round, &after(table_b, b, a));
        (
            meetings + cost_a as i64 + cost_b as i64 - now as i64,
            order_a,
            order_b,
        )
    }

    fn histogram_at(&self, round: usize, three: bool, count: usize) -> u32 {
        self.histogram[(round * 2 + usize::from(three)) * self.levels + count]
    }

    /// Whether the 3-player rule still holds in every planned round if `leaving_three` (at a
    /// table of 3 in `round`) and `joining_three` (at a table of 4) swap seats.
    fn cross_swap_keeps_threes_even(
        &self,
        round: usize,
        leaving_three: u32,
        joining_three: u32,
    ) -> bool {
        let (l, j) = (leaving_three as usize, joining_three as usize);
        if self.threes[round][l] != self.threes[round][j] {
            return false;
        }
        // Later rounds: `l` ends up one game lower, `j` one higher. The rule for a round is
        // that no player at a table of 3 has more 3-player games than anyone at a table of 4.
        for later in round + 1..self.input.plan_rounds {
            let changes = [
                (leaving_three, self.threes[later][l] as usize, -1i64),
                (joining_three, self.threes[later][j] as usize, 1i64),
            ];
            let level_count = |three: bool, count: usize| -> i64 {
                let mut players = i64::from(self.histogram_at(later, three, count));
                for &(player, old, step) in &changes {
                    if self.at_three(later, player) == three {
                        if old == count {
                            players -= 1;
                        }
                        if (old as i64 + step) as usize == count {
                            players += 1;
                        }
                    }
                }
                players
            };
            let most_at_three = (0..self.levels).rev().find(|&c| level_count(true, c) > 0);
            let fewest_at_four = (0..self.levels).find(|&c| level_count(false, c) > 0);
            if let (Some(most), Some(fewest)) = (most_at_three, fewest_at_four)
                && most > fewest
            {
                return false;
            }
        }
        true
    }

    fn apply_swap(&mut self, round: usize, a: u32, b: u32) {
        let (position_a, position_b) = (self.position_at(round, a), self.position_at(round, b));
        self.positions[a as usize][position_a] -= 1;
        self.positions[a as usize][position_b] += 1;
        self.positions[b as usize][position_b] -= 1;
        self.positions[b as usize][position_a] += 1;
        let (slot_a, slot_b) = (
            self.slot_of[round][a as usize],
            self.slot_of[round][b as usize],
        );
        let three_a = self.at_three(round, a);
        let three_b = self.at_three(round, b);
        self.slots[round][slot_a as usize] = b;
        self.slots[round][slot_b as usize] = a;
        self.slot_of[round][a as usize] = slot_b;
        self.slot_of[round][b as usize] = slot_a;
        let column = self.history_rounds + round;
        self.table_of[a as usize * self.rounds_total + column] =
            self.layout.slot_table[slot_b as usize];
        self.table_of[b as usize * self.rounds_total + column] =
            self.layout.slot_table[slot_a as usize];
        if three_a != three_b {
            let (leaving, joining) = if three_a { (a, b) } else { (b, a) };
            for later in round + 1..=self.input.plan_rounds {
                for (player, step) in [(leaving, -1i64), (joining, 1i64)] {
                    let old = self.threes[later][player as usize];
                    let new = (i64::from(old) + step) as u32;
                    if later < self.input.plan_rounds {
                        let three = usize::from(self.at_three(later, player));
                        self.histogram[(later * 2 + three) * self.levels + old as usize] -= 1;
                        self.histogram[(later * 2 + three) * self.levels + new as usize] += 1;
                    }
                    self.threes[later][player as usize] = new;
                }
            }
        }
    }

    fn all_conflicts(&self, in_conflict: fn(&Self, usize, u32) -> bool) -> Vec<(usize, u32)> {
        let mut found = Vec::new();
        for round in 0..self.input.plan_rounds {
            for player in 0..self.n as u32 {
                if in_conflict(self, round, player) {
                    found.push((round, player));
                }
            }
        }
        found
    }

    /// Late Acceptance Hill Climbing; returns the best layout seen and its cost. Stops at the
    /// lower bound, after `iterations`, or after `patience` iterations without a new best.
    fn run(
        &mut self,
        iterations: u64,
        patience: u64,
        rng: &mut ChaCha8Rng,
    ) -> (Vec<Vec<u32>>, u64) {
        const HISTORY_LENGTH: usize = 400;
        let lower_bound = lower_bound(self.input);
        let mut last_improvement = 0;
        let mut cost = self.cost();
        let mut best = (self.slots.clone(), cost);
        let mut recent = vec![cost; HISTORY_LENGTH];
        let mut conflicts = self.all_conflicts(Self::in_conflict);
        let plan = self.input.plan_rounds;
        for iteration in 0..iterations {
            if cost <= lower_bound || iteration - last_improvement > patience {
                break;
            }
            if conflicts.is_empty() {
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
                    rng.random_range(0..self.n as u32),
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
            let slot = (iteration as usize) % HISTORY_LENGTH;
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
    /// layout seen and its cost; stops at the lower bound or after `iterations`.
    fn tabu(&mut self, iterations: u64, rng: &mut ChaCha8Rng) -> (Vec<Vec<u32>>, u64) {
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
        let lower_bound = lower_bound(self.input);
        for iteration in 0..iterations {
            if cost <= lower_bound {
                break;
            }
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
                    let a = rng.random_range(0..n as u32);
                    let b = rng.random_range(0..n as u32);
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

/// Random layout of the planned rounds that keeps 3-player games even: each round, the players
/// with the fewest 3-player games so far take the seats at tables of 3. Each table is then put
/// in the seat order that repeats the fewest play-order positions.
/// `rounds` holds the first rounds already laid out; the rest are added.
fn random_layout(
    input: &PlanInput,
    mut rounds: Vec<Vec<u32>>,
    rng: &mut ChaCha8Rng,
) -> Vec<Vec<u32>> {
    let n = input.players;
    let three_seats = 3 * input.sizes.threes;
    let mut counts = input.three_player_games.clone();
    let mut positions = input.positions_before.clone();
    for slots in &rounds {
        for (slot, &player) in slots.iter().enumerate() {
            counts[player as usize] += u32::from(slot >= 4 * input.sizes.fours);
        }
        let mut start = 0;
        for size in input.sizes.in_order() {
            for (position, &player) in slots[start..start + size].iter().enumerate() {
                positions[player as usize][position] += 1;
            }
            start += size;
        }
    }
    while rounds.len() < input.plan_rounds {
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.shuffle(rng);
        order.sort_by_key(|&player| counts[player as usize]);
        let (at_three, at_four) = order.split_at(three_seats);
        let mut slots: Vec<u32> = at_four.to_vec();
        slots.shuffle(rng);
        let mut threes = at_three.to_vec();
        threes.shuffle(rng);
        for &player in &threes {
            counts[player as usize] += 1;
        }
        slots.extend(threes);
        let mut start = 0;
        for size in input.sizes.in_order() {
            seat_in_new_positions(&mut slots[start..start + size], &mut positions);
            start += size;
        }
        rounds.push(slots);
    }
    rounds
}

/// Reorders a table so the fewest players sit in a position they have had; records the seats.
pub(crate) fn seat_in_new_positions(table: &mut [u32], positions: &mut [[u32; 4]]) {
    let repeats = |order: &[u32]| -> u32 {
        order
            .iter()
            .enumerate()
            .map(|(position, &p)| positions[p as usize][position])
            .sum()
    };
    let mut best = table.to_vec();
    let mut best_repeats = repeats(table);
    let mut order = table.to_vec();
    // Heap's algorithm over the at most 24 orders of a table.
    let mut state = vec![0usize; order.len()];
    let mut index = 1;
    while index < order.len() && best_repeats > 0 {
        if state[index] < index {
            let other = if index % 2 == 0 { 0 } else { state[index] };
            order.swap(other, index);
            let candidate = repeats(&order);
            if candidate < best_repeats {
                best_repeats = candidate;
                best.copy_from_slice(&order);
            }
            state[index] += 1;
            index = 1;
        } else {
            state[index] = 0;
            index += 1;
        }
    }
    table.copy_from_slice(&best);
    for (position, &p) in table.iter().enumerate() {
        positions[p as usize][position] += 1;
    }
}

/// A lower bound of the plan's cost (position repeats; repeated meetings are not bounded).
///
/// Over the plan each player takes `plan_rounds` seats; a seat costs nothing only in a position
/// the player has not had yet, and position p has only `supply[p]` seats (tables with more than
/// p players, times the rounds). The most repeat-free seats is a maximum flow players ->
/// (player, unused position) -> position, whose minimum cut is, over the sets Q of positions
/// cut at their supply, Σ_{p∈Q} supply[p] + Σ_players min(rounds, unused positions outside Q).
/// Every other seat repeats a position. With 37 players over 4 rounds (7 tables of 4, 3 of 3)
/// only 28 seats play 4th: at least 9 players repeat a position.
fn lower_bound(input: &PlanInput) -> u64 {
    let rounds = input.plan_rounds as u64;
    let tables_with_position = |position: usize| -> u64 {
        input
            .sizes
            .in_order()
            .filter(|&size| size > position)
            .count() as u64
    };
    let supply: Vec<u64> = (0..4)
        .map(|position| rounds * tables_with_position(position))
        .collect();
    let most_new_seats = (0u32..16)
        .map(|cut| {
            let cut_supply: u64 = (0..4)
                .filter(|&p| cut & (1 << p) != 0)
                .map(|p| supply[p])
                .sum();
            let players: u64 = input
                .positions_before
                .iter()
                .map(|times| {
                    let unused = (0..4)
                        .filter(|&p| cut & (1 << p) == 0 && times[p] == 0)
                        .count() as u64;
                    unused.min(rounds)
                })
                .sum();
            cut_supply + players
        })
        .min()
        .unwrap_or(0);
    let seats = rounds * input.players as u64;
    WEIGHT_POSITION_REPEAT * seats.saturating_sub(most_new_seats)
}

/// Orders of a table's seats: every permutation of `0..size` (at most 4! = 24).
fn seat_orders(size: usize) -> Vec<Vec<usize>> {
    let mut orders = vec![Vec::new()];
    for next in 0..size {
        orders = orders
            .into_iter()
            .flat_map(|order: Vec<usize>| {
                (0..=order.len()).map(move |at| {
                    let mut longer = order.clone();
                    longer.insert(at, next);
                    longer
                })
            })
            .collect();
    }
    orders
}

/// Seat orders of the planned rounds with the fewest repeated play-order positions, tables
/// (who sits with whom) unchanged. Each step puts one table in the best of its orders given every
/// other round (exact: the tables of a round do not interact), and steps repeat over the plan
/// until none improves: (positions repeated, then Σ times already in the position, to spread).
fn reseat(input: &PlanInput, layout: &Layout, slots: &mut [Vec<u32>]) {
    let mut positions = input.positions_before.clone();
    for order in slots.iter() {
        for (slot, &player) in order.iter().enumerate() {
            let table = layout.slot_table[slot] as usize;
            positions[player as usize][slot - layout.table_start[table]] += 1;
        }
    }
    let orders = [seat_orders(3), seat_orders(4)];
    let mut improved = true;
    while improved {
        improved = false;
        for order in slots.iter_mut() {
            for (&start, &size) in layout.table_start.iter().zip(&layout.table_size) {
                let table = &mut order[start..start + size];
                for (position, &player) in table.iter().enumerate() {
                    positions[player as usize][position] -= 1;
                }
                let price = |seats: &[usize]| -> (u32, u32) {
                    seats
                        .iter()
                        .enumerate()
                        .fold((0, 0), |(new, total), (i, &to)| {
                            let times = positions[table[i] as usize][to];
                            (new + u32::from(times > 0), total + times)
                        })
                };
                let identity: Vec<usize> = (0..size).collect();
                let mut best = (price(&identity), identity);
                for seats in &orders[size - 3] {
                    let candidate = price(seats);
                    if candidate < best.0 {
                        best = (candidate, seats.clone());
                    }
                }
                if best.1.iter().enumerate().any(|(i, &to)| i != to) {
                    improved = true;
                    let old = table.to_vec();
                    for (i, &to) in best.1.iter().enumerate() {
                        table[to] = old[i];
                    }
                }
                for (position, &player) in table.iter().enumerate() {
                    positions[player as usize][position] += 1;
                }
            }
        }
    }
}

/// Returns (iterations, patience without improvement, restarts).
fn iteration_budget(input: &PlanInput) -> (u64, u64, usize) {
    let size = (input.players * input.plan_rounds) as u64;
    if size <= 200 {
        (150_000, 150_000, 4)
    } else {
        (200_000, 20_000, 1)
    }
}

/// Tabu steps after each hill climb that ends with repeats, and the restarts, for fields
/// small enough that each step (every swap of a few players in conflict) stays cheap; large
/// fields reach the bound by construction. Restarts matter: a swap never moves a player between
/// tables of 3 and 4 when the evenness rule ties that to a later round, so each start fixes
/// much of who plays at tables of 3 when.
fn tabu_budget(input: &PlanInput) -> (u64, usize) {
    if (15..=200).contains(&input.players) {
        (4_000, 8)
    } else {
        (0, 0)
    }
}

pub(crate) fn plan_rounds(input: &PlanInput) -> Plan {
    let layout = Layout::new(input.sizes);
    let mut rng = ChaCha8Rng::seed_from_u64(input.seed);
    let (iterations, patience, restarts) = iteration_budget(input);
    let (tabu_iterations, tabu_restarts) = tabu_budget(input);
    let repeat_free = |cost: u64| cost < WEIGHT_REPEAT_SQUARED;
    let mut best: Option<(Vec<Vec<u32>>, u64)> = None;
    let lower_bound = lower_bound(input);
    for restart in 0..restarts.max(tabu_restarts) {
        // The extra restarts are only for plans that still repeat a meeting.
        if restart >= restarts && best.as_ref().is_some_and(|b| repeat_free(b.1)) {
            break;
        }
        let constructed = if restart == 0 {
            construct::layout(input, &mut rng)
        } else {
            Vec::new()
        };
        let mut start = random_layout(input, constructed, &mut rng);
        reseat(input, &layout, &mut start);
        let mut search = Search::new(input, &layout, start);
        let mut found = search.run(iterations, patience, &mut rng);
        if found.1 > lower_bound && tabu_iterations > 0 {
            let mut search = Search::new(input, &layout, found.0.clone());
            let polished = search.tabu(tabu_iterations, &mut rng);
            if polished.1 < found.1 {
                found = polished;
            }
        }
        reseat(input, &layout, &mut found.0);
        found.1 = Search::new(input, &layout, found.0.clone()).cost();
        if best.as_ref().is_none_or(|b| found.1 < b.1) {
            best = Some(found);
        }
        if best.as_ref().is_some_and(|b| b.1 <= lower_bound) {
            break;
        }
    }
    let (slots, _) = best.expect("at least one search runs");
    let rounds = slots
        .iter()
        .map(|order| {
            layout
                .table_start
                .iter()
                .zip(&layout.table_size)
                .map(|(&start, &size)| order[start..start + size].to_vec())
                .collect()
        })
        .collect();
    Plan { rounds }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seating::table_sizes;

    fn input(players: usize, plan_rounds: usize, positions_before: Vec<[u32; 4]>) -> PlanInput {
        PlanInput {
            players,
            sizes: table_sizes(players).unwrap(),
            history: Vec::new(),
            plan_rounds,
            three_player_games: vec![0; players],
            positions_before,
            keep_apart: vec![Vec::new(); players],
            seed: 1,
        }
    }

    #[test]
    fn the_position_bound_counts_the_seats_each_position_has() {
        // 37 players, 4 rounds: 28 fourth seats, so 9 players repeat a position.
        let bound = lower_bound(&input(37, 4, vec![[0; 4]; 37]));
        assert_eq!(bound, 9 * WEIGHT_POSITION_REPEAT);
        // 16 players, 4 rounds at tables of 4: everyone can have every position once.
        assert_eq!(lower_bound(&input(16, 4, vec![[0; 4]; 16])), 0);
        // A player who has had every position repeats one each round.
        let mut before = vec![[0; 4]; 16];
        before[0] = [1; 4];
        assert_eq!(
            lower_bound(&input(16, 2, before)),
            2 * WEIGHT_POSITION_REPEAT
        );
    }

    #[test]
    fn reseating_keeps_the_tables_and_finds_the_best_order_of_a_lone_round() {
        // One round of 8 players: each player's unused positions can all be honoured.
        let mut before = vec![[0; 4]; 8];
        for (player, times) in before.iter_mut().enumerate() {
            times[player % 4] = 1;
        }
        let input = input(8, 1, before);
        let layout = Layout::new(input.sizes);
        let mut slots = vec![vec![0, 4, 1, 5, 2, 6, 3, 7]];
        reseat(&input, &layout, &mut slots);
        let mut tables: Vec<Vec<u32>> = slots[0].chunks(4).map(<[u32]>::to_vec).collect();
        for (table, members) in tables.iter().zip([[0, 1, 4, 5], [2, 3, 6, 7]]) {
            for (position, &player) in table.iter().enumerate() {
                assert_ne!(player as usize % 4, position, "{player} repeats {position}");
            }
            let mut sorted = table.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, members);
        }
        tables.clear();
    }
}
