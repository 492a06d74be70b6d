//! Repeat-free starting layouts.
//!
//! The field is a grid of 4 rows and m columns, one per table; each table of 3 is a column with
//! an empty cell (a hole) in row 0. Round 1 seats each column at a table.
//! Round k seats the "line" {(row i, column j + s_k * i mod m)}: two players of rows i ≠ i' meet
//! in rounds k and k' only if (s_k - s_k') (i' - i) ≡ 0 (mod m), so strides whose differences
//! times 1, 2 and 3 are non-zero modulo m never repeat a meeting (m prime: m rounds). For m = 4,
//! 8 and 9 the strides are the elements of GF(m) instead (m rounds: column j + s·i over the
//! field), and for m = 4 and 8 the rows, never met, split into tables of 4 for one round more:
//! 16 players 5 rounds in which everyone meets everyone exactly once, 32 players 9 rounds, 36
//! players 9, and 29 to 35 players as many as the 3-player rule lets the grid keep.
//!
//! Holes share row 0, so no line holds two of them and every round has exactly the forced
//! tables of 3. Later rounds derive the grid from round 1 of the history, so each call continues
//! the same construction. The local search takes over wherever the construction does not fit
//! (drops, late entries, more rounds than it has, a 3-player schedule it would make uneven).
//! Fields with a resolvable design (`design`: 24, 28 and 32 players) use that instead for events
//! of 5 rounds or more.

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::design;
use super::plan_input::{ABSENT, PlanInput, index_u32};

const ROWS: usize = 4;

/// Multiplication in GF(4) = {0, 1, a, a + 1} with a² = a + 1, elements numbered 0..4.
const GF4_PRODUCT: [[usize; 4]; 4] = [[0, 0, 0, 0], [0, 1, 2, 3], [0, 2, 3, 1], [0, 3, 1, 2]];

/// The finite fields whose order is a column count the grid meets: GF(4), GF(8) and GF(9),
/// elements numbered `0..order` (rows are the elements 0..4).
#[derive(Clone, Copy)]
enum Field {
    /// GF(2)[a] / (a² + a + 1): bits of the polynomial.
    Four,
    /// GF(2)[a] / (a³ + a + 1): bits of the polynomial.
    Eight,
    /// GF(3)[i] / (i² + 1): u + 3v is u + v·i.
    Nine,
}

impl Field {
    fn of_order(order: usize) -> Option<Field> {
        match order {
            4 => Some(Field::Four),
            8 => Some(Field::Eight),
            9 => Some(Field::Nine),
            _ => None,
        }
    }

    fn add(self, u: usize, v: usize) -> usize {
        match self {
            Field::Four | Field::Eight => u ^ v,
            Field::Nine => design::gf9_add(u, v),
        }
    }

    fn mul(self, u: usize, v: usize) -> usize {
        match self {
            Field::Four => GF4_PRODUCT[u][v],
            Field::Eight => {
                let mut product = 0;
                for bit in 0..3 {
                    if v >> bit & 1 == 1 {
                        product ^= u << bit;
                    }
                }
                for bit in (3..5).rev() {
                    if product >> bit & 1 == 1 {
                        product ^= 0b1011 << (bit - 3);
                    }
                }
                product
            }
            Field::Nine => design::gf9_mul(u, v),
        }
    }
}

/// Columns holding a hole (an empty cell in row 0): one per table of 3, spread out so that no
/// player meets two holes' lines in the first rounds (which would give them two 3-player
/// games before others had one).
fn hole_columns(columns: usize, holes: usize) -> Vec<usize> {
    (0..holes)
        .map(|hole| hole * columns / holes.max(1))
        .collect()
}

