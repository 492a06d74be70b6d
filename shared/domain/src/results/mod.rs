//! A table's results sheet: what the players report, checked against who sat at the table and
//! against what the base game makes possible, and the VP each player is credited with.
//!
//! - `limits`: what the base game makes possible (VP, supply, shared cards).
//! - `sheet`: the sheet as submitted, numbers unchecked.
//! - `violation`: one broken rule, and the stable `codes`.
//! - `validate`: the checks of a sheet and of one player's breakdown.
//! - `credit`: the validated result and the VP the tournament credits.
//! - `doubtful`: sheets the game allows but the director must check (a non-winner at 10 VP).

mod credit;
mod doubtful;
mod limits;
mod sheet;
mod validate;
mod violation;

#[cfg(test)]
pub(crate) mod strategies;
#[cfg(test)]
mod tests;

pub use credit::{Breakdown, Score, TableResult, credited_vp};
pub use doubtful::{
    MAX_CHECKED_REASON_CHARS, checked_reason, credited_as_sent, unchecked_non_winners,
};
pub use limits::{
    MAX_CITIES, MAX_CREDIT_WITHOUT_WIN, MAX_SETTLEMENTS, MAX_VP, MIN_BUILDINGS, MIN_VP,
    SPECIAL_CARD_VP, VP_CARDS_IN_DECK, WINNING_VP,
};
pub use sheet::{OutcomeKind, RawBreakdown, RawScore, RawSheet, Stage};
pub(crate) use validate::check_score;
pub use validate::{out_of_range, validate_breakdown, validate_sheet};
pub use violation::{RuleCode, Violation, codes};
