//! Tests of the planner's lower bound and of reseating fixed tables.

use proptest::prelude::*;

use super::*;
use crate::seating::table_sizes;

use weights::pair_cost;

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
fn the_meeting_bound_charges_pairs_that_must_meet_a_third_time() {
    // 16 players over 12 rounds: 36 meetings each over 15 others, so at best 6 of them three
    // times and 9 twice (the counting bound alone charges 21 repeats, not their squares).
    let each = 6 * pair_cost(3) + 9 * pair_cost(2);
    // 12 seats over 4 positions: 8 repeats a player.
    let positions = 16 * 8 * WEIGHT_POSITION_REPEAT;
    let bound = lower_bound(&input(16, 12, vec![[0; 4]; 16]));
    assert_eq!(bound, 16 * each / 2 + positions);
    assert!(16 * each / 2 > 16 * 21 / 2 * (WEIGHT_REPEAT + WEIGHT_REPEAT_SQUARED));
}

/// A whole-field event of `rounds` whose first `played` rounds are random (3-player games kept
/// even) and already played: the input that plans the rest.
fn after_random_rounds(players: usize, rounds: usize, played: usize, seed: u64) -> PlanInput {
    let whole = input(players, played, vec![[0; 4]; players]);
    let layout = Layout::new(whole.sizes);
    let slots = random_layout(&whole, Vec::new(), &mut ChaCha8Rng::seed_from_u64(seed));
    let mut history = input(players, rounds - played, vec![[0; 4]; players]);
    for order in &slots {
        let mut tables = Vec::new();
        for (&start, &size) in layout.table_start.iter().zip(&layout.table_size) {
            let table = order[start..start + size].to_vec();
            for (position, &player) in table.iter().enumerate() {
                history.positions_before[player as usize][position] += 1;
                history.three_player_games[player as usize] += u32::from(size == 3);
            }
            tables.push(table);
        }
        history.history.push(tables);
    }
    history
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The planner's own plans (a short search, which stops once it reaches the bound) never
    /// cost less than the bound, with or without rounds already played.
    #[test]
    fn no_plan_costs_less_than_the_lower_bound(
        players in 6usize..=32,
        rounds in 2usize..=12,
        played in 0usize..12,
        seed in any::<u64>(),
    ) {
        let played = played % rounds;
        let input = after_random_rounds(players, rounds, played, seed);
        let layout = Layout::new(input.sizes);
        let (_, cost) = search(&input, &layout, &mut Effort::new(20_000));
        prop_assert!(cost >= lower_bound(&input), "{players} x {rounds}, {played} played");
    }
}

#[test]
fn a_search_short_of_its_bound_stops_at_its_budget_of_moves_the_same_way_every_time() {
    // 36 players over 11 rounds: no search found a plan at the bound (0 repeats), so only the
    // budget ends it; it counts moves, not time, so the plan is the same however busy the
    // machine, and more moves give a better one.
    let input = input(36, 11, vec![[0; 4]; 36]);
    let layout = Layout::new(input.sizes);
    let mut effort = Effort::new(PLAN_BUDGET);
    let capped = search(&input, &layout, &mut effort);
    assert!(effort.exhausted());
    assert!(capped.1 > lower_bound(&input));
    assert_eq!(
        search(&input, &layout, &mut Effort::new(PLAN_BUDGET)),
        capped
    );
    let longer = search(&input, &layout, &mut Effort::new(4 * PLAN_BUDGET));
    assert!(longer.1 < capped.1);
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
