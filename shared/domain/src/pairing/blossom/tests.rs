//! Tests of the matching against a reference solver, its duals checked as proof of optimality.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

#[test]
fn matchings_are_perfect_optimal_and_proven_by_their_duals() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..300 {
        let n = 2 * rng.random_range(1..=20);
        let costs: Vec<i64> = (0..n * n).map(|_| rng.random_range(0..50)).collect();
        let cost = |i: usize, j: usize| i128::from(costs[i.min(j) * n + i.max(j)]);
        let solved = max_weight_matching(n, |i, j| 100 - cost(i, j));
        let reference = integer_blossom::min_weight_perfect_matching(&costs, n);
        let total = |mate: &dyn Fn(usize) -> usize| -> i128 {
            (0..n)
                .filter(|&i| i < mate(i))
                .map(|i| cost(i, mate(i)))
                .sum()
        };
        let mate = |i: usize| solved.mate[i].expect("perfect");
        assert!((0..n).all(|i| mate(mate(i)) == i && mate(i) != i));
        assert_eq!(total(&mate), total(&|i| reference[i]));
        let mut in_blossom = vec![vec![false; n]; solved.blossoms.len()];
        for (b, (members, dual)) in solved.blossoms.iter().enumerate() {
            assert!(*dual > 0 && members.len() % 2 == 1);
            members.iter().for_each(|&m| in_blossom[b][m] = true);
        }
        for i in 0..n {
            for j in i + 1..n {
                let shared: i128 = solved
                    .blossoms
                    .iter()
                    .enumerate()
                    .filter(|(b, _)| in_blossom[*b][i] && in_blossom[*b][j])
                    .map(|(_, (_, dual))| dual)
                    .sum();
                let reduced =
                    solved.vertex_dual[i] + solved.vertex_dual[j] + shared - 2 * (100 - cost(i, j));
                assert!(reduced >= 0);
                if mate(i) == j {
                    assert_eq!(reduced, 0);
                }
            }
        }
    }
}
