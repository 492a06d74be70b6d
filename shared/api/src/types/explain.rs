//! Standings people understand (issue 35), as the contract carries it: what separates a row from
//! the row above, and where each player stands against the playoff cut or the season's
//! qualification.

use catan_domain::explain::{Difference, Explanation, Figure as DomainFigure, Level};
use catan_domain::standings::format_percent;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use catan_domain::explain::EventCriterion;
pub use catan_domain::projection::{CutNeed, CutOutlook, QualificationOutlook};

/// A row's figure on one criterion, written as the ranking compares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Figure {
    /// A whole number (VP, wins, events), a decimal with two places (a VP share in percent,
    /// season points), a place, or the games finished 1st, 2nd and 3rd as `a/b/c`; none for a
    /// player with no place.
    pub shown: Option<String>,
    /// A decimal's exact value, `numerator/denominator`: what ranks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
}

impl From<DomainFigure> for Figure {
    fn from(figure: DomainFigure) -> Self {
        let whole = |shown: String| Figure {
            shown: Some(shown),
            exact: None,
        };
        match figure {
            DomainFigure::Count(n) => whole(n.to_string()),
            DomainFigure::Exact(value) => Figure {
                shown: Some(format_percent(&value)),
                exact: Some(format!("{}/{}", value.numer(), value.denom())),
            },
            DomainFigure::Place(place) => Figure {
                shown: place.map(|p| p.to_string()),
                exact: None,
            },
            DomainFigure::Places([first, second, third]) => {
                whole(format!("{first}/{second}/{third}"))
            }
        }
    }
}

/// A criterion on which a row and the row above are level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LevelOn<C> {
    pub criterion: C,
    pub figure: Figure,
}

/// The criterion on which the row above is ahead, with both rows' figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct AheadOn<C> {
    pub criterion: C,
    pub above: Figure,
    pub below: Figure,
}

/// What separates a row from the row above: the criteria, in ranking order, on which they are
/// level, then the first on which the row above is ahead; none when they are level on every
/// criterion (they share a rank, and are listed by player id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Separation<C> {
    pub level_on: Vec<LevelOn<C>>,
    pub ahead_on: Option<AheadOn<C>>,
}

impl<C> From<Explanation<C>> for Separation<C> {
    fn from(explanation: Explanation<C>) -> Self {
        Separation {
            level_on: explanation
                .level_on
                .into_iter()
                .map(|Level { criterion, figure }| LevelOn {
                    criterion,
                    figure: figure.into(),
                })
                .collect(),
            ahead_on: explanation.ahead_on.map(
                |Difference {
                     criterion,
                     above,
                     below,
                 }| AheadOn {
                    criterion,
                    above: above.into(),
                    below: below.into(),
                },
            ),
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
