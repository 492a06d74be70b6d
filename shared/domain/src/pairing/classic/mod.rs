//! Qualifying rounds of a classic event: tables of 4, and of 3 as the head count forces.
//!
//! Hard rules (never broken): every active player is seated exactly once; there are exactly
//! `(4 - n mod 4) mod 4` tables of 3; after every round the 3-player games of any two players
//! differ by at most one. A player who missed rounds (late entry, return after a drop) counts
//! as having at least one 3-player game fewer than the most any active player has had: they are
//! first in line for a table of 3 together with the least-served players, and the rule stays
//! satisfiable. Among players who have played every round the raw counts stay within one.
//!
//! Then, in this order: fewest repeated meetings over the event (a pair meeting m times counts
//! m - 1), the sum of (m - 1)², a keep-apart pair sharing a table in round 1, play-order
//! positions repeated, keep-apart pairs sharing a table later. `RoundFigures::cost` weighs these
//! as tiers (see the `WEIGHT_*` constants); the round drawn is the first of a plan of all
//! remaining rounds minimised together, so each call re-plans from the actual history.
//!
//! - `round`: what a draw takes and what it returns.
//! - `draw`: the draw itself, in dense player numbers for the planner and back.
//! - `tally`: counts over the event (meetings, 3-player games, positions) and its figures.
//! - `explain`: why each table was formed, in figures and sentences.

mod draw;
mod explain;
mod round;
mod tally;

#[cfg(test)]
mod tests;

pub use draw::draw_classic_round;
pub use round::{
    ClassicRequest, ClassicRound, DrawnTable, RepeatedPair, RepeatedPosition, RoundFigures, Seat,
    TableExplanation, ThreePlayerTable,
};
pub use tally::schedule_figures;
