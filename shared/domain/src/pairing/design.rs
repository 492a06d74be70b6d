//! Resolvable designs: schedules at tables of 4 in which no pair ever meets twice, for the
//! fields where the grid construction (`construct`) stops short of what mathematics allows.
//!
//! - 28 players, 9 rounds, everyone meets everyone exactly once: the Hermitian unital of order
//!   3, whose 28 points are those of x⁴ + y⁴ + z⁴ = 0 in the projective plane over GF(9) and
//!   whose 63 blocks are the lines meeting it in 4 points (a 2-(28,4,1) design). A resolution
//!   into 9 parallel classes (rounds) of 7 blocks is found by exact cover: first every parallel
//!   class, then 9 classes that use each block once.
//! - 24 players, 7 rounds (the social golfer instance 6-4-7): a resolvable group divisible
//!   design with groups of 3 (type 3⁸). Points are Z_7 × {0, 1, 2} and three fixed points ∞_k;
//!   the groups are {(x, 0), (x, 1), (x, 2)} and {∞_0, ∞_1, ∞_2}. One base round of six blocks,
//!   found by a backtracking search on differences, is developed modulo 7: every difference
//!   between two kinds of point (and ±d within a kind) is covered once, so two players of
//!   different groups meet exactly once and two of one group never.
//! - 32 players, 10 rounds (the most for 32: 3 new players a round of 31): a resolvable
//!   4-GDD of type 2¹⁶, everyone meets everyone but their "mate" exactly once. The 16 groups
//!   are the vectors of F₂⁴ and player 2g + bit is member `bit` of group g (2g and 2g + 1 are
//!   mates). Two disjoint spreads of PG(3, 2) (each 5 planes {0, a, b, a + b} whose
//!   non-zero vectors partition the 15) give 10 planes W covering each non-zero vector twice;
//!   the 4 cosets of a W are one round's blocks of 4 groups, so two groups g, h share exactly
//!   the 2 blocks of the planes holding g + h. Each block B splits into two tables by a sign
//!   σ_B(x) per group x: {2x + σ_B(x)} and {2x + 1 − σ_B(x)}, so (g, a) and (h, b) meet in B
//!   iff a + b = σ_B(g) + σ_B(h) (mod 2). Requiring the two blocks of every pair of groups to
//!   differ there (120 equations over GF(2) in 160 signs, solved by elimination) makes every
//!   non-mate pair meet in exactly one of them. The spreads taken are the first disjoint pair
//!   in a fixed order (the equations of each of the 840 disjoint pairs are solvable).
//!
//! All three are computed (once per process, each in under a millisecond), never tabulated.
//! Players are mapped onto points through round 1 (see `layout`), so the draw stays random and
//! later calls continue it.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::plan_input::{PlanInput, index_u32};

/// Rounds of blocks (tables of 4) over points `0..n`.
type Schedule = Vec<Vec<[u32; 4]>>;

/// GF(9) = GF(3)[i] / (i² + 1): element a + b·i is numbered a + 3b.
pub(super) fn gf9_add(u: usize, v: usize) -> usize {
    (u % 3 + v % 3) % 3 + 3 * ((u / 3 + v / 3) % 3)
}

pub(super) fn gf9_mul(u: usize, v: usize) -> usize {
    let (a, b, c, d) = (u % 3, u / 3, v % 3, v / 3);
    (a * c + 2 * b * d) % 3 + 3 * ((a * d + b * c) % 3)
}

/// The blocks of the Hermitian unital of order 3: 63 blocks of 4 over 28 points.
fn unital_blocks() -> Vec<[u32; 4]> {
    // Points (and lines) of PG(2, 9): vectors whose first non-zero coordinate is 1.
    let mut vectors = Vec::new();
    for x in 0..9 {
        for y in 0..9 {
            for z in 0..9 {
                let v = [x, y, z];
                if v.iter().find(|&&c| c != 0) == Some(&1) {
                    vectors.push(v);
                }
            }
        }
    }
    let fourth = |u: usize| (0..4).fold(1, |power, _| gf9_mul(power, u));
    let dot =
        |u: &[usize; 3], v: &[usize; 3]| (0..3).fold(0, |sum, k| gf9_add(sum, gf9_mul(u[k], v[k])));
    let unital: Vec<[usize; 3]> = vectors
        .iter()
        .filter(|v| gf9_add(gf9_add(fourth(v[0]), fourth(v[1])), fourth(v[2])) == 0)
        .copied()
        .collect();
    vectors
        .iter()
        .filter_map(|line| {
            let on: Vec<u32> = (0u32..)
                .zip(&unital)
                .filter(|(_, point)| dot(line, point) == 0)
                .map(|(p, _)| p)
                .collect();
            <[u32; 4]>::try_from(on).ok()
        })
        .collect()
}

