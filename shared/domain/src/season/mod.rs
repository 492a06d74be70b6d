//! Season scoring (issue 8): how the events of a season score for it.
//!
//! - `points`: the two scoring modes, `placement` (an event scores by its final places) and
//!   `table_points` (every game scores by finishing position).

mod points;

#[cfg(test)]
mod tests;

pub use points::{PlacementPoints, TablePoints};
