//! One broken rule of a sheet, and the stable codes that name the rules.

use serde::{Deserialize, Serialize};

/// The rules a results sheet can break, each with its stable code: the one list of them, handed to
/// `$callback!` as `rules { /// doc  Variant = "code", ... }` followed by the caller's own tokens.
///
/// [`RuleCode`] is made from it here, and the API's `ErrorCode` (which adds the codes of the
/// requests' other rules) in `catan_api`, so that the two cannot drift apart.
#[macro_export]
macro_rules! with_rule_codes {
    ($callback:ident! { $($rest:tt)* }) => {
        $callback! {
            rules {
                /// A score names a player who is not seated at the table.
                UnknownPlayer = "unknown_player",
                /// A player has a second score on the sheet.
                DuplicatePlayer = "duplicate_player",
                /// A seated player has no score on the sheet.
                MissingPlayer = "missing_player",
                /// A number is outside what the game allows.
                OutOfRange = "out_of_range",
                /// The game was won but no winner is named.
                WinnerMissing = "winner_missing",
                /// The named winner is not seated at the table.
                WinnerNotSeated = "winner_not_seated",
                /// The named winner has fewer than 10 VP.
                WinnerBelowTen = "winner_below_ten",
                /// A game stopped at the time limit names a winner.
                WinnerAtTimeLimit = "winner_at_time_limit",
                /// A final stopped at the time limit; finals are played until won.
                FinalAtTimeLimit = "final_at_time_limit",
                /// A breakdown has fewer than the two buildings of the set-up.
                TooFewBuildings = "too_few_buildings",
                /// A breakdown does not add up to the player's VP.
                BreakdownSumMismatch = "breakdown_sum_mismatch",
                /// The table claims more VP cards than the deck holds.
                TooManyVpCards = "too_many_vp_cards",
                /// More than one player claims the longest road.
                MultipleLongestRoadHolders = "multiple_longest_road_holders",
                /// More than one player claims the largest army.
                MultipleLargestArmyHolders = "multiple_largest_army_holders",
                /// The winning team's two players together have fewer VP than the target (partner
                /// games).
                WinnerBelowTarget = "winner_below_target",
                /// A player who did not win has 10 VP or more, and the tournament director has
                /// not marked the sheet as checked.
                NonWinnerAtTen = "non_winner_at_ten",
            }
            $($rest)*
        }
    };
}

macro_rules! rule_code_enum {
    (rules { $($(#[doc = $doc:literal])* $variant:ident = $code:tt,)* }) => {
        /// The stable `code` of each rule a sheet can break.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum RuleCode {
            $($(#[doc = $doc])* #[serde(rename = $code)] $variant,)*
        }
    };
}

with_rule_codes!(rule_code_enum! {});

/// The codes by their old names.
pub mod codes {
    use super::RuleCode;

    pub const UNKNOWN_PLAYER: RuleCode = RuleCode::UnknownPlayer;
    pub const DUPLICATE_PLAYER: RuleCode = RuleCode::DuplicatePlayer;
    pub const MISSING_PLAYER: RuleCode = RuleCode::MissingPlayer;
    pub const OUT_OF_RANGE: RuleCode = RuleCode::OutOfRange;
    pub const WINNER_MISSING: RuleCode = RuleCode::WinnerMissing;
    pub const WINNER_NOT_SEATED: RuleCode = RuleCode::WinnerNotSeated;
    pub const WINNER_BELOW_TEN: RuleCode = RuleCode::WinnerBelowTen;
    pub const WINNER_AT_TIME_LIMIT: RuleCode = RuleCode::WinnerAtTimeLimit;
    pub const FINAL_AT_TIME_LIMIT: RuleCode = RuleCode::FinalAtTimeLimit;
    pub const TOO_FEW_BUILDINGS: RuleCode = RuleCode::TooFewBuildings;
    pub const BREAKDOWN_SUM_MISMATCH: RuleCode = RuleCode::BreakdownSumMismatch;
    pub const TOO_MANY_VP_CARDS: RuleCode = RuleCode::TooManyVpCards;
    pub const MULTIPLE_LONGEST_ROAD_HOLDERS: RuleCode = RuleCode::MultipleLongestRoadHolders;
    pub const MULTIPLE_LARGEST_ARMY_HOLDERS: RuleCode = RuleCode::MultipleLargestArmyHolders;
    pub const NON_WINNER_AT_TEN: RuleCode = RuleCode::NonWinnerAtTen;
}

/// One broken rule: `field` is the JSON path in the API's names, e.g. "winner_player_id",
/// "outcome", "scores", "scores[2].vp", "scores[2].player_id", "scores[1].breakdown.cities",
/// "scores[1].breakdown"; `code` the [`RuleCode`] of the rule; `message` a sentence for a human.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub field: String,
    pub code: RuleCode,
    pub message: String,
}

impl Violation {
    pub(super) fn new(
        field: impl Into<String>,
        code: RuleCode,
        message: impl Into<String>,
    ) -> Self {
        Violation {
            field: field.into(),
            code,
            message: message.into(),
        }
    }
}
