//! Repeat-free starting layouts for fields that sit entirely at tables of 4.
//!
//! The field is a grid of 4 rows and m = n / 4 columns; round 1 seats each column at a table.
//! Round k seats the "line" {(row i, column j + s_k * i mod m)}: two players of rows i ≠ i' meet
//! in rounds k and k' only if (s_k - s_k') (i' - i) ≡ 0 (mod m), so strides whose differences
//! times 1, 2 and 3 are non-zero modulo m never repeat a meeting (m prime: m rounds). For m = 4
//! the lines of the affine plane over GF(4) (5 slopes, the rows as a fifth class) give 16 players
//! 5 rounds in which everyone meets everyone exactly once.
//!
//! Later rounds derive the grid from round 1 of the history, so each call continues the same
//! construction. The local search takes over wherever the construction does not fit.

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::plan::PlanInput;

const ROWS: usize = 4;

/// Multiplication in GF(4) = {0, 1, a, a + 1} with a² = a + 1, elements numbered 0..4.
const GF4_PRODUCT: [[usize; 4]; 4] = [[0, 0, 0, 0], [0, 1, 2, 3], [0, 2, 3, 1], [0, 3, 1, 2]];

/// The grid cell (row, column) of every player, or None if the construction does not apply.
fn grid(input: &PlanInput, rng: &mut ChaCha8Rng) -> Option<Vec<[u32; ROWS]>> {
    let n = input.players;
    if input.sizes.threes != 0 || n < ROWS {
        return None;
    }
    let columns = n / ROWS;
    match input.history.first() {
        None => {
            let mut order: Vec<u32> = (0..n as u32).collect();
            order.shuffle(rng);
            // Rows by caller number, as later rounds will rebuild them from round 1.
            Some(
                order
                    .chunks(ROWS)
                    .map(|column| {
                        let mut column = [column[0], column[1], column[2], column[3]];
                        column.sort_by_key(|&player| input.keys[player as usize]);
                        column
                    })
                    .collect(),
            )
        }
        Some(first_round) => {
            let complete = first_round.len() == columns
                && first_round.iter().all(|table| table.len() == ROWS);
            if !complete {
                return None;
            }
            // Rows by caller number, so the grid does not depend on the seat order drawn.
            Some(
                first_round
                    .iter()
                    .map(|table| {
                        let mut column = [table[0], table[1], table[2], table[3]];
                        column.sort_by_key(|&player| input.keys[player as usize]);
                        column
                    })
                    .collect(),
            )
        }
    }
}

/// The tables of the construction's first `wanted` rounds (fewer if it has fewer).
fn classes(grid: &[[u32; ROWS]], wanted: usize) -> Vec<Vec<Vec<u32>>> {
    let columns = grid.len();
    let cell = |row: usize, column: usize| grid[column][row];
    if columns == 4 {
        let mut rounds: Vec<Vec<Vec<u32>>> = (0..4)
            .map(|slope| {
                (0..4)
                    .map(|intercept| {
                        (0..ROWS)
                            .map(|row| cell(row, GF4_PRODUCT[slope][row] ^ intercept))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        rounds.push(
            (0..ROWS)
                .map(|row| (0..columns).map(|column| cell(row, column)).collect())
                .collect(),
        );
        rounds.truncate(wanted);
        return rounds;
    }
    let mut strides: Vec<usize> = Vec::new();
    for stride in 0..columns {
        if strides.len() == wanted {
            break;
        }
        let clashes = strides.iter().any(|&other| {
            (1..ROWS).any(|distance| ((stride - other) * distance) % columns == 0)
        });
        if !clashes {
            strides.push(stride);
        }
    }
    strides
        .iter()
        .map(|&stride| {
            (0..columns)
                .map(|start| {
                    (0..ROWS)
                        .map(|row| cell(row, (start + stride * row) % columns))
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// The table in seat order: the player of row i sits in play position (i + round) mod 4, so the
/// first four rounds give every player every position once.
fn rotated(table: &[u32], round: usize) -> Vec<u32> {
    (0..ROWS)
        .map(|position| table[(position + ROWS - round % ROWS) % ROWS])
        .collect()
}

/// Slot orders for the planned rounds: constructed where the grid has a round for it,
/// shuffled otherwise (every table has 4 seats, so any order keeps the hard rules).
pub(crate) fn layout(input: &PlanInput, rng: &mut ChaCha8Rng) -> Option<Vec<Vec<u32>>> {
    let grid = grid(input, rng)?;
    let first = input.history.len();
    let rounds = classes(&grid, first + input.plan_rounds);
    Some(
        (first..first + input.plan_rounds)
            .map(|round| match rounds.get(round) {
                Some(tables) => tables
                    .iter()
                    .flat_map(|table| rotated(table, round))
                    .collect(),
                None => {
                    let mut order: Vec<u32> = (0..input.players as u32).collect();
                    order.shuffle(rng);
                    order
                }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn grid_of(players: usize) -> Vec<[u32; ROWS]> {
        (0..players as u32 / 4)
            .map(|c| [4 * c, 4 * c + 1, 4 * c + 2, 4 * c + 3])
            .collect()
    }

    fn assert_no_pair_meets_twice(rounds: &[Vec<Vec<u32>>]) -> usize {
        let mut met = HashSet::new();
        for tables in rounds {
            for table in tables {
                for (i, &a) in table.iter().enumerate() {
                    for &b in &table[i + 1..] {
                        assert!(met.insert((a.min(b), a.max(b))), "{a} and {b} meet twice");
                    }
                }
            }
        }
        met.len()
    }

    #[test]
    fn sixteen_players_meet_everyone_exactly_once_in_five_rounds() {
        let rounds = classes(&grid_of(16), 9);
        assert_eq!(rounds.len(), 5);
        assert_eq!(assert_no_pair_meets_twice(&rounds), 16 * 15 / 2);
    }

    #[test]
    fn prime_column_counts_give_as_many_repeat_free_rounds_as_columns() {
        for players in [20, 28, 44] {
            let rounds = classes(&grid_of(players), players);
            assert_eq!(rounds.len(), players / 4);
            assert_no_pair_meets_twice(&rounds);
        }
    }

    #[test]
    fn every_construction_seats_everyone_once_a_round() {
        for players in (4..=200).step_by(4) {
            for tables in classes(&grid_of(players), 6) {
                let mut seated: Vec<u32> = tables.concat();
                seated.sort_unstable();
                assert_eq!(seated, (0..players as u32).collect::<Vec<_>>());
                assert!(tables.iter().all(|table| table.len() == ROWS));
            }
            assert_no_pair_meets_twice(&classes(&grid_of(players), 6));
        }
    }
}
