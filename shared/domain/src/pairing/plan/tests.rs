//! Tests of the planner's lower bound and of reseating fixed tables.

use super::*;
use crate::seating::table_sizes;

fn input(players: usize, plan_rounds: usize, positions_before: Vec<[u32; 4]>) -> PlanInput {
    PlanInput {
        players,
        sizes: table_sizes(players).unwrap(),
        history: Vec::new(),
        plan_rounds,
        three_player_games: vec![0; players],
        positions_before,
        keep_apart: vec![Vec::new(); players],
        seed: 1,
    }
}

#[test]
fn the_position_bound_counts_the_seats_each_position_has() {
    // 37 players, 4 rounds: 28 fourth seats, so 9 players repeat a position.
    let bound = lower_bound(&input(37, 4, vec![[0; 4]; 37]));
    assert_eq!(bound, 9 * WEIGHT_POSITION_REPEAT);
    // 16 players, 4 rounds at tables of 4: everyone can have every position once.
    assert_eq!(lower_bound(&input(16, 4, vec![[0; 4]; 16])), 0);
    // A player who has had every position repeats one each round.
    let mut before = vec![[0; 4]; 16];
    before[0] = [1; 4];
    assert_eq!(
        lower_bound(&input(16, 2, before)),
        2 * WEIGHT_POSITION_REPEAT
    );
}

#[test]
fn reseating_keeps_the_tables_and_finds_the_best_order_of_a_lone_round() {
    // One round of 8 players: each player's unused positions can all be honoured.
    let mut before = vec![[0; 4]; 8];
    for (player, times) in before.iter_mut().enumerate() {
        times[player % 4] = 1;
    }
    let input = input(8, 1, before);
    let layout = Layout::new(input.sizes);
    let mut slots = vec![vec![0, 4, 1, 5, 2, 6, 3, 7]];
    reseat(&input, &layout, &mut slots);
    let mut tables: Vec<Vec<u32>> = slots[0].chunks(4).map(<[u32]>::to_vec).collect();
    for (table, members) in tables.iter().zip([[0, 1, 4, 5], [2, 3, 6, 7]]) {
        for (position, &player) in table.iter().enumerate() {
            assert_ne!(player as usize % 4, position, "{player} repeats {position}");
        }
        let mut sorted = table.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, members);
    }
    tables.clear();
}
