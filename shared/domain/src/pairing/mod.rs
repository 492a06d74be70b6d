//! The pairing engine: who sits with whom, and in which seat.
//!
//! - [`classic`]: qualifying rounds at tables of 4 (and of 3 as forced), planned ahead.
//! - [`playoff`]: semi-finals and final, drawn at random.
//! - [`swiss`]: partner events, teams paired by minimum-cost perfect matching.
//! - [`undo`]: the director's corrections of a round before it is played.

mod blossom;
pub mod classic;
mod construct;
mod design;
mod plan;
mod plan_input;
pub mod playoff;
mod repeat_bound;
pub mod swiss;
pub mod undo;

#[cfg(test)]
mod checks;
#[cfg(test)]
mod exact;

pub use classic::{
    ClassicRequest, ClassicRound, DrawnTable, RepeatedPair, RepeatedPosition, RoundFigures, Seat,
    TableExplanation, ThreePlayerTable, draw_classic_round, schedule_figures,
};
pub use plan::{
    WEIGHT_KEEP_APART_FIRST_ROUND, WEIGHT_KEEP_APART_LATER, WEIGHT_POSITION_REPEAT, WEIGHT_REPEAT,
    WEIGHT_REPEAT_SQUARED,
};
pub use playoff::draw_playoff_tables;
pub use repeat_bound::{BoundReason, RepeatBound, repeat_lower_bound};
pub use swiss::{BYE_POINTS, SwissRound, SwissTeam, pair_swiss};