/// The grid: per column, the players of rows 0..4 (`ABSENT` for a hole), or None if the
/// construction does not apply.
fn grid(input: &PlanInput, rng: &mut ChaCha8Rng) -> Option<Vec<[u32; ROWS]>> {
    let n = input.players;
    let holes = input.sizes.threes;
    let columns = input.sizes.tables();
    if columns < 2 {
        return None;
    }
    let hole_columns = hole_columns(columns, holes);
    // Rows by seat in round 1 (a table of 3 starts at row 1), so later rounds rotate every
    // player on from the position they actually had.
    let column_of = |members: &[u32], hole: bool| {
        let mut column = [ABSENT; ROWS];
        column[usize::from(hole)..].copy_from_slice(members);
        column
    };
    let tables: Vec<Vec<u32>> = match input.history.first() {
        None => {
            let mut order: Vec<u32> = (0..index_u32(n)).collect();
            order.shuffle(rng);
            input.sizes.seat_in_turn(&order)
        }
        Some(first_round) => {
            let seated: usize = first_round.iter().map(Vec::len).sum();
            let laid_out = first_round.len() == columns
                && seated == n
                && first_round
                    .iter()
                    .zip(input.sizes.in_order())
                    .all(|(table, size)| table.len() == size);
            if !laid_out {
                return None;
            }
            first_round.clone()
        }
    };
    // Tables of 4 fill the columns without a hole in order, tables of 3 the others (one table
    // of 3 per hole, so neither runs out).
    let (fours, threes) = tables.split_at(input.sizes.fours);
    let mut fours = fours.iter();
    let mut threes = threes.iter();
    (0..columns)
        .map(|column| {
            if hole_columns.contains(&column) {
                Some(column_of(threes.next()?, true))
            } else {
                Some(column_of(fours.next()?, false))
            }
        })
        .collect()
}

