//! Tests of the matching against a reference solver, its duals checked as proof of optimality.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::pairing::checks::{assert_perfect, matching_cost, random_costs};

#[test]
fn matchings_are_perfect_optimal_and_proven_by_their_duals() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..300 {
        let (n, costs) = random_costs(&mut rng, 20, 50);
        let cost = |i: usize, j: usize| i128::from(costs[i.min(j) * n + i.max(j)]);
        let solved = max_weight_matching(n, |i, j| 100 - cost(i, j));
        let reference = integer_blossom::min_weight_perfect_matching(&costs, n);
        let mate = |i: usize| solved.mate[i].expect("perfect");
        assert_perfect(n, mate);
        assert_eq!(
            matching_cost(n, mate, cost),
            matching_cost(n, |i| reference[i], cost)
        );
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
