//! A results sheet as submitted: the stage and outcome, and each player's unchecked numbers.

use serde::{Deserialize, Serialize};

use crate::PlayerId;

/// The stage of the tournament a game belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Stage {
    Qualifying,
    Semifinal,
    Final,
    /// A partner event's Swiss round.
    Swiss,
}

/// How a game ended: somebody won, or the round's time ran out first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum OutcomeKind {
    Won,
    TimeLimit,
}

/// A breakdown as received: numbers unchecked (i64) so that the validator can name what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawBreakdown {
    pub settlements: i64,
    pub cities: i64,
    pub vp_cards: i64,
    pub longest_road: bool,
    pub largest_army: bool,
}

/// One player's line of the sheet as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawScore {
    pub player: PlayerId,
    pub vp: i64,
    pub breakdown: Option<RawBreakdown>,
}

/// A table's results sheet as submitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawSheet {
    pub outcome: OutcomeKind,
    pub winner: Option<PlayerId>,
    pub scores: Vec<RawScore>,
}
