//! Semi-finals and final: players drawn at random to tables, ranking plays no part.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::seating::table_sizes;

/// Players drawn at random into tables of 4 (3 only if forced), seat order random,
/// deterministic for the seed. A field that cannot be split into tables of 3 and 4
/// (fewer than 3 players, or 5) plays at a single table.
pub fn draw_playoff_tables(players: &[u32], seed: u64) -> Vec<Vec<u32>> {
    let mut drawn = players.to_vec();
    drawn.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let Ok(sizes) = table_sizes(drawn.len()) else {
        return if drawn.is_empty() {
            Vec::new()
        } else {
            vec![drawn]
        };
    };
    sizes.seat_in_turn(&drawn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_semi_finalists_sit_at_four_tables_of_four_each_once() {
        let players: Vec<u32> = (100..116).collect();
        let tables = draw_playoff_tables(&players, 7);
        assert_eq!(tables.len(), 4);
        assert!(tables.iter().all(|table| table.len() == 4));
        let mut seated = tables.concat();
        seated.sort_unstable();
        assert_eq!(seated, players);
    }

    #[test]
    fn the_draw_is_reproducible_for_a_seed_and_varies_between_seeds() {
        let players: Vec<u32> = (0..16).collect();
        assert_eq!(
            draw_playoff_tables(&players, 42),
            draw_playoff_tables(&players, 42)
        );
        let draws: std::collections::HashSet<Vec<Vec<u32>>> = (0..20)
            .map(|seed| draw_playoff_tables(&players, seed))
            .collect();
        assert!(draws.len() > 1, "the seed must change the draw");
    }

    #[test]
    fn tables_of_three_only_when_the_head_count_forces_them() {
        for count in [6usize, 7, 9, 13, 15] {
            let players: Vec<u32> = (0..u32::try_from(count).unwrap()).collect();
            let tables = draw_playoff_tables(&players, 1);
            let threes = tables.iter().filter(|table| table.len() == 3).count();
            assert_eq!(threes, (4 - count % 4) % 4);
        }
        let pair = draw_playoff_tables(&[1, 2], 1);
        assert_eq!(pair.len(), 1);
        assert_eq!(pair[0].len(), 2);
    }
}
