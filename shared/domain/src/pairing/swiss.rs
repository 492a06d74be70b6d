//! Partner events: teams of two, two teams a table, Swiss rounds.
//!
//! A round is a minimum-cost perfect matching of the whole field (weighted blossom, the
//! `integer-blossom` crate), so it is optimal for this cost, summed over the pairs:
//!
//! `cost(a, b) = W_rematch · (times a and b met) + W_points · (points_a - points_b)² + |rank_a - rank_b|`
//!
//! The weights are chosen per round so that each term outweighs every possible total of the
//! terms after it: the matching has the fewest rematches, then the smallest sum of squared point
//! differences, then pairs neighbours in the standings (1 v 2, 3 v 4 within a score group).
//!
//! The matching is solved in blocks of neighbours in the standings (cut at even positions,
//! preferably between score groups) with a solver that also returns its dual solution. The
//! blocks' duals together are a dual solution for the whole field once every edge between two
//! blocks has a non-negative reduced cost; then, by LP duality, the blocks' matchings together
//! are a minimum-cost perfect matching of the complete graph. Blocks joined by an edge of
//! negative reduced cost are merged and solved again until no such edge remains (or, past
//! [`LARGEST_BLOCK`], the whole field is solved at once).
//!
//! With an odd number of teams one team sits out: the lowest-ranked team that has not had a
//! bye yet (if every team has had one, the lowest-ranked). A bye scores as a won game:
//! [`BYE_POINTS`] points, and no victory points against the team for the tie-break.

use std::collections::HashMap;

