//! Which playoff a field of qualified players gets, and the players a stage starts from.

use serde::{Deserialize, Serialize};

use crate::PlayerId;
use crate::standings::ClassicRow;

/// Players in the semi-finals: four tables of four.
pub const SEMIFINALISTS: usize = 16;
/// Players at a full final table.
pub const FULL_FINAL: usize = 4;
/// Fewest players a final can be played with.
pub const SMALLEST_FINAL: usize = 3;

/// What a field too small for the semi-finals plays instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum SmallFieldRule {
    /// A final of the top 4 (of all 3 when exactly 3 qualified).
    #[default]
    FinalOfTop4,
    /// No playoff: the qualifying standings are the placements.
    NoPlayoff,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayoffPlan {
    /// top 16 in 4 semi-final tables, their winners to the final
    SemifinalsAndFinal,
    /// straight to a final of the top `size` (3 or 4)
    FinalOnly { size: usize },
    /// placements are the qualifying standings
    None,
}

/// Which playoff a field of `qualified` ranked players gets: 16 or more -> semis and final;
/// fewer -> by the rule (FinalOfTop4: a final of the top 4, or of all 3 when exactly 3;
/// NoPlayoff or fewer than 3 -> None).
pub fn playoff_plan(qualified: usize, rule: SmallFieldRule) -> PlayoffPlan {
    if qualified >= SEMIFINALISTS {
        return PlayoffPlan::SemifinalsAndFinal;
    }
    match rule {
        SmallFieldRule::FinalOfTop4 if qualified >= SMALLEST_FINAL => PlayoffPlan::FinalOnly {
            size: qualified.min(FULL_FINAL),
        },
        SmallFieldRule::FinalOfTop4 | SmallFieldRule::NoPlayoff => PlayoffPlan::None,
    }
}

/// The players a playoff stage starts from: the first `count` of the standings order (all of
/// them if there are fewer).
pub fn top_of_standings(standings: &[ClassicRow], count: usize) -> Vec<PlayerId> {
    standings.iter().take(count).map(|row| row.player).collect()
}
