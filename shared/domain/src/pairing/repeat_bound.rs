//! The fewest repeated meetings a classic event can have: a lower bound from what is proven, so
//! that a schedule meeting it is the best there is and one above it shows its gap.
//!
//! Repeated meetings are Σ over pairs of (m − 1), m = times the pair shared a table, over a field
//! of `players` seated every round at the forced table sizes, with the 3-player evenness rule
//! (after every round the 3-player games of any two players differ by at most one). The bound
//! is the largest of:
//!
//! - **counting**: a player meets 3 others a round at a table of 4 and 2 at a table of 3; the
//!   rule spreads the 3-player games evenly, so each player's meetings are fixed, and every
//!   meeting beyond the `players − 1` others is a repeat (each repeat counted by both players);
//! - **pigeonhole**: a table of a later round takes its players from the tables of round 1; with
//!   fewer tables than seats two of them shared one (the least over every way the round's
//!   tables can take round 1's, computed exactly);
//! - **evenness**: in round 2 the rule decides who may sit at tables of 3 (round 1's players at
//!   tables of 4 take them first), which forces repeats in small fields (14 players: 4); for 17
//!   players 6 over 4 rounds (the proof in BENCHMARKS.md);
//! - **exhaustive search**: the true least over 3 rounds for 10 players or fewer
//!   (`pairing::exact`), plus the pigeonhole bound for each later round;
//! - **design maximum**: the most repeat-free rounds a field at tables of 4 allows, from the
//!   social golfer problem (OEIS A107431): 8 and 12 players 1, 16 and 20 players 5, 24 players 7,
//!   28 players 9, 32 players 10; one round more repeats at least one meeting.

use serde::{Deserialize, Serialize};

use crate::seating::{SeatingError, TableSizes, table_sizes};

/// Which argument gives the bound (the largest; the first listed on a tie).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundReason {
    /// Nothing known forces a repeat.
    None,
    Counting,
    Pigeonhole,
    Evenness,
    ExhaustiveSearch,
    DesignMaximum,
}

/// The fewest repeated meetings any schedule can have, and the argument that proves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepeatBound {
    pub repeats: u32,
    pub reason: BoundReason,
}

/// The least repeated meetings over 3 rounds, by exhaustive search (`pairing::exact`, checked by
/// its tests): 3, 4, 6, 7, 8, 9 and 10 players.
const EXHAUSTIVE_THREE_ROUNDS: [(usize, u32); 7] =
    [(3, 6), (4, 12), (6, 5), (7, 10), (8, 8), (9, 0), (10, 8)];

/// The most rounds without a repeated meeting, for fields at tables of 4 where it is known
/// (OEIS A107431, T(n, 4) for n groups; 2 and 3 groups: 1).
const DESIGN_MAXIMUM: [(usize, usize); 7] = [
    (8, 1),
    (12, 1),
    (16, 5),
    (20, 5),
    (24, 7),
    (28, 9),
    (32, 10),
];

/// The best lower bound known for the repeated meetings of `players` over `rounds` rounds.
pub fn repeat_lower_bound(players: usize, rounds: usize) -> Result<RepeatBound, SeatingError> {
    let sizes = table_sizes(players)?;
    let later_rounds = |from: usize| u32::try_from(rounds.saturating_sub(from)).unwrap_or(u32::MAX);
    let per_round = pigeonhole_per_round(sizes);
    let mut candidates = vec![
        (counting(sizes, rounds), BoundReason::Counting),
        (
            per_round.saturating_mul(later_rounds(1)),
            BoundReason::Pigeonhole,
        ),
    ];
    if rounds >= 2 {
        let mut evenness =
            second_round_under_evenness(sizes) + per_round.saturating_mul(later_rounds(2));
        if players == 17 && rounds >= 4 {
            evenness = evenness.max(6);
        }
        candidates.push((evenness, BoundReason::Evenness));
    }
    if rounds >= 3
        && let Some(&(_, least)) = EXHAUSTIVE_THREE_ROUNDS.iter().find(|&&(n, _)| n == players)
    {
        candidates.push((
            least + per_round.saturating_mul(later_rounds(3)),
            BoundReason::ExhaustiveSearch,
        ));
    }
    if let Some(&(_, most)) = DESIGN_MAXIMUM.iter().find(|&&(n, _)| n == players)
        && rounds > most
    {
        candidates.push((1, BoundReason::DesignMaximum));
    }
    let (repeats, reason) =
        candidates
            .into_iter()
            .fold((0, BoundReason::None), |best, candidate| {
                if candidate.0 > best.0 {
                    candidate
                } else {
                    best
                }
            });
    Ok(RepeatBound { repeats, reason })
}

