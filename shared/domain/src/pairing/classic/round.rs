//! What a classic draw takes (the request) and returns (the tables, their explanations and
//! the event's figures).

use serde::{Deserialize, Serialize};

use crate::seating::SeatPosition;

/// The caller's stable number for a player within an event.
pub type Seat = u32;

pub struct ClassicRequest<'a> {
    /// Players to seat this round (dropped ones are absent; late entries simply appear).
    pub active: &'a [u32],
    /// Earlier qualifying rounds: tables, each in play order.
    pub history: &'a [Vec<Vec<u32>>],
    /// Qualifying rounds planned for the event, for look-ahead.
    pub total_rounds: usize,
    /// The TD's "never at one table" pairs (family, club).
    pub keep_apart: &'a [(u32, u32)],
    pub seed: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawnTable {
    /// Play order: seats N, E, S, W.
    pub players: Vec<u32>,
    pub explanation: TableExplanation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepeatedPair {
    pub players: (u32, u32),
    /// Times the two have shared a table, this round included.
    pub meetings: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreePlayerTable {
    /// Tables of 3 the head count forces this round.
    pub tables_of_three: usize,
    /// Each player's 3-player games before this round, as counted for the evenness rule.
    pub games_before: Vec<(u32, u32)>,
    /// The fewest 3-player games any active player had before this round.
    pub fewest_in_field: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepeatedPosition {
    pub player: u32,
    pub position: SeatPosition,
    /// Times the player sat in this position in earlier rounds.
    pub times_before: u32,
}

/// Why a table was formed: the constraints it met and the ones it had to break.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TableExplanation {
    pub repeated_pairs: Vec<RepeatedPair>,
    pub keep_apart_broken: Vec<(u32, u32)>,
    pub three_player: Option<ThreePlayerTable>,
    pub repeated_positions: Vec<RepeatedPosition>,
    /// The same in sentences, for the TD and the players.
    pub notes: Vec<String>,
}

/// The engine's figures for the event so far, this round included.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RoundFigures {
    /// Sum over pairs of (m - 1), m = times the pair has shared a table.
    pub repeat_meetings: u32,
    /// Sum over pairs of (m - 1)².
    pub repeat_cost_squared: u32,
    /// Most minus fewest 3-player games among players seated in every round so far.
    pub three_player_spread: u32,
    /// Times a keep-apart pair shared a table.
    pub keep_apart_broken: u32,
    /// Sum over players and play-order positions of (times in that position - 1).
    pub position_repeats: u32,
    /// The objective: keep-apart breaks in round 1, repeats, squared repeats, position
    /// repeats and later keep-apart breaks, weighted by the `WEIGHT_*` tiers.
    pub cost: u64,
    /// Rounds optimised together for this draw (this one and the rest of the event).
    pub planned_rounds: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassicRound {
    pub tables: Vec<DrawnTable>,
    pub figures: RoundFigures,
}
