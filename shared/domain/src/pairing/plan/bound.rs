//! A lower bound of the plan's cost, at which the search stops.

use std::collections::HashMap;

use super::weights::{WEIGHT_POSITION_REPEAT, WEIGHT_REPEAT, WEIGHT_REPEAT_SQUARED};
use crate::pairing::plan_input::PlanInput;
use crate::pairing::repeat_bound::repeat_lower_bound;

/// A lower bound of the plan's cost: the repeated meetings the field must still add, and the
/// position repeats.
pub(super) fn lower_bound(input: &PlanInput) -> u64 {
    position_bound(input) + repeat_bound(input)
}

/// When every earlier round seated the whole field, the event's repeated meetings are at least
/// `repeat_lower_bound` for all its rounds; what the history already has counts against it.
/// Each repeat the plan adds costs at least `WEIGHT_REPEAT + WEIGHT_REPEAT_SQUARED` ((m − 1)²
/// grows by at least 1 when m − 1 does). Otherwise (drops, late entries) 0.
fn repeat_bound(input: &PlanInput) -> u64 {
    let whole_field = input
        .history
        .iter()
        .all(|round| round.iter().map(Vec::len).sum::<usize>() == input.players);
    if !whole_field {
        return 0;
    }
    let Ok(bound) = repeat_lower_bound(input.players, input.history.len() + input.plan_rounds)
    else {
        return 0;
    };
    let mut meetings: HashMap<(u32, u32), u32> = HashMap::new();
    for table in input.history.iter().flatten() {
        for (i, &a) in table.iter().enumerate() {
            for &b in &table[i + 1..] {
                *meetings.entry((a.min(b), a.max(b))).or_default() += 1;
            }
        }
    }
    let before: u32 = meetings.values().map(|m| m - 1).sum();
    u64::from(bound.repeats.saturating_sub(before)) * (WEIGHT_REPEAT + WEIGHT_REPEAT_SQUARED)
}

/// A lower bound of the plan's position repeats.
///
/// Over the plan each player takes `plan_rounds` seats; a seat costs nothing only in a position
/// the player has not had yet, and position p has only `supply[p]` seats (tables with more than
/// p players, times the rounds). The most repeat-free seats is a maximum flow players ->
/// (player, unused position) -> position, whose minimum cut is, over the sets Q of positions
/// cut at their supply, Σ_{p∈Q} supply[p] + Σ_players min(rounds, unused positions outside Q).
/// Every other seat repeats a position. With 37 players over 4 rounds (7 tables of 4, 3 of 3)
/// only 28 seats play 4th: at least 9 players repeat a position.
fn position_bound(input: &PlanInput) -> u64 {
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