/// Whether a player of a round-1 table of `from` seats may sit at a round-2 table of `to`.
fn allowed_in_second_round(from: usize, to: usize, sizes: TableSizes) -> bool {
    let (from_four, to_three) = (from == 4, to == 3);
    match (4 * sizes.fours).cmp(&(3 * sizes.threes)) {
        std::cmp::Ordering::Greater => !to_three || from_four,
        std::cmp::Ordering::Less => !from_four || to_three,
        std::cmp::Ordering::Equal => from_four == to_three,
    }
}

/// Σ over players of the meetings beyond the `players − 1` others, halved: every player has
/// 3 meetings a round less one per 3-player game, and the games are spread evenly.
fn counting(sizes: TableSizes, rounds: usize) -> u32 {
    let players = sizes.players();
    let three_player_games = 3 * sizes.threes * rounds;
    let (fewest, with_one_more) = (three_player_games / players, three_player_games % players);
    let excess = |games: usize| (3 * rounds).saturating_sub(games + players - 1);
    let total = with_one_more * excess(fewest + 1) + (players - with_one_more) * excess(fewest);
    u32::try_from(total.div_ceil(2)).unwrap_or(u32::MAX)
}

/// The fewest pairs of one round that already shared a table of round 1, over every way the
/// round's tables can take round 1's players.
fn pigeonhole_per_round(sizes: TableSizes) -> u32 {
    let tables: Vec<usize> = sizes.in_order().collect();
    // With 5 tables or more each table of a round can take every player from a different table
    // of round 1 (the grid construction does), and the exhaustive count below would only grow.
    if tables.len() >= 5 {
        return 0;
    }
    fewest_shared_pairs(&tables, &tables, |_, _, _| true, sizes)
}

/// Round 2 under the evenness rule: the players of round 1's tables of 4 (no 3-player game yet)
/// take the tables of 3 before anyone who had one, so when they outnumber those seats the
/// tables of 3 hold only them, and when they do not they all sit at tables of 3.
fn second_round_under_evenness(sizes: TableSizes) -> u32 {
    let tables: Vec<usize> = sizes.in_order().collect();
    if tables.len() > 6 {
        // Three or more tables of 4 and at most 3 tables of 3: the least is 0 (each table of 3
        // takes players of three different tables of 4, each table of 4 at most one player of a
        // table of 3), and the count would only say so more slowly.
        return 0;
    }
    fewest_shared_pairs(&tables, &tables, allowed_in_second_round, sizes)
}