/// The tables (lists of grid cells' players, holes included) of the construction's first
/// `wanted` rounds, fewer if it has fewer.
fn classes(grid: &[[u32; ROWS]], wanted: usize) -> Vec<Vec<Vec<u32>>> {
    let columns = grid.len();
    let cell = |row: usize, column: usize| grid[column][row];
    if let Some(field) = Field::of_order(columns) {
        // Lines of slope s: two players of rows i ≠ i' share one in the round of the unique
        // s = (column difference) / (i − i'); rows never meet, so a last round seats them.
        let mut rounds: Vec<Vec<Vec<u32>>> = (0..columns)
            .map(|slope| {
                (0..columns)
                    .map(|intercept| {
                        (0..ROWS)
                            .map(|row| cell(row, field.add(field.mul(slope, row), intercept)))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        if columns.is_multiple_of(4) {
            rounds.push(
                (0..ROWS)
                    .flat_map(|row| {
                        (0..columns / 4).map(move |part| {
                            (4 * part..4 * part + 4).map(|c| cell(row, c)).collect()
                        })
                    })
                    .collect(),
            );
        }
        rounds.truncate(wanted);
        return rounds;
    }
    let mut strides: Vec<usize> = Vec::new();
    for stride in 0..columns {
        if strides.len() == wanted {
            break;
        }
        let clashes = strides
            .iter()
            .any(|&other| (1..ROWS).any(|distance| ((stride - other) * distance) % columns == 0));
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

/// One constructed round as a slot order (tables of 4 first, then of 3), each table in seat
/// order: the player of row i sits in play position (i + round) mod 4, so the first four rounds
/// give every player every position once (bar one player per table of 3). None if the round
/// does not have the forced table sizes.
fn slot_order(tables: &[Vec<u32>], round: usize, input: &PlanInput) -> Option<Vec<u32>> {
    let seated: Vec<Vec<u32>> = tables
        .iter()
        .map(|table| {
            let mut seats: Vec<u32> = (0..ROWS)
                .map(|position| table[(position + ROWS - round % ROWS) % ROWS])
                .collect();
            // At a table of 3 only the last player moves, into the hole's position.
            if let Some(hole) = seats.iter().position(|&player| player == ABSENT)
                && let Some(last) = seats.pop()
                && hole < seats.len()
            {
                seats[hole] = last;
            }
            seats
        })
        .collect();
    let fours = seats_of_size(&seated, 4);
    let threes = seats_of_size(&seated, 3);
    let fit = fours.len() == input.sizes.fours && threes.len() == input.sizes.threes;
    fit.then(|| fours.into_iter().chain(threes).flatten().copied().collect())
}

fn seats_of_size(tables: &[Vec<u32>], size: usize) -> Vec<&Vec<u32>> {
    tables.iter().filter(|table| table.len() == size).collect()
}

/// Whether the players seated at tables of 3 in each round are always among those with the
/// fewest 3-player games, as the evenness rule demands.
fn keeps_threes_even(rounds: &[Vec<u32>], input: &PlanInput) -> bool {
    let first_three_slot = 4 * input.sizes.fours;
    let mut games = input.three_player_games.clone();
    for slots in rounds {
        let most_at_three = slots[first_three_slot..]
            .iter()
            .map(|&p| games[p as usize])
            .max();
        let fewest_at_four = slots[..first_three_slot]
            .iter()
            .map(|&p| games[p as usize])
            .min();
        if let (Some(most), Some(fewest)) = (most_at_three, fewest_at_four)
            && most > fewest
        {
            return false;
        }
        for &player in &slots[first_three_slot..] {
            games[player as usize] += 1;
        }
    }
    true
}

/// Slot orders for the first planned rounds, as many as the construction provides for this
/// field and history (possibly none); the search lays out the rest.
pub(crate) fn layout(input: &PlanInput, rng: &mut ChaCha8Rng) -> Vec<Vec<u32>> {
    if let Some(planned) = design::layout(input, rng) {
        return planned;
    }
    let Some(grid) = grid(input, rng) else {
        return Vec::new();
    };
    let first = input.history.len();
    let rounds = classes(&grid, first + input.plan_rounds);
    let mut planned = Vec::new();
    for round in first..first + input.plan_rounds {
        let Some(slots) = rounds.get(round).and_then(|t| slot_order(t, round, input)) else {
            break;
        };
        planned.push(slots);
        if !keeps_threes_even(&planned, input) {
            planned.pop();
            break;
        }
    }
    planned
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::checks::{assert_seats_everyone_once, pairs_met_once};

    fn grid_of(players: usize) -> Vec<[u32; ROWS]> {
        (0..u32::try_from(players / 4).unwrap())
            .map(|c| [4 * c, 4 * c + 1, 4 * c + 2, 4 * c + 3])
            .collect()
    }

    #[test]
    fn sixteen_players_meet_everyone_exactly_once_in_five_rounds() {
        let rounds = classes(&grid_of(16), 9);
        assert_eq!(rounds.len(), 5);
        assert_eq!(pairs_met_once(rounds.iter().flatten()), 16 * 15 / 2);
    }

    #[test]
    fn prime_column_counts_give_as_many_repeat_free_rounds_as_columns() {
        for players in [20, 28, 44] {
            let rounds = classes(&grid_of(players), players);
            assert_eq!(rounds.len(), players / 4);
            pairs_met_once(rounds.iter().flatten());
        }
    }

    #[test]
    fn finite_fields_give_thirty_two_and_thirty_six_players_nine_repeat_free_rounds() {
        for players in [32, 36] {
            let rounds = classes(&grid_of(players), 12);
            assert_eq!(rounds.len(), 9, "{players} players");
            for tables in &rounds {
                assert_seats_everyone_once(tables, players);
            }
            pairs_met_once(rounds.iter().flatten());
        }
    }

    #[test]
    fn every_construction_seats_everyone_once_a_round() {
        for players in (4..=200).step_by(4) {
            for tables in classes(&grid_of(players), 6) {
                assert_seats_everyone_once(&tables, players);
                assert!(tables.iter().all(|table| table.len() == ROWS));
            }
            pairs_met_once(classes(&grid_of(players), 6).iter().flatten());
        }
    }
}
