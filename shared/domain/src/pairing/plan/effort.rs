//! The search's work budget, counted in moves rather than time, so that a stored seed gives the
//! same draw on every machine however loaded.
//!
//! A unit is one swap evaluated (a hill-climbing move, or a tabu candidate): the change of the
//! objective and the reseating of both tables, about 0.1–0.4 µs in a release build. Scanning
//! the plan for players in conflict costs a unit per 32 player-rounds. Without a cap, long
//! events whose search cannot reach the lower bound spent every restart on round 1: seconds
//! (40 players over 12 rounds: 3.8 s). Those fields ship plans searched offline without it
//! (`shipped`).

/// Units for one whole plan (every restart, and every search of the portfolio): 0.1–0.4 s in a
/// release build on 2 busy cores.
pub(super) const PLAN_BUDGET: u64 = 1_000_000;

/// Player-rounds checked for conflicts per unit.
const CONFLICT_CHECKS_PER_UNIT: u64 = 32;

pub(super) struct Effort {
    left: u64,
}

impl Effort {
    pub(super) fn new(units: u64) -> Effort {
        Effort { left: units }
    }

    /// No cap: the iteration budgets alone end the search (offline, for shipped plans).
    #[cfg(test)]
    pub(super) fn unlimited() -> Effort {
        Effort::new(u64::MAX)
    }

    pub(super) fn exhausted(&self) -> bool {
        self.left == 0
    }

    /// Spends `swaps` swap evaluations.
    pub(super) fn swaps(&mut self, swaps: u64) {
        self.left = self.left.saturating_sub(swaps);
    }

    /// Spends one scan of `players` over `planned` rounds for players in conflict (rounded
    /// down: a small plan's scans are cheap beside its moves).
    pub(super) fn conflict_scan(&mut self, players: usize, planned: usize) {
        let checks = (players * planned) as u64;
        self.left = self.left.saturating_sub(checks / CONFLICT_CHECKS_PER_UNIT);
    }
}
