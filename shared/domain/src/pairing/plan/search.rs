//! The search state over the planned rounds: who sits where, the objective, and swap moves
//! with their cost changes and the 3-player rule they must keep.

use super::layout::{Layout, seat_orders};
use super::weights::{
    WEIGHT_KEEP_APART_FIRST_ROUND, WEIGHT_KEEP_APART_LATER, WEIGHT_POSITION_REPEAT, pair_cost,
    position_cost,
};
use crate::pairing::plan_input::{ABSENT, PlanInput, index_u32};

pub(super) struct Search<'a> {
    pub(super) input: &'a PlanInput,
    pub(super) layout: &'a Layout,
    pub(super) n: usize,
    history_rounds: usize,
    rounds_total: usize,
    /// `table_of[player * rounds_total + round]`: history rounds first, then planned ones.
    table_of: Vec<u32>,
    /// Per planned round: slot -> player and player -> slot.
    pub(super) slots: Vec<Vec<u32>>,
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
    pub(super) fn new(
        input: &'a PlanInput,
        layout: &'a Layout,
        slots: Vec<Vec<u32>>,
    ) -> Search<'a> {
        let n = input.players;
        let history_rounds = input.history.len();
        let rounds_total = history_rounds + input.plan_rounds;
        let mut table_of = vec![ABSENT; n * rounds_total];
        for (round, tables) in input.history.iter().enumerate() {
            for (table, players) in (0u32..).zip(tables) {
                for &player in players {
                    table_of[player as usize * rounds_total + round] = table;
                }
            }
        }
        let mut slot_of = vec![vec![0u32; n]; input.plan_rounds];
        for (round, order) in slots.iter().enumerate() {
            for (slot, &player) in (0u32..).zip(order) {
                slot_of[round][player as usize] = slot;
                table_of[player as usize * rounds_total + history_rounds + round] =
                    layout.slot_table[slot as usize];
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
            for player in 0..index_u32(n) {
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

    pub(super) fn at_three(&self, round: usize, player: u32) -> bool {
        self.slot_of[round][player as usize] as usize >= self.first_three_slot()
    }

    fn recount_threes(&mut self) {
        let plan = self.input.plan_rounds;
        let mut threes = vec![self.input.three_player_games.clone()];
        let mut histogram = vec![0u32; plan * 2 * self.levels];
        for round in 0..plan {
            let mut next = threes[round].clone();
            for player in 0..index_u32(self.n) {
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
            .map(|(x, y)| u32::from(x == y && *x != ABSENT))
            .sum()
    }

    fn history_meetings(&self, a: u32, b: u32) -> u32 {
        let rows = self.rounds_total;
        let history = self.history_rounds;
        let ta = &self.table_of[a as usize * rows..a as usize * rows + history];
        let tb = &self.table_of[b as usize * rows..b as usize * rows + history];
        ta.iter()
            .zip(tb)
            .map(|(x, y)| u32::from(x == y && *x != ABSENT))
            .sum()
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

    pub(super) fn table_members(&self, round: usize, table: u32) -> &[u32] {
        let start = self.layout.table_start[table as usize];
        &self.slots[round][start..start + self.layout.table_size[table as usize]]
    }

    pub(super) fn table_at(&self, round: usize, player: u32) -> u32 {
        self.layout.slot_table[self.slot_of[round][player as usize] as usize]
    }

    /// Whether `player` in `round` shares its table with someone it meets again or must avoid,
    /// or sits in a play-order position it has had before.
    pub(super) fn in_conflict(&self, round: usize, player: u32) -> bool {
        self.positions[player as usize][self.position_at(round, player)] > 1
            || self.meets_in_conflict(round, player)
    }

    /// Whether `player` in `round` shares its table with someone it meets again or must avoid.
    pub(super) fn meets_in_conflict(&self, round: usize, player: u32) -> bool {
        let table = self.table_at(round, player);
        self.table_members(round, table).iter().any(|&other| {
            other != player && (self.meetings(player, other) > 1 || self.kept_apart(player, other))
        })
    }

    /// The objective over what the plan adds to the event: the pair costs beyond what earlier
    /// rounds already fixed, and keep-apart pairs sharing a planned table. 0 is a lower bound.
    pub(super) fn cost(&self) -> u64 {
        let mut total = 0;
        for round in 0..self.input.plan_rounds {
            let weight = self.keep_apart_weight(round);
            for table in 0..index_u32(self.layout.table_size.len()) {
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
    pub(super) fn swap_delta(&self, round: usize, a: u32, b: u32) -> i64 {
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
    #[expect(
        clippy::expect_used,
        reason = "a table has 3 or 4 seats, and seat_orders gives 6 or 24 orders for them"
    )]
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
    pub(super) fn set_order(&mut self, round: usize, table: u32, order: usize) {
        let start = self.layout.table_start[table as usize];
        let size = self.layout.table_size[table as usize];
        let members = self.table_members(round, table).to_vec();
        for (i, &player) in members.iter().enumerate() {
            let to = self.orders[size - 3][order][i];
            self.positions[player as usize][i] -= 1;
            self.positions[player as usize][to] += 1;
            self.slots[round][start + to] = player;
            self.slot_of[round][player as usize] = index_u32(start + to);
        }
    }

    /// A swap of `a` and `b` (at different tables of `round`) followed by the best seat order
    /// of both tables: the change of the objective and the two orders.
    pub(super) fn swap_and_reseat_delta(
        &self,
        round: usize,
        a: u32,
        b: u32,
    ) -> (i64, usize, usize) {
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
    pub(super) fn cross_swap_keeps_threes_even(
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
            // Each player's count before and after the swap.
            let (leaving_old, joining_old) = (self.threes[later][l], self.threes[later][j]);
            let changes = [
                (leaving_three, leaving_old, leaving_old.checked_sub(1)),
                (joining_three, joining_old, joining_old.checked_add(1)),
            ];
            let level_count = |three: bool, count: usize| -> i64 {
                let mut players = i64::from(self.histogram_at(later, three, count));
                for &(player, old, new) in &changes {
                    if self.at_three(later, player) == three {
                        if old as usize == count {
                            players -= 1;
                        }
                        if new.is_some_and(|new| new as usize == count) {
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

    pub(super) fn apply_swap(&mut self, round: usize, a: u32, b: u32) {
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
                // `leaving` had its 3-player game in `round`, so its later counts are >= 1.
                for (player, joins) in [(leaving, false), (joining, true)] {
                    let old = self.threes[later][player as usize];
                    let new = if joins { old + 1 } else { old - 1 };
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

    pub(super) fn all_conflicts(
        &self,
        in_conflict: fn(&Self, usize, u32) -> bool,
    ) -> Vec<(usize, u32)> {
        let mut found = Vec::new();
        for round in 0..self.input.plan_rounds {
            for player in 0..index_u32(self.n) {
                if in_conflict(self, round, player) {
                    found.push((round, player));
                }
            }
        }
        found
    }
}