use super::blossom;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// Points a team scores for a bye: those of a win (3 for a win, 0 for a loss).
pub const BYE_POINTS: u32 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwissTeam {
    pub team: u32,
    pub points: u32,
    pub had_bye: bool,
    /// Current standings position, 1 = best.
    pub rank: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwissRound {
    pub pairs: Vec<(u32, u32)>,
    pub bye: Option<u32>,
    /// Pairs that have met before.
    pub rematches: u32,
    /// The matching's total cost, as stated in the module documentation.
    pub cost: u64,
}

/// The team that sits out when the field is odd.
fn bye_team(teams: &[SwissTeam]) -> Option<SwissTeam> {
    if teams.len().is_multiple_of(2) {
        return None;
    }
    let lowest = |candidates: &mut dyn Iterator<Item = &SwissTeam>| {
        candidates
            .max_by_key(|team| (team.rank, team.team))
            .copied()
    };
    lowest(&mut teams.iter().filter(|team| !team.had_bye)).or_else(|| lowest(&mut teams.iter()))
}

/// The three tiers of the pair cost, and their weights for this field.
struct PairCost {
    met: HashMap<(u32, u32), u64>,
    weight_rematch: u128,
    weight_points: u128,
}

impl PairCost {
    fn new(teams: &[SwissTeam], played: &[(u32, u32)]) -> PairCost {
        let mut met: HashMap<(u32, u32), u64> = HashMap::new();
        for &(a, b) in played {
            *met.entry((a.min(b), a.max(b))).or_default() += 1;
        }
        let pairs = (teams.len() / 2) as u128;
        let span = |value: fn(&SwissTeam) -> u32| {
            let most = teams.iter().map(value).max().unwrap_or(0);
            let fewest = teams.iter().map(value).min().unwrap_or(0);
            u128::from(most - fewest)
        };
        let rank_total_bound = pairs * span(|team| team.rank);
        let weight_points = rank_total_bound + 1;
        let points_span = span(|team| team.points);
        let points_total_bound = pairs * points_span * points_span;
        let weight_rematch = weight_points * (points_total_bound + 1);
        PairCost {
            met,
            weight_rematch,
            weight_points,
        }
    }

    fn meetings(&self, a: u32, b: u32) -> u64 {
        self.met.get(&(a.min(b), a.max(b))).copied().unwrap_or(0)
    }

    fn cost(&self, a: &SwissTeam, b: &SwissTeam) -> u128 {
        self.weight_rematch * u128::from(self.meetings(a.team, b.team))
            + self.cost_without_rematches(a, b)
    }

    /// The point and rank terms: the cost of a pair that has not met.
    fn cost_without_rematches(&self, a: &SwissTeam, b: &SwissTeam) -> u128 {
        let points = u128::from(a.points.abs_diff(b.points));
        self.weight_points * points * points + u128::from(a.rank.abs_diff(b.rank))
    }

    /// An upper bound on any single pair's cost.
    fn bound(&self, teams: &[SwissTeam]) -> u128 {
        let most_meetings = self.met.values().copied().max().unwrap_or(0);
        let points_span = teams.iter().map(|t| t.points).max().unwrap_or(0)
            - teams.iter().map(|t| t.points).min().unwrap_or(0);
        let rank_span = teams.iter().map(|t| t.rank).max().unwrap_or(0)
            - teams.iter().map(|t| t.rank).min().unwrap_or(0);
        self.weight_rematch * u128::from(most_meetings)
            + self.weight_points * u128::from(points_span) * u128::from(points_span)
            + u128::from(rank_span)
    }
}

/// Blocks beyond this size give way to one solve of the whole field (the dual-returning solver
/// keeps a `(2n + 1)²` matrix of 24-byte entries: about 116 MB here).
const LARGEST_BLOCK: usize = 1_100;

/// A matching: each team's mate, each team's pair cost, and how many times blocks were merged.
type BlockMatching = (Vec<usize>, Vec<u128>, usize);

/// Minimum-cost perfect matching of `field` solved in blocks and proven optimal for the
/// complete graph (see the module documentation). None if a block grows past `largest_block`.
fn match_in_blocks(
    field: &[SwissTeam],
    pair_cost: &PairCost,
    largest_block: usize,
) -> Option<BlockMatching> {
    let n = field.len();
    let offset = i128::try_from(pair_cost.bound(field)).ok()? + 1;
    let mut by_rank: Vec<usize> = (0..n).collect();
    by_rank.sort_by_key(|&i| (field[i].rank, field[i].team));
    // Blocks of neighbours in the standings, each of even size, cut between score groups:
    // cutting inside a score group, where the edges across cost as little as those within,
    // leaves reduced costs negative and the blocks merge again.
    let mut block_of = vec![0usize; n];
    let mut blocks = 0;
    let mut size = 0;
    for (position, &i) in by_rank.iter().enumerate() {
        let score_boundary = position > 0 && field[by_rank[position - 1]].points != field[i].points;
        if size % 2 == 0 && size > 0 && score_boundary {
            blocks += 1;
            size = 0;
        }
        block_of[i] = blocks;
        size += 1;
    }
    let mut mate = vec![usize::MAX; n];
    let mut dual = vec![0i128; n];
    let mut solved = vec![false; blocks + 1];
    let mut merged = 0;
    loop {
        for (block, solved) in solved.iter_mut().enumerate() {
            if *solved {
                continue;
            }
            // Members in field order, which the seed shuffled: it decides between equal costs.
            let members: Vec<usize> = (0..n).filter(|&i| block_of[i] == block).collect();
            if members.is_empty() {
                *solved = true;
                continue;
            }
            if members.len() > largest_block {
                return None;
            }
            let matching = blossom::max_weight_matching(members.len(), |a, b| {
                offset - pair_cost.cost(&field[members[a]], &field[members[b]]) as i128
            });
            for (a, &i) in members.iter().enumerate() {
                // Blocks have even order and the graph is complete, so every member is matched;
                // were one not, the whole field would be solved at once instead.
                mate[i] = members[matching.mate[a]?];
                dual[i] = matching.vertex_dual[a];
            }
            *solved = true;
        }
        // Reduced cost of an edge between blocks: dual[i] + dual[j] - 2 (offset - cost) (no
        // blossom holds both ends). The cost's lower bound without rematches screens first.
        let mut merges = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if block_of[i] == block_of[j] {
                    continue;
                }
                let needed = 2 * offset - dual[i] - dual[j];
                if 2 * pair_cost.cost_without_rematches(&field[i], &field[j]) as i128 >= needed {
                    continue;
                }
                if 2 * (pair_cost.cost(&field[i], &field[j]) as i128) < needed {
                    merges.push((block_of[i], block_of[j]));
                }
            }
        }
        if merges.is_empty() {
            break;
        }
        // Merge every pair of blocks joined by such an edge, and solve the merged ones again.
        let mut parent: Vec<usize> = (0..=blocks).collect();
        fn root(parent: &mut [usize], mut block: usize) -> usize {
            while parent[block] != block {
                parent[block] = parent[parent[block]];
                block = parent[block];
            }
            block
        }
        for (a, b) in merges {
            let (a, b) = (root(&mut parent, a), root(&mut parent, b));
            if a != b {
                merged += 1;
                parent[a.max(b)] = a.min(b);
                solved[a.min(b)] = false;
            }
        }
        for block in block_of.iter_mut() {
            *block = root(&mut parent, *block);
        }
    }
    let chosen = (0..n)
        .map(|i| pair_cost.cost(&field[i], &field[mate[i]]))
        .collect();
    Some((mate, chosen, merged))
}

