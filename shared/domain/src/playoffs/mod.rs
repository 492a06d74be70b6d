//! After qualifying: who plays the semi-finals and the final, who goes through, and the final
//! placements of the whole field.
//!
//! - `plan`: which playoff a field gets, and who starts it.
//! - `ranking`: who goes through from a table, and the order of players within a stage.
//! - `placements`: the final placements of the whole field.

mod placements;
mod plan;
mod ranking;

#[cfg(test)]
mod tests;

pub use placements::{Placement, PlayoffError, placements};
pub use plan::{
    FULL_FINAL, PlayoffPlan, SEMIFINALISTS, SMALLEST_FINAL, SmallFieldRule, playoff_plan,
    top_of_standings,
};
pub use ranking::table_winner;
