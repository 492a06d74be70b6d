//! Standings people understand (issue 35), as the contract carries it: what separates a row from
//! the row above, and where each player stands against the playoff cut or the season's
//! qualification.

use catan_domain::explain::Explanation;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use catan_domain::explain::EventCriterion;
pub use catan_domain::projection::{CutNeed, CutOutlook, QualificationOutlook};

/// What separates a row from the row above, by the criteria of the ranking order: those on which
/// the two are level, in order, then the first on which the row above is ahead; none when they
/// are level on every criterion (they share a rank, and are listed by player id). The figures
/// are the two rows' own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(bound(deserialize = "C: Deserialize<'de>"))]
pub struct Separation<C> {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub level_on: Vec<C>,
    pub ahead_on: Option<C>,
}

impl<C> From<Explanation<C>> for Separation<C> {
    fn from(explanation: Explanation<C>) -> Self {
        Separation {
            level_on: explanation
                .level_on
                .into_iter()
                .map(|level| level.criterion)
                .collect(),
            ahead_on: explanation.ahead_on.map(|ahead| ahead.criterion),
        }
    }
}

/// Where an event's qualifying rounds leave the playoff: how many go through, and the rounds
/// still to play after the last complete one, which the players' outlooks are told from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlayoffCut {
    /// Players who go through: 16 to the semi-finals, or a small field's final (4, or 3).
    pub cut: u32,
    /// The last qualifying round every table of which has a result: the outlooks are as of it.
    pub after_round: u32,
    /// Qualifying rounds still to play after it.
    pub remaining_rounds: u32,
}
