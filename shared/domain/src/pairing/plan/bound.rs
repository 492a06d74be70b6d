//! A lower bound of the plan's cost, at which the search stops.

use super::weights::WEIGHT_POSITION_REPEAT;
use crate::pairing::plan_input::PlanInput;

/// A lower bound of the plan's cost (position repeats; repeated meetings are not bounded).
///
/// Over the plan each player takes `plan_rounds` seats; a seat costs nothing only in a position
/// the player has not had yet, and position p has only `supply[p]` seats (tables with more than
/// p players, times the rounds). The most repeat-free seats is a maximum flow players ->
/// (player, unused position) -> position, whose minimum cut is, over the sets Q of positions
/// cut at their supply, Σ_{p∈Q} supply[p] + Σ_players min(rounds, unused positions outside Q).
/// Every other seat repeats a position. With 37 players over 4 rounds (7 tables of 4, 3 of 3)
/// only 28 seats play 4th: at least 9 players repeat a position.
pub(super) fn lower_bound(input: &PlanInput) -> u64 {
    let rounds = input.plan_rounds as u64;
    let tables_with_position = |position: usize| -> u64 {
        input
            .sizes
            .in_order()
            .filter(|&size| size > position)
            .count() as u64
    };
    let supply: Vec<u64> = (0..4)
        .map(|position| rounds * tables_with_position(position))
        .collect();
    let most_new_seats = (0u32..16)
        .map(|cut| {
            let cut_supply: u64 = (0..4)
                .filter(|&p| cut & (1 << p) != 0)
                .map(|p| supply[p])
                .sum();
            let players: u64 = input
                .positions_before
                .iter()
                .map(|times| {
                    let unused = (0..4)
                        .filter(|&p| cut & (1 << p) == 0 && times[p] == 0)
                        .count() as u64;
                    unused.min(rounds)
                })
                .sum();
            cut_supply + players
        })
        .min()
        .unwrap_or(0);
    let seats = rounds * input.players as u64;
    WEIGHT_POSITION_REPEAT * seats.saturating_sub(most_new_seats)
}