/// Every parallel class (blocks partitioning all points) of `blocks`, as bit sets of blocks.
fn parallel_classes(blocks: &[[u32; 4]], points: usize) -> Vec<u64> {
    fn extend(
        blocks: &[[u32; 4]],
        masks: &[u32],
        covered: u32,
        chosen: u64,
        all: u32,
        found: &mut Vec<u64>,
    ) {
        if covered == all {
            found.push(chosen);
            return;
        }
        let first = (!covered).trailing_zeros();
        for (index, block) in blocks.iter().enumerate() {
            if block.contains(&first) && masks[index] & covered == 0 {
                extend(
                    blocks,
                    masks,
                    covered | masks[index],
                    chosen | 1 << index,
                    all,
                    found,
                );
            }
        }
    }
    let masks: Vec<u32> = blocks
        .iter()
        .map(|block| block.iter().fold(0, |mask, &p| mask | 1 << p))
        .collect();
    let mut found = Vec::new();
    extend(blocks, &masks, 0, 0, (1u32 << points) - 1, &mut found);
    found
}

/// Parallel classes using every block exactly once (an exact cover of the blocks).
fn resolution(classes: &[u64], blocks: usize) -> Option<Vec<u64>> {
    fn extend(classes: &[u64], covered: u64, all: u64, chosen: &mut Vec<u64>) -> bool {
        if covered == all {
            return true;
        }
        let first = (!covered).trailing_zeros();
        for &class in classes {
            if class >> first & 1 == 1 && class & covered == 0 {
                chosen.push(class);
                if extend(classes, covered | class, all, chosen) {
                    return true;
                }
                chosen.pop();
            }
        }
        false
    }
    let mut chosen = Vec::new();
    extend(classes, 0, (1u64 << blocks) - 1, &mut chosen).then_some(chosen)
}

/// 28 players, 9 rounds: the resolved Hermitian unital (the unital of order 3 is resolvable,
/// so this is never None).
fn unital_schedule() -> Option<Schedule> {
    let blocks = unital_blocks();
    let classes = parallel_classes(&blocks, 28);
    let resolved = resolution(&classes, blocks.len())?;
    Some(
        resolved
            .iter()
            .map(|&class| {
                (0..blocks.len())
                    .filter(|&b| class >> b & 1 == 1)
                    .map(|b| blocks[b])
                    .collect()
            })
            .collect(),
    )
}

/// Point (x, kind) of Z_7 × {0, 1, 2} is 3x + kind; ∞_k is 21 + k.
const INFINITE: u32 = 21;

