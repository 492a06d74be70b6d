//! Starting layouts for the search: a random layout that keeps 3-player games even, and the
//! best seat orders of tables already formed.

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::layout::{Layout, seat_orders};
use crate::pairing::plan_input::{PlanInput, index_u32};

/// Random layout of the planned rounds that keeps 3-player games even: each round, the players
/// with the fewest 3-player games so far take the seats at tables of 3. Each table is then put
/// in the seat order that repeats the fewest play-order positions.
/// `rounds` holds the first rounds already laid out; the rest are added.
pub(super) fn random_layout(
    input: &PlanInput,
    mut rounds: Vec<Vec<u32>>,
    rng: &mut ChaCha8Rng,
) -> Vec<Vec<u32>> {
    let n = input.players;
    let three_seats = 3 * input.sizes.threes;
    let mut counts = input.three_player_games.clone();
    let mut positions = input.positions_before.clone();
    for slots in &rounds {
        for (slot, &player) in slots.iter().enumerate() {
            counts[player as usize] += u32::from(slot >= 4 * input.sizes.fours);
        }
        let mut start = 0;
        for size in input.sizes.in_order() {
            for (position, &player) in slots[start..start + size].iter().enumerate() {
                positions[player as usize][position] += 1;
            }
            start += size;
        }
    }
    while rounds.len() < input.plan_rounds {
        let mut order: Vec<u32> = (0..index_u32(n)).collect();
        order.shuffle(rng);
        order.sort_by_key(|&player| counts[player as usize]);
        let (at_three, at_four) = order.split_at(three_seats);
        let mut slots: Vec<u32> = at_four.to_vec();
        slots.shuffle(rng);
        let mut threes = at_three.to_vec();
        threes.shuffle(rng);
        for &player in &threes {
            counts[player as usize] += 1;
        }
        slots.extend(threes);
        let mut start = 0;
        for size in input.sizes.in_order() {
            seat_in_new_positions(&mut slots[start..start + size], &mut positions);
            start += size;
        }
        rounds.push(slots);
    }
    rounds
}

/// Reorders a table so the fewest players sit in a position they have had; records the seats.
pub(crate) fn seat_in_new_positions(table: &mut [u32], positions: &mut [[u32; 4]]) {
    let repeats = |order: &[u32]| -> u32 {
        order
            .iter()
            .enumerate()
            .map(|(position, &p)| positions[p as usize][position])
            .sum()
    };
    let mut best = table.to_vec();
    let mut best_repeats = repeats(table);
    let mut order = table.to_vec();
    // Heap's algorithm over the at most 24 orders of a table.
    let mut state = vec![0usize; order.len()];
    let mut index = 1;
    while index < order.len() && best_repeats > 0 {
        if state[index] < index {
            let other = if index % 2 == 0 { 0 } else { state[index] };
            order.swap(other, index);
            let candidate = repeats(&order);
            if candidate < best_repeats {
                best_repeats = candidate;
                best.copy_from_slice(&order);
            }
            state[index] += 1;
            index = 1;
        } else {
            state[index] = 0;
            index += 1;
        }
    }
    table.copy_from_slice(&best);
    for (position, &p) in table.iter().enumerate() {
        positions[p as usize][position] += 1;
    }
}

/// Seat orders of the planned rounds with the fewest repeated play-order positions, tables
/// (who sits with whom) unchanged. Each step puts one table in the best of its orders given every
/// other round (exact: the tables of a round do not interact), and steps repeat over the plan
/// until none improves: (positions repeated, then Σ times already in the position, to spread).
pub(super) fn reseat(input: &PlanInput, layout: &Layout, slots: &mut [Vec<u32>]) {
    let mut positions = input.positions_before.clone();
    for order in slots.iter() {
        for (slot, &player) in order.iter().enumerate() {
            let table = layout.slot_table[slot] as usize;
            positions[player as usize][slot - layout.table_start[table]] += 1;
        }
    }
    let orders = [seat_orders(3), seat_orders(4)];
    let mut improved = true;
    while improved {
        improved = false;
        for order in slots.iter_mut() {
            for (&start, &size) in layout.table_start.iter().zip(&layout.table_size) {
                let table = &mut order[start..start + size];
                for (position, &player) in table.iter().enumerate() {
                    positions[player as usize][position] -= 1;
                }
                let price = |seats: &[usize]| -> (u32, u32) {
                    seats
                        .iter()
                        .enumerate()
                        .fold((0, 0), |(new, total), (i, &to)| {
                            let times = positions[table[i] as usize][to];
                            (new + u32::from(times > 0), total + times)
                        })
                };
                let identity: Vec<usize> = (0..size).collect();
                let mut best = (price(&identity), identity);
                for seats in &orders[size - 3] {
                    let candidate = price(seats);
                    if candidate < best.0 {
                        best = (candidate, seats.clone());
                    }
                }
                if best.1.iter().enumerate().any(|(i, &to)| i != to) {
                    improved = true;
                    let old = table.to_vec();
                    for (i, &to) in best.1.iter().enumerate() {
                        table[to] = old[i];
                    }
                }
                for (position, &player) in table.iter().enumerate() {
                    positions[player as usize][position] += 1;
                }
            }
        }
    }
}
