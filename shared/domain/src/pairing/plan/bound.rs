//! A lower bound of the plan's cost, at which the search stops.

use std::collections::HashMap;

use super::weights::{WEIGHT_POSITION_REPEAT, WEIGHT_REPEAT, WEIGHT_REPEAT_SQUARED, pair_cost};
use crate::pairing::plan_input::{PlanInput, index_u32};
use crate::pairing::repeat_bound::repeat_lower_bound;

/// A lower bound of the plan's cost: the repeated meetings the field must still add (the larger
/// of two bounds), and the position repeats. Not cheap (`repeat_lower_bound`): computed once
/// per search.
pub(super) fn lower_bound(input: &PlanInput) -> u64 {
    if !whole_field(input) {
        // Drops or late entries: neither meeting bound holds.
        return position_bound(input);
    }
    let history = history_meetings(input);
    position_bound(input) + repeat_bound(input, &history).max(spread_bound(input, &history))
}

/// Whether every earlier round seated the whole field (so 3-player games are spread evenly).
fn whole_field(input: &PlanInput) -> bool {
    input
        .history
        .iter()
        .all(|round| round.iter().map(Vec::len).sum::<usize>() == input.players)
}

/// How often each pair met in the history (pairs that met only).
fn history_meetings(input: &PlanInput) -> HashMap<(u32, u32), u32> {
    let mut meetings: HashMap<(u32, u32), u32> = HashMap::new();
    for table in input.history.iter().flatten() {
        for (i, &a) in table.iter().enumerate() {
            for &b in &table[i + 1..] {
                *meetings.entry((a.min(b), a.max(b))).or_default() += 1;
            }
        }
    }
    meetings
}

/// The event's repeated meetings are at least `repeat_lower_bound` for all its rounds; what the
/// history already has counts against it. Each repeat the plan adds costs at least
/// `WEIGHT_REPEAT + WEIGHT_REPEAT_SQUARED` ((m − 1)² grows by at least 1 when m − 1 does).
fn repeat_bound(input: &PlanInput, history: &HashMap<(u32, u32), u32>) -> u64 {
    let Ok(bound) = repeat_lower_bound(input.players, input.history.len() + input.plan_rounds)
    else {
        return 0;
    };
    let before: u32 = history.values().map(|m| m - 1).sum();
    u64::from(bound.repeats.saturating_sub(before)) * (WEIGHT_REPEAT + WEIGHT_REPEAT_SQUARED)
}

/// The cheapest the event's meetings can be, less what the history's meetings cost. A player meets 3
/// others a round less one per 3-player game (games spread evenly, as in the counting bound),
/// and a pair's cost grows faster the more it meets (`pair_cost` is convex), so a player's
/// meetings cost the least spread as evenly as they can be over the `players − 1` others;
/// summed over players and halved (both players of a pair count it). Where meetings must
/// repeat this is above the counting bound's weight: 16 players over 10 rounds meet each other
/// exactly twice at best, and a search that finds that may stop.
fn spread_bound(input: &PlanInput, history: &HashMap<(u32, u32), u32>) -> u64 {
    let players = input.players;
    let rounds = input.history.len() + input.plan_rounds;
    let others = players.saturating_sub(1).max(1);
    let cheapest = |meetings: usize| -> u64 {
        let (each, with_one_more) = (meetings / others, meetings % others);
        with_one_more as u64 * pair_cost(index_u32(each + 1))
            + (others - with_one_more) as u64 * pair_cost(index_u32(each))
    };
    let games = 3 * input.sizes.threes * rounds;
    let (fewest, with_one_more) = (games / players, games % players);
    let meetings = |games: usize| (3 * rounds).saturating_sub(games);
    let event = (with_one_more as u64 * cheapest(meetings(fewest + 1))
        + (players - with_one_more) as u64 * cheapest(meetings(fewest)))
        / 2;
    let before: u64 = history.values().map(|&m| pair_cost(m)).sum();
    event.saturating_sub(before)
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
