//! Who is ahead in a playoff game: the player who goes through from a table, and the order
//! placements use within a stage.

use std::collections::HashMap;

use crate::PlayerId;
use crate::results::{Score, TableResult};

/// Who goes through from a semi-final table: its winner; at a time limit the highest actual VP
/// (not the credited VP, which caps everyone at 9).
///
/// Equal highest VP goes to the better qualifying standing, i.e. the earlier position in
/// `qualifying_order`: the semi-final itself cannot separate them, and qualifying is the
/// tournament's own measure of merit. Players missing from `qualifying_order` come after those in
/// it, by player id.
///
/// # Panics
/// If the result has neither a winner nor any score, which no validated sheet of a seated table
/// can be.
#[expect(
    clippy::expect_used,
    reason = "the documented panic: a validated sheet names a winner or scores every seated player"
)]
pub fn table_winner(result: &TableResult, qualifying_order: &[PlayerId]) -> PlayerId {
    if let Some(winner) = result.winner {
        return winner;
    }
    let position = positions(qualifying_order.iter().copied());
    result
        .scores
        .iter()
        .min_by_key(|score| playoff_order_key(score, &position))
        .map(|score| score.player)
        .expect("a table result has at least one score")
}

/// Each player's index in a best-first order; the first occurrence counts.
pub(super) fn positions(order: impl Iterator<Item = PlayerId>) -> HashMap<PlayerId, usize> {
    let mut position = HashMap::new();
    for (index, player) in order.enumerate() {
        position.entry(player).or_insert(index);
    }
    position
}

/// Sorting by this puts the best first: higher actual VP, then the better qualifying position,
/// then (only for players without one) the player id.
pub(super) fn playoff_order_key(
    score: &Score,
    position: &HashMap<PlayerId, usize>,
) -> (std::cmp::Reverse<u8>, usize, PlayerId) {
    let qualifying = position.get(&score.player).copied().unwrap_or(usize::MAX);
    (std::cmp::Reverse(score.vp), qualifying, score.player)
}
