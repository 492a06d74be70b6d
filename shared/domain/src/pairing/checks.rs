//! Checks of seatings and matchings, and random matching problems, shared by the pairing tests.

use rand::Rng;
use std::collections::HashSet;

/// The pairs that meet at `tables`, asserting that no pair meets twice.
pub(super) fn pairs_met_once<T: AsRef<[u32]>>(tables: impl IntoIterator<Item = T>) -> usize {
    let mut met = HashSet::new();
    for table in tables {
        let table = table.as_ref();
        for (i, &a) in table.iter().enumerate() {
            for &b in &table[i + 1..] {
                assert!(met.insert((a.min(b), a.max(b))), "{a} and {b} meet twice");
            }
        }
    }
    met.len()
}

/// Asserts that the tables of a round seat each of the players `0..players` exactly once.
pub(super) fn assert_seats_everyone_once<T: AsRef<[u32]>>(
    round: impl IntoIterator<Item = T>,
    players: usize,
) {
    let mut seated: Vec<u32> = round
        .into_iter()
        .flat_map(|table| table.as_ref().to_vec())
        .collect();
    seated.sort_unstable();
    assert_eq!(
        seated,
        (0..u32::try_from(players).unwrap()).collect::<Vec<_>>()
    );
}

/// A random instance of minimum-cost perfect matching, as `integer_blossom` takes it: an even
/// number `n` of vertices, from 2 to `2 * max_pairs`, and the cost of each pair `i < j`, below
/// `max_cost`, at `costs[i * n + j]`.
pub(super) fn random_costs(
    rng: &mut impl Rng,
    max_pairs: usize,
    max_cost: i64,
) -> (usize, Vec<i64>) {
    let n = 2 * rng.random_range(1..=max_pairs);
    let costs = (0..n * n).map(|_| rng.random_range(0..max_cost)).collect();
    (n, costs)
}

/// Asserts that `mate` pairs each of the vertices `0..n` with another vertex, paired with it.
pub(super) fn assert_perfect(n: usize, mate: impl Fn(usize) -> usize) {
    assert!((0..n).all(|i| mate(mate(i)) == i && mate(i) != i));
}

/// The total cost of the pairs of the matching `mate` of the vertices `0..n`.
pub(super) fn matching_cost<C: std::iter::Sum>(
    n: usize,
    mate: impl Fn(usize) -> usize,
    cost: impl Fn(usize, usize) -> C,
) -> C {
    (0..n)
        .filter(|&i| i < mate(i))
        .map(|i| cost(i, mate(i)))
        .sum()
}
