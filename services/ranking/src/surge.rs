//! When writes pour in (every table of a large round posting within a second), the read model
//! holds back the work that grows with an event rather than with what changed: computing its
//! views again, and replaying the ratings. It keeps reading the feeds, and computes once the surge
//! has passed, or once it has held back for [`AT_MOST`], whichever comes first. On two cores, each
//! computation in the middle of a surge takes the cores from the writes it follows (see
//! BENCHMARKS.md, results ingestion); one computation after it takes in all of them at once.

use std::time::{Duration, Instant};

/// Changes a second from which writes are a surge: well above a busy federation's steady flow
/// (the freshness benchmark's 200 a second), well below a round's tables posting at once.
pub const CHANGES_A_SECOND: f64 = 500.0;

/// Fewer changes than this in one read are no surge, however short the time they came in.
pub const FEWEST_CHANGES: usize = 100;

/// The longest the views wait behind a surge that goes on.
pub const AT_MOST: Duration = Duration::from_secs(1);

/// What the follower has seen of the flow of changes, and whether it is holding back.
#[derive(Debug, Default)]
pub struct Surge {
    last_read: Option<Instant>,
    /// Since when the follower holds back; `None` while it computes at each read.
    holding_since: Option<Instant>,
}

impl Surge {
    /// After a read that took in `changes` at `now`: whether to compute the views now (rather
    /// than hold back while writes pour in).
    pub fn compute_now(&mut self, changes: usize, now: Instant) -> bool {
        let since_last = self.last_read.map(|at| now.saturating_duration_since(at));
        self.last_read = Some(now);
        let surging = changes >= FEWEST_CHANGES
            && since_last
                .is_some_and(|since| changes as f64 >= CHANGES_A_SECOND * since.as_secs_f64());
        let hold = surging
            && now.saturating_duration_since(*self.holding_since.get_or_insert(now)) < AT_MOST;
        if !hold {
            self.holding_since = None;
        }
        !hold
    }

    /// Whether the follower is holding back its computations now (the ratings' replay holds
    /// back with it).
    pub fn holding(&self) -> bool {
        self.holding_since.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_steady_flow_is_computed_at_every_read() {
        let mut surge = Surge::default();
        let start = Instant::now();
        // 200 changes a second, read every 300 ms.
        for n in 0..20 {
            assert!(surge.compute_now(60, start + ms(300 * n)));
            assert!(!surge.holding());
        }
    }

    #[test]
    fn the_first_read_and_small_reads_are_computed() {
        let mut surge = Surge::default();
        let start = Instant::now();
        assert!(
            surge.compute_now(5_000, start),
            "nothing to compare with yet"
        );
        assert!(
            surge.compute_now(FEWEST_CHANGES - 1, start + ms(1)),
            "a handful in a millisecond is no surge"
        );
    }

    #[test]
    fn a_surge_holds_back_until_it_has_passed() {
        let mut surge = Surge::default();
        let start = Instant::now();
        assert!(surge.compute_now(10, start));
        // A round's 1,000 tables in 0.6 s, read every 150 ms.
        for n in 1..=4 {
            assert!(!surge.compute_now(250, start + ms(150 * n)), "read {n}");
            assert!(surge.holding());
        }
        // The surge has passed: nothing new, or a trickle.
        assert!(surge.compute_now(0, start + ms(750)));
        assert!(!surge.holding());
    }

    #[test]
    fn a_surge_that_goes_on_is_computed_at_least_every_second() {
        let mut surge = Surge::default();
        let start = Instant::now();
        assert!(surge.compute_now(0, start));
        let computed: Vec<u64> = (1..=40)
            .filter(|n| surge.compute_now(200, start + ms(100 * n)))
            .map(|n| 100 * n)
            .collect();
        assert_eq!(computed, [1100, 2200, 3300]);
    }
}