/// The least Σ C(x, 2) over the ways `to` tables (sizes) take the players of `from` tables,
/// x = players one `to` table takes from one `from` table, where `allowed(from size, to size)`.
/// Exhaustive: used for fields of at most 6 tables.
fn fewest_shared_pairs(
    from: &[usize],
    to: &[usize],
    allowed: fn(usize, usize, TableSizes) -> bool,
    sizes: TableSizes,
) -> u32 {
    struct Count<'a> {
        from: &'a [usize],
        to: &'a [usize],
        left: Vec<usize>,
        best: u32,
        allowed: &'a dyn Fn(usize, usize) -> bool,
    }
    impl Count<'_> {
        /// Fills table `column` of `to` from row `row` on, `need` seats still empty.
        fn fill(&mut self, column: usize, row: usize, need: usize, cost: u32) {
            if cost >= self.best {
                return;
            }
            if column == self.to.len() {
                self.best = cost;
                return;
            }
            if need == 0 {
                let next = self.to.get(column + 1).copied().unwrap_or(0);
                self.fill(column + 1, 0, next, cost);
                return;
            }
            if row == self.from.len() {
                return;
            }
            let most = if (self.allowed)(self.from[row], self.to[column]) {
                self.left[row].min(need)
            } else {
                0
            };
            // Fewest first: the first complete fill is already cheap, so `cost >= best` cuts
            // early (21 players, 6 tables: 69 ms to under 1 ms).
            for take in 0..=most {
                self.left[row] -= take;
                let pairs = u32::try_from(take * take.saturating_sub(1) / 2).unwrap_or(u32::MAX);
                self.fill(column, row + 1, need - take, cost + pairs);
                self.left[row] += take;
            }
        }
    }
    let rule = move |a: usize, b: usize| allowed(a, b, sizes);
    let mut count = Count {
        from,
        to,
        left: from.to_vec(),
        best: u32::MAX,
        allowed: &rule,
    };
    count.fill(0, 0, to.first().copied().unwrap_or(0), 0);
    if count.best == u32::MAX {
        0
    } else {
        count.best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::exact::fewest_repeats_in_three_rounds;
    use proptest::prelude::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashMap;

    fn bound(players: usize, rounds: usize) -> (u32, BoundReason) {
        let found = repeat_lower_bound(players, rounds).unwrap();
        (found.repeats, found.reason)
    }

    /// A random schedule that keeps the hard rules: each round the players with the fewest
    /// 3-player games take the tables of 3.
    fn random_schedule(players: usize, rounds: usize, rng: &mut ChaCha8Rng) -> u32 {
        let sizes = table_sizes(players).unwrap();
        let mut games = vec![0u32; players];
        let mut meetings: HashMap<(u32, u32), u32> = HashMap::new();
        for _ in 0..rounds {
            let mut order: Vec<u32> = (0..u32::try_from(players).unwrap()).collect();
            order.shuffle(rng);
            order.sort_by_key(|&p| std::cmp::Reverse(games[p as usize]));
            let tables = sizes.seat_in_turn(&order);
            for table in &tables {
                for (i, &a) in table.iter().enumerate() {
                    games[a as usize] += u32::from(table.len() == 3);
                    for &b in &table[i + 1..] {
                        *meetings.entry((a.min(b), a.max(b))).or_default() += 1;
                    }
                }
            }
        }
        let spread = games.iter().max().unwrap() - games.iter().min().unwrap();
        assert!(spread <= 1, "the random schedule keeps 3-player games even");
        meetings.values().map(|m| m - 1).sum()
    }

    #[test]
    fn counting_bounds_a_field_that_meets_more_players_than_it_has() {
        // 16 players, 6 rounds: 18 meetings each against 15 others.
        assert_eq!(bound(16, 6), (24, BoundReason::Counting));
        // 32 players: 10 rounds fit (30 of 31 others), 11 repeat 2 meetings each.
        assert_eq!(bound(32, 10), (0, BoundReason::None));
        assert_eq!(bound(32, 11), (32, BoundReason::Counting));
        // A table of 4 alone: all 6 pairs meet again every round after the first.
        assert_eq!(bound(4, 5), (24, BoundReason::Counting));
    }

    #[test]
    fn seventeen_players_are_bound_by_the_evenness_rule() {
        assert_eq!(bound(17, 1), (0, BoundReason::None));
        assert_eq!(bound(17, 2), (4, BoundReason::Evenness));
        assert_eq!(bound(17, 3), (4, BoundReason::Evenness));
        assert_eq!(bound(17, 4), (6, BoundReason::Evenness));
        // 14 players: round 2 seats 6 of round 1's 8 at tables of 4 at the two tables of 3.
        assert_eq!(bound(14, 3), (4, BoundReason::Evenness));
        for players in 18..=60 {
            assert_eq!(bound(players, 4).0, 0, "{players} players");
        }
    }

    #[test]
    fn small_fields_take_the_exhaustive_minimum_and_the_pigeonhole() {
        assert_eq!(bound(10, 3), (8, BoundReason::ExhaustiveSearch));
        // 12 players: every later table of 4 holds two players from one of round 1's 3 tables.
        assert_eq!(bound(12, 3), (6, BoundReason::Pigeonhole));
        for (players, least) in EXHAUSTIVE_THREE_ROUNDS {
            if players <= 9 {
                assert_eq!(fewest_repeats_in_three_rounds(players).0, least);
            }
        }
    }

    #[test]
    fn design_maxima_bound_fields_the_counting_allows() {
        // 20 players would meet 18 of 19 over 6 rounds, but 5 is the most (A107431).
        assert_eq!(bound(20, 5), (0, BoundReason::None));
        assert_eq!(bound(20, 6), (1, BoundReason::DesignMaximum));
        assert_eq!(bound(28, 9), (0, BoundReason::None));
        assert_eq!(bound(24, 7), (0, BoundReason::None));
    }

    #[test]
    fn fields_that_cannot_be_seated_have_no_bound() {
        assert_eq!(repeat_lower_bound(5, 3), Err(SeatingError::FieldOfFive));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn no_schedule_beats_the_bound_and_more_rounds_never_lower_it(
            players in 3usize..=40,
            rounds in 1usize..=12,
            seed in any::<u64>(),
        ) {
            prop_assume!(players != 5);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let (least, _) = bound(players, rounds);
            for _ in 0..rng.random_range(1..4) {
                prop_assert!(random_schedule(players, rounds, &mut rng) >= least);
            }
            prop_assert!(bound(players, rounds + 1).0 >= least);
        }
    }
}