/// Minimum-cost perfect matching of `field`; returns each team's mate and the chosen pairs' cost.
#[expect(
    clippy::expect_used,
    reason = "every pair cost is at most `PairCost::bound`, and `pair_swiss` picks `W` for it: \
              i64 only when 64 times the bound fits, else i128, which holds the bound of any \
              event's points and ranks"
)]
fn match_field<W>(field: &[SwissTeam], pair_cost: &PairCost) -> (Vec<usize>, Vec<u128>)
where
    W: integer_blossom::Weight + TryFrom<u128>,
    <W as TryFrom<u128>>::Error: std::fmt::Debug,
{
    let n = field.len();
    let mut costs: Vec<W> = vec![W::ZERO; n * n];
    for i in 0..n {
        for j in i + 1..n {
            let cost = pair_cost.cost(&field[i], &field[j]);
            costs[i * n + j] = W::try_from(cost).expect("the cost bound was checked");
        }
    }
    let mate = integer_blossom::min_weight_perfect_matching(&costs, n);
    let chosen = mate
        .iter()
        .enumerate()
        .map(|(i, &j)| pair_cost.cost(&field[i], &field[j]))
        .collect();
    (mate, chosen)
}

pub fn pair_swiss(teams: &[SwissTeam], played: &[(u32, u32)], seed: u64) -> SwissRound {
    let bye = bye_team(teams);
    let mut field: Vec<SwissTeam> = teams
        .iter()
        .filter(|team| Some(team.team) != bye.map(|b| b.team))
        .copied()
        .collect();
    // The seed only decides between matchings of equal cost.
    field.sort_by_key(|team| team.team);
    field.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));

    let pair_cost = PairCost::new(&field, played);
    // The solver's duals reach a few times the largest cost; keep wide headroom.
    let (mate, chosen) =
        if let Some((mate, chosen, _)) = match_in_blocks(&field, &pair_cost, LARGEST_BLOCK) {
            (mate, chosen)
        } else if pair_cost.bound(&field).saturating_mul(64) < i64::MAX as u128 {
            match_field::<i64>(&field, &pair_cost)
        } else {
            match_field::<i128>(&field, &pair_cost)
        };

    let mut ranked_pairs = Vec::with_capacity(field.len() / 2);
    let mut cost = 0u128;
    let mut rematches = 0;
    for (i, &j) in mate.iter().enumerate() {
        if i < j {
            let (a, b) = (&field[i], &field[j]);
            // Better-ranked team first.
            let (first, second) = if (a.rank, a.team) <= (b.rank, b.team) {
                (a, b)
            } else {
                (b, a)
            };
            ranked_pairs.push(((first.rank, first.team), (first.team, second.team)));
            cost += chosen[i];
            rematches += u32::from(pair_cost.meetings(a.team, b.team) > 0);
        }
    }
    ranked_pairs.sort_unstable();
    SwissRound {
        pairs: ranked_pairs.into_iter().map(|(_, pair)| pair).collect(),
        bye: bye.map(|team| team.team),
        rematches,
        cost: u64::try_from(cost).unwrap_or(u64::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::checks::{assert_perfect, matching_cost, random_costs};
    use rand::Rng;

    /// The least total cost of a perfect matching, by trying every one.
    fn brute_force_minimum(n: usize, cost: &dyn Fn(usize, usize) -> u128) -> u128 {
        fn search(unmatched: &mut Vec<usize>, cost: &dyn Fn(usize, usize) -> u128) -> u128 {
            let Some(first) = unmatched.pop() else {
                return 0;
            };
            let mut best = u128::MAX;
            for index in 0..unmatched.len() {
                let partner = unmatched.remove(index);
                let rest = search(unmatched, cost);
                best = best.min(cost(first, partner) + rest);
                unmatched.insert(index, partner);
            }
            unmatched.push(first);
            best
        }
        search(&mut (0..n).collect(), cost)
    }

    fn field(points: &[u32]) -> Vec<SwissTeam> {
        let mut order: Vec<(u32, u32)> = (0u32..).zip(points.iter().copied()).collect();
        order.sort_by_key(|&(t, points)| (std::cmp::Reverse(points), t));
        let mut teams: Vec<SwissTeam> = order
            .iter()
            .zip(1u32..)
            .map(|(&(t, points), rank)| SwissTeam {
                team: t,
                points,
                had_bye: false,
                rank,
            })
            .collect();
        teams.sort_by_key(|team| team.team);
        teams
    }

    #[test]
    fn the_blossom_solver_agrees_with_brute_force_on_random_costs() {
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        for _ in 0..200 {
            let (n, costs) = random_costs(&mut rng, 6, 1_000);
            let mate = integer_blossom::min_weight_perfect_matching(&costs, n);
            let cost_of = |i: usize, j: usize| costs[i.min(j) * n + i.max(j)] as u128;
            let solver = matching_cost(n, |i| mate[i], cost_of);
            assert_perfect(n, |i| mate[i]);
            assert_eq!(solver, brute_force_minimum(n, &cost_of));
        }
    }

    #[test]
    fn pairings_are_optimal_for_the_stated_cost() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..100 {
            let teams = rng.random_range(2..=11);
            let points: Vec<u32> = (0..teams).map(|_| 3 * rng.random_range(0..4)).collect();
            let played: Vec<(u32, u32)> = (0..rng.random_range(0..12))
                .map(|_| {
                    (
                        rng.random_range(0..teams as u32),
                        rng.random_range(0..teams as u32),
                    )
                })
                .filter(|(a, b)| a != b)
                .collect();
            let field = field(&points);
            let round = pair_swiss(&field, &played, rng.random());
            let rest: Vec<SwissTeam> = field
                .iter()
                .filter(|t| Some(t.team) != round.bye)
                .copied()
                .collect();
            let pair_cost = PairCost::new(&rest, &played);
            let best = brute_force_minimum(rest.len(), &|i, j| pair_cost.cost(&rest[i], &rest[j]));
            assert_eq!(u128::from(round.cost), best);
            let mut seated: Vec<u32> = round.pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
            seated.extend(round.bye);
            seated.sort_unstable();
            assert_eq!(seated, (0..teams as u32).collect::<Vec<_>>());
        }
    }

    #[test]
    fn blocks_proven_by_their_duals_give_the_full_graph_optimum() {
        let mut rng = ChaCha8Rng::seed_from_u64(29);
        let mut merges = 0;
        for _ in 0..6 {
            let teams = 2 * rng.random_range(30..=100);
            let mut points = vec![0u32; teams];
            let mut played: Vec<(u32, u32)> = Vec::new();
            for round in 0..rng.random_range(3..=6) {
                let field = field(&points);
                let pair_cost = PairCost::new(&field, &played);
                let (blocked, _, merged) =
                    match_in_blocks(&field, &pair_cost, LARGEST_BLOCK).expect("small blocks");
                merges += merged;
                let (full, _) = match_field::<i128>(&field, &pair_cost);
                let total = |mate: &[usize]| -> u128 {
                    matching_cost(
                        teams,
                        |i| mate[i],
                        |i, j| pair_cost.cost(&field[i], &field[j]),
                    )
                };
                assert_eq!(
                    total(&blocked),
                    total(&full),
                    "{teams} teams, round {round}"
                );
                assert_perfect(teams, |i| blocked[i]);
                for i in (0..teams).filter(|&i| i < blocked[i]) {
                    let j = blocked[i];
                    played.push((field[i].team, field[j].team));
                    // Results skewed to the better-numbered team, so score groups go odd.
                    let winner = if rng.random_bool(0.7) {
                        i.min(j)
                    } else {
                        i.max(j)
                    };
                    points[field[winner].team as usize] += 3;
                }
            }
        }
        // The merging path (edges of negative reduced cost between blocks) was exercised.
        assert!(merges > 0);
    }

    #[test]
    fn teams_on_equal_points_play_each_other_and_no_rematch_when_avoidable() {
        let field = field(&[6, 6, 3, 3, 0, 0]);
        let round = pair_swiss(&field, &[], 1);
        assert_eq!(round.pairs, vec![(0, 1), (2, 3), (4, 5)]);
        assert_eq!(round.rematches, 0);
        let round = pair_swiss(&field, &[(0, 1), (2, 3), (4, 5)], 1);
        assert_eq!(round.rematches, 0);
        assert!(
            round
                .pairs
                .iter()
                .all(|p| ![(0, 1), (2, 3), (4, 5)].contains(p))
        );
    }

    #[test]
    fn a_rematch_is_made_only_when_every_pairing_needs_one() {
        let field = field(&[3, 0]);
        let round = pair_swiss(&field, &[(0, 1)], 1);
        assert_eq!(round.pairs, vec![(0, 1)]);
        assert_eq!(round.rematches, 1);
    }

    #[test]
    fn the_bye_goes_to_the_lowest_ranked_team_without_one() {
        let mut field = field(&[9, 6, 3, 0, 0]);
        let lowest = *field.iter().max_by_key(|t| t.rank).unwrap();
        assert_eq!(pair_swiss(&field, &[], 1).bye, Some(lowest.team));
        field
            .iter_mut()
            .find(|t| t.team == lowest.team)
            .unwrap()
            .had_bye = true;
        let next = field
            .iter()
            .filter(|t| !t.had_bye)
            .max_by_key(|t| t.rank)
            .unwrap()
            .team;
        assert_eq!(pair_swiss(&field, &[], 1).bye, Some(next));
        field.iter_mut().for_each(|t| t.had_bye = true);
        assert_eq!(pair_swiss(&field, &[], 1).bye, Some(lowest.team));
        assert_eq!(pair_swiss(&field[..4], &[], 1).bye, None);
    }

    #[test]
    fn the_same_seed_gives_the_same_pairing() {
        let field = field(&[3; 20]);
        assert_eq!(pair_swiss(&field, &[], 8), pair_swiss(&field, &[], 8));
    }
}
