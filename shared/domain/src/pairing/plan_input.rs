//! What the round planners (`plan`, `construct`, `design`) work on: a classic field in dense
//! player numbers, its earlier rounds and the rules' inputs.

use crate::seating::TableSizes;

/// No table: the player was absent in that round.
pub(crate) const ABSENT: u32 = u32::MAX;

/// A dense index (player, table or slot of one field) as the `u32` the planners store.
#[expect(
    clippy::cast_possible_truncation,
    reason = "dense indices number the players, tables or seats of one field, far below u32::MAX"
)]
pub(crate) fn index_u32(index: usize) -> u32 {
    index as u32
}

pub(crate) struct PlanInput {
    pub players: usize,
    pub sizes: TableSizes,
    /// Earlier rounds, each a list of tables of dense players (absent players left out).
    pub history: Vec<Vec<Vec<u32>>>,
    /// Rounds to plan, the one being drawn included (at least 1).
    pub plan_rounds: usize,
    /// 3-player games each player counts as having had before the first planned round.
    pub three_player_games: Vec<u32>,
    /// Times each player sat in each play-order position in earlier rounds.
    pub positions_before: Vec<[u32; 4]>,
    /// For each player, the players they must be kept apart from.
    pub keep_apart: Vec<Vec<u32>>,
    pub seed: u64,
}