/// The base round of the type-3⁸ design: three blocks {∞_k and one point of each kind} and
/// three blocks of four finite points, found by backtracking over the 21 finite points.
fn base_round() -> Option<Vec<Vec<u32>>> {
    struct State {
        blocks: Vec<Vec<(usize, usize)>>,
        /// `mixed[kind_a][kind_b][d]`: some block holds (x, a) and (x + d, b), a < b.
        mixed: [[[bool; 7]; 3]; 3],
        /// `pure[kind][d]`: some block holds (x, kind) and (x + d, kind).
        pure: [[bool; 7]; 3],
    }
    /// Differences `point` would add to `block`, or None if one is taken or within a group.
    fn differences(
        state: &State,
        block: usize,
        (x, kind): (usize, usize),
    ) -> Option<Vec<(usize, usize, usize)>> {
        if block < 3 && state.blocks[block].iter().any(|&(_, k)| k == kind) {
            return None;
        }
        let mut added: Vec<(usize, usize, usize)> = Vec::new();
        for &(y, other) in &state.blocks[block] {
            if x == y {
                return None;
            }
            let taken = |added: &[(usize, usize, usize)], entry: (usize, usize, usize)| {
                added.contains(&entry)
                    || if entry.0 == entry.1 {
                        state.pure[entry.0][entry.2]
                    } else {
                        state.mixed[entry.0][entry.1][entry.2]
                    }
            };
            let entries = if other == kind {
                vec![(kind, kind, (x + 7 - y) % 7), (kind, kind, (y + 7 - x) % 7)]
            } else if other < kind {
                vec![(other, kind, (x + 7 - y) % 7)]
            } else {
                vec![(kind, other, (y + 7 - x) % 7)]
            };
            for entry in entries {
                if taken(&added, entry) {
                    return None;
                }
                added.push(entry);
            }
        }
        Some(added)
    }
    fn mark(state: &mut State, added: &[(usize, usize, usize)], value: bool) {
        for &(a, b, d) in added {
            if a == b {
                state.pure[a][d] = value;
            } else {
                state.mixed[a][b][d] = value;
            }
        }
    }
    fn extend(state: &mut State, next: usize) -> bool {
        if next == 21 {
            return true;
        }
        let point = (next % 7, next / 7);
        let mut tried_empty = [false; 2];
        for block in 0..6 {
            let (capacity, kind) = if block < 3 { (3, 0) } else { (4, 1) };
            let len = state.blocks[block].len();
            // Empty blocks of one kind are interchangeable: try the first only.
            if len == capacity || (len == 0 && std::mem::replace(&mut tried_empty[kind], true)) {
                continue;
            }
            let Some(added) = differences(state, block, point) else {
                continue;
            };
            mark(state, &added, true);
            state.blocks[block].push(point);
            if extend(state, next + 1) {
                return true;
            }
            state.blocks[block].pop();
            mark(state, &added, false);
        }
        false
    }
    let mut state = State {
        blocks: vec![Vec::new(); 6],
        mixed: [[[false; 7]; 3]; 3],
        pure: [[false; 7]; 3],
    };
    if !extend(&mut state, 0) {
        return None;
    }
    (0u32..)
        .zip(&state.blocks)
        .map(|(block, points)| {
            let mut block_points = points
                .iter()
                .map(|&(x, kind)| u32::try_from(3 * x + kind).ok())
                .collect::<Option<Vec<u32>>>()?;
            if block < 3 {
                block_points.push(INFINITE + block);
            }
            Some(block_points)
        })
        .collect()
}

/// 24 players, 7 rounds: the base round developed modulo 7 (the difference search finds a base
/// round of blocks of 4, so this is never None).
fn golfer_schedule() -> Option<Schedule> {
    let base = base_round()?;
    (0..7)
        .map(|shift| {
            base.iter()
                .map(|block| {
                    let moved: Vec<u32> = block
                        .iter()
                        .map(|&p| {
                            if p >= INFINITE {
                                p
                            } else {
                                (p + 3 * shift) % INFINITE
                            }
                        })
                        .collect();
                    <[u32; 4]>::try_from(moved).ok()
                })
                .collect()
        })
        .collect()
}

/// The 35 planes (two-dimensional subspaces) of F₂⁴, each as the bit set of its 3 non-zero
/// vectors.
fn planes() -> Vec<u16> {
    let mut found = Vec::new();
    for a in 1..16 {
        for b in a + 1..16 {
            let plane: u16 = 1 << a | 1 << b | 1 << (a ^ b);
            if !found.contains(&plane) {
                found.push(plane);
            }
        }
    }
    found
}

/// Every spread of PG(3, 2) (5 planes whose non-zero vectors partition the 15), as the bit set
/// of its planes' indices in `planes`: 56 of them.
fn spreads(planes: &[u16]) -> Vec<u64> {
    fn extend(planes: &[u16], covered: u16, chosen: u64, found: &mut Vec<u64>) {
        const NON_ZERO: u16 = 0xfffe;
        if covered == NON_ZERO {
            found.push(chosen);
            return;
        }
        let first = (!covered & NON_ZERO).trailing_zeros();
        for (index, &plane) in planes.iter().enumerate() {
            if plane >> first & 1 == 1 && plane & covered == 0 {
                extend(planes, covered | plane, chosen | 1 << index, found);
            }
        }
    }
    let mut found = Vec::new();
    extend(planes, 0, 0, &mut found);
    found
}

/// One equation over GF(2): the signs it adds (bits `0..SIGNS`) and its right-hand side (bit
/// `SIGNS`).
type Equation = [u64; 3];

/// 40 blocks of 4 groups, a sign for each group of a block.
const SIGNS: usize = 160;

fn bit(equation: &Equation, index: usize) -> bool {
    equation[index / 64] >> (index % 64) & 1 == 1
}

fn flip(equation: &mut Equation, index: usize) {
    equation[index / 64] ^= 1 << (index % 64);
}

