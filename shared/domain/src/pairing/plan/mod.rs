//! Local search over the remaining qualifying rounds of a classic event.
//!
//! The planner lays out every remaining round (the one being drawn and those after it) and
//! improves them together with Late Acceptance Hill Climbing over swap moves (two players of
//! one round change tables). Players are dense indices `0..n` here; the caller maps them.
//!
//! A move never breaks a hard rule: everybody is seated once per round by construction, table
//! sizes never change, and a swap between a table of 3 and a table of 4 is only made when the
//! 3-player counts of every planned round stay within one of each other.
//!
//! - `weights`: the objective's tiers and the cost of a pair or a position.
//! - `layout`: where each table sits in a round's slot order, and a table's seat orders.
//! - `start`: the starting layouts and the best seat orders of fixed tables.
//! - `bound`: the lower bound that stops the search early.
//! - `effort`: the budget of moves that stops it otherwise (counted, so seeds replay anywhere).
//! - `portfolio` and `shipped`: one template per field for every seed, searched once or
//!   computed offline.
//! - `search`: the search state, its objective and its swap moves.
//! - `late_acceptance` and `tabu`: the two searches run over that state.

mod bound;
mod effort;
mod late_acceptance;
mod layout;
mod portfolio;
mod search;
mod shipped;
mod shipped_data;
mod start;
mod tabu;
mod weights;

#[cfg(test)]
mod tests;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use bound::lower_bound;
use effort::{Effort, PLAN_BUDGET};
use layout::Layout;
use search::Search;
use start::{random_layout, reseat};

use crate::pairing::construct;
use crate::pairing::plan_input::PlanInput;

pub use weights::{
    WEIGHT_KEEP_APART_FIRST_ROUND, WEIGHT_KEEP_APART_LATER, WEIGHT_POSITION_REPEAT, WEIGHT_REPEAT,
    WEIGHT_REPEAT_SQUARED,
};

pub(crate) struct Plan {
    /// Every planned round as tables of dense players, laid out as `TableSizes::in_order`.
    pub rounds: Vec<Vec<Vec<u32>>>,
}

/// Returns (iterations, patience without improvement, restarts).
fn iteration_budget(input: &PlanInput) -> (u64, u64, usize) {
    let size = (input.players * input.plan_rounds) as u64;
    if size <= 200 {
        (150_000, 150_000, 4)
    } else {
        (200_000, 20_000, 1)
    }
}

/// Tabu steps after each hill climb that ends with repeats, and the restarts, for fields
/// small enough that each step (every swap of a few players in conflict) stays cheap; large
/// fields reach the bound by construction. Restarts matter: a swap never moves a player between
/// tables of 3 and 4 when the evenness rule ties that to a later round, so each start fixes
/// much of who plays at tables of 3 when.
fn tabu_budget(input: &PlanInput) -> (u64, usize) {
    if (15..=200).contains(&input.players) {
        (4_000, 8)
    } else {
        (0, 0)
    }
}

pub(crate) fn plan_rounds(input: &PlanInput) -> Plan {
    let layout = Layout::new(input.sizes);
    let slots = match portfolio::plan(input, &layout) {
        Some(slots) => slots,
        None => search(input, &layout, &mut Effort::new(PLAN_BUDGET)).0,
    };
    let rounds = slots
        .iter()
        .map(|order| {
            layout
                .table_start
                .iter()
                .zip(&layout.table_size)
                .map(|(&start, &size)| order[start..start + size].to_vec())
                .collect()
        })
        .collect();
    Plan { rounds }
}

/// The seed's own search: starts (the construction first), hill climbs and tabu searches until
/// the lower bound or the budgets (`effort` is shared by every start); the best slot orders found
/// and their cost.
fn search(input: &PlanInput, layout: &Layout, effort: &mut Effort) -> (Vec<Vec<u32>>, u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(input.seed);
    let (iterations, patience, restarts) = iteration_budget(input);
    let (tabu_iterations, tabu_restarts) = tabu_budget(input);
    let repeat_free = |cost: u64| cost < WEIGHT_REPEAT_SQUARED;
    let lower_bound = lower_bound(input);
    // One start and its searches: the layout found and its cost.
    let mut attempt = |restart: usize, effort: &mut Effort| -> (Vec<Vec<u32>>, u64) {
        let constructed = if restart == 0 {
            construct::layout(input, &mut rng)
        } else {
            Vec::new()
        };
        let mut start = random_layout(input, constructed, &mut rng);
        reseat(input, layout, &mut start);
        let mut search = Search::new(input, layout, start);
        let mut found = search.run(iterations, patience, lower_bound, effort, &mut rng);
        if found.1 > lower_bound && tabu_iterations > 0 {
            let mut search = Search::new(input, layout, found.0.clone());
            let polished = search.tabu(tabu_iterations, lower_bound, effort, &mut rng);
            if polished.1 < found.1 {
                found = polished;
            }
        }
        reseat(input, layout, &mut found.0);
        found.1 = Search::new(input, layout, found.0.clone()).cost();
        found
    };
    // The first start always runs, so there is always a best plan.
    let mut best = attempt(0, effort);
    for restart in 1..restarts.max(tabu_restarts) {
        if best.1 <= lower_bound || effort.exhausted() {
            break;
        }
        // The extra restarts are only for plans that still repeat a meeting.
        if restart >= restarts && repeat_free(best.1) {
            break;
        }
        let found = attempt(restart, effort);
        if found.1 < best.1 {
            best = found;
        }
    }
    best
}
