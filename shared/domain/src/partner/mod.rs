//! Partner events: teams of two, two teams a table, Swiss rounds.
//!
//! Partners sit opposite each other (one team N and S, the other E and W), so turns alternate
//! between the teams. There is no trading between players, only with the bank and harbours.
//! A team wins when its two players together reach the target (20 VP by default) on one of
//! their turns. A win is worth 3 points and a loss 0; each team's record also keeps the VP its
//! opponents scored against it, the first tie-break (fewer is better).

mod seating;
mod sheet;
mod standings;
mod swiss;

pub use seating::{PartnerSeat, seat_partner_table};
pub use sheet::{GameResult, PartnerGame, PartnerPlayerScore, TeamResult, validate_partner_sheet};
pub use standings::{PartnerRow, partner_standings, partner_standings_with_drops};
pub use swiss::{PartnerPairing, pair_partner_round};

use crate::PlayerId;
use crate::results::{OutcomeKind, RawScore};
use serde::{Deserialize, Serialize};

/// A team's identity: two players registered together.
pub type TeamId = uuid::Uuid;

/// The codes of partner-only rules; the others are [`crate::results::codes`].
pub mod codes {
    use crate::results::RuleCode;

    pub const WINNER_BELOW_TARGET: RuleCode = RuleCode::WinnerBelowTarget;
}

/// Points a game is worth to a team.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchPoints {
    pub win: u32,
    pub draw: u32,
    pub loss: u32,
}

impl Default for MatchPoints {
    fn default() -> Self {
        MatchPoints {
            win: 3,
            draw: 1,
            loss: 0,
        }
    }
}

/// How a game stopped at the time limit is scored: the partner rules only define a win at
/// the target, so this is the event's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum TimeLimitRule {
    /// The team with more VP wins; equal VP is a draw.
    #[default]
    MoreVpWins,
    /// Every game stopped at the time limit is a draw.
    Draw,
    /// Nobody reached the target, so nobody wins: both teams score a loss.
    NoWinner,
}

/// The VP a bye counts for and against the team, for the tie-breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ByeVp {
    /// The team's own average per game, VP scored and VP against, over the games it has
    /// played (rounded half up), so a bye neither helps nor hurts its tie-breaks. A team
    /// that has played no game gets the average of every team in every game of the event.
    #[default]
    OwnAverage,
    /// The same fixed numbers for every bye.
    Fixed { vp: u32, vp_against: u32 },
}

/// What a team gets for a round without an opponent (odd number of teams).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ByeRule {
    pub points: u32,
    pub vp: ByeVp,
}

impl Default for ByeRule {
    fn default() -> Self {
        ByeRule {
            points: 3,
            vp: ByeVp::OwnAverage,
        }
    }
}

/// A partner event's rules as data, for the table apps to show and the services to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PartnerSettings {
    /// VP the two partners together need, on one of their turns, to win.
    pub target_vp: u8,
    pub minutes_per_game: u32,
    pub thinking_seconds_per_turn: u32,
    /// Trading between players; partner events allow only the bank and harbours.
    pub player_trading: bool,
    pub rounds: u32,
    pub points: MatchPoints,
    pub time_limit_rule: TimeLimitRule,
    pub bye_rule: ByeRule,
    /// How many of the best teams receive a prize.
    pub prize_places: u8,
}

impl Default for PartnerSettings {
    fn default() -> Self {
        PartnerSettings {
            target_vp: 20,
            minutes_per_game: 60,
            thinking_seconds_per_turn: 120,
            player_trading: false,
            rounds: 4,
            points: MatchPoints::default(),
            time_limit_rule: TimeLimitRule::MoreVpWins,
            bye_rule: ByeRule::default(),
            prize_places: 3,
        }
    }
}

/// Settings that no event can be run with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartnerSettingsError {
    #[error("a team's VP is between {min} and {max}, so a target of {target} cannot be played")]
    TargetOutOfReach { target: u8, min: i64, max: i64 },
    #[error("an event needs at least one round")]
    NoRounds,
    #[error("a game needs some minutes to be played")]
    NoTime,
    #[error("a win must be worth more than a draw, and a draw at least a loss")]
    PointsOutOfOrder,
}

impl PartnerSettings {
    /// Checks the settings make a playable event.
    pub fn check(&self) -> Result<(), PartnerSettingsError> {
        let (min, max) = team_vp_range();
        // A team that starts at its minimum has not won yet, so the target lies above it.
        if i64::from(self.target_vp) <= min || i64::from(self.target_vp) > max {
            return Err(PartnerSettingsError::TargetOutOfReach {
                target: self.target_vp,
                min,
                max,
            });
        }
        if self.rounds == 0 {
            return Err(PartnerSettingsError::NoRounds);
        }
        if self.minutes_per_game == 0 {
            return Err(PartnerSettingsError::NoTime);
        }
        if self.points.win <= self.points.draw || self.points.draw < self.points.loss {
            return Err(PartnerSettingsError::PointsOutOfOrder);
        }
        Ok(())
    }
}

/// The fewest and most VP two partners can have together.
fn team_vp_range() -> (i64, i64) {
    (2 * crate::results::MIN_VP, 2 * crate::results::MAX_VP)
}

/// A partner table's results sheet as submitted: one line per player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawPartnerSheet {
    pub outcome: OutcomeKind,
    pub winner_team: Option<TeamId>,
    pub scores: Vec<RawScore>,
}

/// The two teams seated at a table, each with its two players.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableTeams {
    pub home: (TeamId, [PlayerId; 2]),
    pub away: (TeamId, [PlayerId; 2]),
}

impl TableTeams {
    fn teams(&self) -> [(TeamId, [PlayerId; 2]); 2] {
        [self.home, self.away]
    }
}

#[cfg(test)]
mod tests;
