//! The planner's objective: one weight per rule, and the cost of a pair or a play-order position.

/// Weights of the objective, one tier per rule, highest first. A tier outweighs every
/// realistic total of the tiers below it, so minimising the sum minimises them in order.
pub const WEIGHT_KEEP_APART_FIRST_ROUND: u64 = 1 << 56;
pub const WEIGHT_REPEAT: u64 = 1 << 40;
pub const WEIGHT_REPEAT_SQUARED: u64 = 1 << 28;
pub const WEIGHT_POSITION_REPEAT: u64 = 1 << 14;
pub const WEIGHT_KEEP_APART_LATER: u64 = 1;

/// Cost of a player having sat `times` times in one play-order position.
pub(super) fn position_cost(times: u32) -> u64 {
    WEIGHT_POSITION_REPEAT * u64::from(times.saturating_sub(1))
}

/// Cost of a pair that meets `meetings` times: repeats, then their squares.
pub(crate) fn pair_cost(meetings: u32) -> u64 {
    let extra = u64::from(meetings.saturating_sub(1));
    WEIGHT_REPEAT * extra + WEIGHT_REPEAT_SQUARED * extra * extra
}