/// A solution of `equations` (free signs 0) by Gauss–Jordan elimination, or None if they
/// contradict each other.
fn solve(mut equations: Vec<Equation>) -> Option<Vec<bool>> {
    let mut pivots = Vec::new();
    for sign in 0..SIGNS {
        let rank = pivots.len();
        let Some(found) = (rank..equations.len()).find(|&row| bit(&equations[row], sign)) else {
            continue;
        };
        equations.swap(rank, found);
        let pivot = equations[rank];
        for (row, equation) in equations.iter_mut().enumerate() {
            if row != rank && bit(equation, sign) {
                for (word, pivot_word) in equation.iter_mut().zip(pivot) {
                    *word ^= pivot_word;
                }
            }
        }
        pivots.push(sign);
    }
    // A row left without signs but with right-hand side 1 reads 0 = 1.
    if equations[pivots.len()..].iter().any(|e| bit(e, SIGNS)) {
        return None;
    }
    let mut signs = vec![false; SIGNS];
    for (equation, &sign) in equations.iter().zip(&pivots) {
        signs[sign] = bit(equation, SIGNS);
    }
    Some(signs)
}

/// The 32-player schedule from the 10 planes of two disjoint spreads (`planes`' bit sets), or
/// None if no signs separate every pair of groups' two blocks.
fn mates_schedule_from(planes: &[u16]) -> Option<Schedule> {
    // Block 4r + k is the k-th coset of plane r, its groups in increasing order.
    let blocks: Vec<[u32; 4]> = planes
        .iter()
        .flat_map(|&plane| {
            let [a, b] = [
                plane.trailing_zeros(),
                (plane & (plane - 1)).trailing_zeros(),
            ];
            // Each coset once: from its least group.
            (0..16u32).filter_map(move |c| {
                let mut coset = [c, c ^ a, c ^ b, c ^ a ^ b];
                coset.sort_unstable();
                (coset[0] == c).then_some(coset)
            })
        })
        .collect();
    let mut blocks_of_pair: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
    for (block, groups) in blocks.iter().enumerate() {
        for (i, &g) in groups.iter().enumerate() {
            for &h in &groups[i + 1..] {
                blocks_of_pair.entry((g, h)).or_default().push(block);
            }
        }
    }
    let sign = |block: usize, group: u32| -> usize {
        4 * block + blocks[block].iter().take_while(|&&x| x != group).count()
    };
    let mut equations = Vec::new();
    for (&(g, h), pair_blocks) in &blocks_of_pair {
        let mut equation: Equation = [0; 3];
        for &block in pair_blocks {
            flip(&mut equation, sign(block, g));
            flip(&mut equation, sign(block, h));
        }
        flip(&mut equation, SIGNS);
        equations.push(equation);
    }
    let signs = solve(equations)?;
    Some(
        blocks
            .chunks(4)
            .enumerate()
            .map(|(round, round_blocks)| {
                round_blocks
                    .iter()
                    .enumerate()
                    .flat_map(|(k, groups)| {
                        let block = 4 * round + k;
                        [false, true].map(|other| {
                            groups.map(|g| 2 * g + u32::from(signs[sign(block, g)] ^ other))
                        })
                    })
                    .collect()
            })
            .collect(),
    )
}

/// 32 players, 10 rounds: the first disjoint pair of spreads whose signs exist (each of the 840
/// disjoint pairs has them, so this takes the first and is never None).
fn mates_schedule() -> Option<Schedule> {
    let planes = planes();
    let spreads = spreads(&planes);
    let planes_of = |spread: u64| (0..planes.len()).filter(move |&p| spread >> p & 1 == 1);
    spreads
        .iter()
        .enumerate()
        .flat_map(|(i, &first)| spreads[i + 1..].iter().map(move |&second| (first, second)))
        .filter(|&(first, second)| first & second == 0)
        .find_map(|(first, second)| {
            let chosen: Vec<u16> = planes_of(first)
                .chain(planes_of(second))
                .map(|p| planes[p])
                .collect();
            mates_schedule_from(&chosen)
        })
}

/// The design for a field of `players` at tables of 4, if there is one. Were a design's
/// construction ever to fail, the field would simply be planned without it.
pub(crate) fn schedule(players: usize) -> Option<&'static Schedule> {
    static UNITAL: OnceLock<Option<Schedule>> = OnceLock::new();
    static GOLFER: OnceLock<Option<Schedule>> = OnceLock::new();
    static MATES: OnceLock<Option<Schedule>> = OnceLock::new();
    match players {
        28 => UNITAL.get_or_init(unital_schedule).as_ref(),
        24 => GOLFER.get_or_init(golfer_schedule).as_ref(),
        32 => MATES.get_or_init(mates_schedule).as_ref(),
        _ => None,
    }
}

