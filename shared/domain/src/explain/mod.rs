//! Why a standings row is below the one above it (issue 35): the first criterion of the ranking
//! order on which the two differ, with both figures, after the criteria on which they are level;
//! or that they are level on every criterion, when the order between them is the lot (player id).
//!
//! Structured, not worded: the pages word it in each language ("level on 18 VP; ahead on VP
//! share, 61.89 % against 60.12 %").
//!
//! - `event`: the classic event standings (VP, VP share, wins).
//! - `season`: the season table, in its own tie-break order.

mod event;
mod season;

#[cfg(test)]
mod tests;

use num_rational::BigRational;
use serde::{Serialize, Serializer};

use crate::standings::format_percent;

pub use event::{EVENT_CRITERIA, EventCriterion, explain_event_rows, explain_event_standings};
pub use season::{explain_season_rows, explain_season_standings};

/// What separates a row from the row above it. `C` names the criteria: [`EventCriterion`] for an
/// event's standings, [`crate::season::TieBreak`] for a season's table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation<C> {
    /// The criteria before the one that separates them, in ranking order: the two rows are level
    /// on each, with this figure.
    pub level_on: Vec<Level<C>>,
    /// The first criterion on which the row above is ahead, with both figures; none when the rows
    /// are level on every criterion (they share a rank, and are listed by player id).
    pub ahead_on: Option<Difference<C>>,
}

/// A criterion on which two rows are level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Level<C> {
    pub criterion: C,
    pub figure: Figure,
}

/// The criterion on which the row above is ahead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference<C> {
    pub criterion: C,
    pub above: Figure,
    pub below: Figure,
}

/// A row's figure on one criterion, as exact as the ranking compares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Figure {
    /// A whole number: VP, wins, events played.
    Count(u64),
    /// An exact number: season points, or a VP share in percent. Serialized as
    /// `{"decimal": "61.89", "exact": "3085/36"}` (two decimals, halves away from zero).
    Exact(#[serde(serialize_with = "exact_figure")] BigRational),
    /// A best place; none for a player without one (below any place).
    Place(Option<u32>),
    /// Games finished 1st, 2nd and 3rd.
    Places([u32; 3]),
}

fn exact_figure<S: Serializer>(value: &BigRational, serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Exact {
        decimal: String,
        exact: String,
    }
    Exact {
        decimal: format_percent(value),
        exact: format!("{}/{}", value.numer(), value.denom()),
    }
    .serialize(serializer)
}

/// The explanation of two rows from their figures on each criterion in ranking order, and each
/// criterion's comparison (`Less`: the row above is ahead).
fn explain<C: Copy>(
    criteria: impl IntoIterator<Item = (C, std::cmp::Ordering, Figure, Figure)>,
) -> Explanation<C> {
    let mut level_on = Vec::new();
    for (criterion, order, above, below) in criteria {
        if order.is_eq() {
            level_on.push(Level {
                criterion,
                figure: above,
            });
        } else {
            return Explanation {
                level_on,
                ahead_on: Some(Difference {
                    criterion,
                    above,
                    below,
                }),
            };
        }
    }
    Explanation {
        level_on,
        ahead_on: None,
    }
}
