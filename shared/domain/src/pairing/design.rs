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
//!
//! Both are computed (once per process), never tabulated. Players are mapped onto points
//! through round 1 (see `layout`), so the draw stays random and later calls continue it.

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

/// The design for a field of `players` at tables of 4, if there is one. Were a design's
/// construction ever to fail, the field would simply be planned without it.
pub(crate) fn schedule(players: usize) -> Option<&'static Schedule> {
    static UNITAL: OnceLock<Option<Schedule>> = OnceLock::new();
    static GOLFER: OnceLock<Option<Schedule>> = OnceLock::new();
    match players {
        28 => UNITAL.get_or_init(unital_schedule).as_ref(),
        24 => GOLFER.get_or_init(golfer_schedule).as_ref(),
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
}
