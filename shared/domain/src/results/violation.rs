//! One broken rule of a sheet, and the stable codes that name the rules.

use serde::Serialize;

/// The stable `code`s of a [`Violation`].
pub mod codes {
    /// A score names a player who is not seated at the table.
    pub const UNKNOWN_PLAYER: &str = "unknown_player";
    /// A player has a second score on the sheet.
    pub const DUPLICATE_PLAYER: &str = "duplicate_player";
    /// A seated player has no score on the sheet.
    pub const MISSING_PLAYER: &str = "missing_player";
    /// A number is outside what the game allows.
    pub const OUT_OF_RANGE: &str = "out_of_range";
    /// The game was won but no winner is named.
    pub const WINNER_MISSING: &str = "winner_missing";
    /// The named winner is not seated at the table.
    pub const WINNER_NOT_SEATED: &str = "winner_not_seated";
    /// The named winner has fewer than 10 VP.
    pub const WINNER_BELOW_TEN: &str = "winner_below_ten";
    /// A game stopped at the time limit names a winner.
    pub const WINNER_AT_TIME_LIMIT: &str = "winner_at_time_limit";
    /// A final stopped at the time limit; finals are played until won.
    pub const FINAL_AT_TIME_LIMIT: &str = "final_at_time_limit";
    /// A breakdown has fewer than the two buildings of the set-up.
    pub const TOO_FEW_BUILDINGS: &str = "too_few_buildings";
    /// A breakdown does not add up to the player's VP.
    pub const BREAKDOWN_SUM_MISMATCH: &str = "breakdown_sum_mismatch";
    /// The table claims more VP cards than the deck holds.
    pub const TOO_MANY_VP_CARDS: &str = "too_many_vp_cards";
    /// More than one player claims the longest road.
    pub const MULTIPLE_LONGEST_ROAD_HOLDERS: &str = "multiple_longest_road_holders";
    /// More than one player claims the largest army.
    pub const MULTIPLE_LARGEST_ARMY_HOLDERS: &str = "multiple_largest_army_holders";
}

/// One broken rule: `field` is the JSON path in the API's names, e.g. "winner_player_id",
/// "outcome", "scores", "scores[2].vp", "scores[2].player_id", "scores[1].breakdown.cities",
/// "scores[1].breakdown"; `code` one of [`codes`]; `message` a sentence for a human.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub field: String,
    pub code: &'static str,
    pub message: String,
}

impl Violation {
    pub(super) fn new(
        field: impl Into<String>,
        code: &'static str,
        message: impl Into<String>,
    ) -> Self {
        Violation {
            field: field.into(),
            code,
            message: message.into(),
        }
    }
}