fn as_sets(tables: impl Iterator<Item = Vec<u32>>) -> Vec<Vec<u32>> {
    let mut sets: Vec<Vec<u32>> = tables
        .map(|mut table| {
            table.sort_unstable();
            table
        })
        .collect();
    sets.sort_unstable();
    sets
}

/// Slot orders of the planned rounds from the design (all of its rounds when the event has
/// more), or None if the field has none, the event has 4 rounds or fewer, or the history is
/// not a run of its rounds.
///
/// Players map onto points through round 1: its tables, sorted by their lowest player, take
/// the blocks of the design's first round sorted likewise, each table's players in increasing
/// order taking the block's points in increasing order. Round 1 itself is a random split of the
/// field (the seed's draw); later calls rebuild the same map from the history.
pub(crate) fn layout(input: &PlanInput, rng: &mut ChaCha8Rng) -> Option<Vec<Vec<u32>>> {
    let n = input.players;
    let design = schedule(n)?;
    let rounds = input.history.len() + input.plan_rounds;
    // Up to 4 rounds the grid and the search are repeat-free too, and free to give everyone
    // every play-order position; the design's fixed rounds are not.
    // Longer events start from all of the design's rounds; the search lays out the rest.
    if input.sizes.threes > 0 || rounds <= 4 {
        return None;
    }
    let first_round: Vec<Vec<u32>> = match input.history.first() {
        Some(round) => round.clone(),
        None => {
            let mut order: Vec<u32> = (0..index_u32(n)).collect();
            order.shuffle(rng);
            order.chunks(4).map(<[u32]>::to_vec).collect()
        }
    };
    if first_round.iter().map(Vec::len).sum::<usize>() != n
        || first_round.iter().any(|t| t.len() != 4)
    {
        return None;
    }
    let tables = as_sets(first_round.into_iter());
    let blocks = as_sets(design[0].iter().map(|block| block.to_vec()));
    let mut player_of = vec![0u32; n];
    for (table, block) in tables.iter().zip(&blocks) {
        for (&player, &point) in table.iter().zip(block) {
            player_of[point as usize] = player;
        }
    }
    let rounds: Vec<Vec<Vec<u32>>> = design
        .iter()
        .map(|round| {
            round
                .iter()
                .map(|block| block.iter().map(|&p| player_of[p as usize]).collect())
                .collect()
        })
        .collect();
    let mut unused: Vec<usize> = (1..design.len()).collect();
    for played in input.history.iter().skip(1) {
        let played = as_sets(played.iter().cloned());
        let at = unused
            .iter()
            .position(|&round| as_sets(rounds[round].iter().cloned()) == played)?;
        unused.remove(at);
    }
    let mut planned: Vec<Vec<u32>> = Vec::new();
    if input.history.is_empty() {
        planned.push(rounds[0].concat());
    }
    for &round in &unused {
        if planned.len() == input.plan_rounds {
            break;
        }
        planned.push(rounds[round].concat());
    }
    Some(planned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::checks::{assert_seats_everyone_once, pairs_met_once};

    /// Pairs met, asserting that every round seats each point once and no pair meets twice.
    fn pairs_met(schedule: &Schedule, players: usize) -> usize {
        for round in schedule {
            assert_seats_everyone_once(round, players);
        }
        pairs_met_once(schedule.iter().flatten())
    }

    #[test]
    fn the_unital_resolves_into_nine_rounds_where_everyone_meets_everyone_once() {
        let schedule = schedule(28).unwrap();
        assert_eq!(schedule.len(), 9);
        assert_eq!(pairs_met(schedule, 28), 28 * 27 / 2);
    }

    #[test]
    fn twenty_four_players_get_seven_rounds_meeting_all_but_their_group() {
        let schedule = schedule(24).unwrap();
        assert_eq!(schedule.len(), 7);
        assert_eq!(pairs_met(schedule, 24), 24 * 21 / 2);
    }

    #[test]
    fn thirty_two_players_get_ten_rounds_meeting_everyone_but_their_mate_once() {
        let schedule = schedule(32).unwrap();
        assert_eq!(schedule.len(), 10);
        assert!(schedule.iter().all(|round| round.len() == 8));
        // Each of the 32 players meets 30 others once (pairs_met asserts never twice).
        assert_eq!(pairs_met(schedule, 32), 32 * 30 / 2);
        let mates_meet = schedule
            .iter()
            .flatten()
            .any(|table| table.iter().any(|&p| table.contains(&(p ^ 1))));
        assert!(!mates_meet, "players 2g and 2g + 1 never share a table");
    }
}
