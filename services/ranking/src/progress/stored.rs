//! The event views this process stored, and how far the copies they were computed from reached:
//! a read that waits for writes to an event is answered as soon as this process stored views that
//! include them, without reading the model's progress from the database again.

use super::Need;
use crate::pending::ReadThrough;
use catan_api::Position;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use uuid::Uuid;

#[derive(Debug, Default)]
pub(super) struct StoredViews(Mutex<HashMap<Uuid, ReadThrough>>);

impl StoredViews {
    /// The views of `event` were stored, computed from every copied change up to `read`.
    pub(super) fn record(&self, event: Uuid, read: ReadThrough) {
        let mut stored = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = stored.entry(event).or_default();
        kept.registration = kept.registration.max(read.registration);
        kept.results = kept.results.max(read.results);
    }

    /// Whether views this process stored include the writes of `position`: only an event's, and
    /// only producers' writes (ranking's own are a season's, which its table serves).
    pub(super) fn include(&self, need: &Need, position: &Position) -> bool {
        let Need::Event(event) = need else {
            return false;
        };
        if position.ranking > 0 {
            return false;
        }
        let reached = |through: i64, wanted: u64| u64::try_from(through).is_ok_and(|t| t >= wanted);
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(event)
            .is_some_and(|read| {
                reached(read.registration, position.registration)
                    && reached(read.results, position.results)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(registration: i64, results: i64) -> ReadThrough {
        ReadThrough {
            registration,
            results,
            ranking: 0,
        }
    }

    fn position(registration: u64, results: u64, ranking: u64) -> Position {
        Position {
            registration,
            results,
            ranking,
        }
    }

    #[test]
    fn an_event_includes_the_writes_its_stored_views_read() {
        let (event, other) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let stored = StoredViews::default();
        assert!(!stored.include(&Need::Event(event), &position(0, 10, 0)));
        stored.record(event, read(40, 90));
        assert!(stored.include(&Need::Event(event), &position(40, 90, 0)));
        assert!(!stored.include(&Need::Event(event), &position(0, 91, 0)));
        assert!(!stored.include(&Need::Event(event), &position(41, 0, 0)));
        // Another event, a season, or a write of ranking's own: the database says.
        assert!(!stored.include(&Need::Event(other), &position(0, 10, 0)));
        assert!(!stored.include(&Need::Copies, &position(0, 10, 0)));
        assert!(!stored.include(&Need::Event(event), &position(0, 10, 3)));
    }

    #[test]
    fn views_stored_from_older_copies_never_take_back_what_was_included() {
        let event = Uuid::from_u128(1);
        let stored = StoredViews::default();
        stored.record(event, read(40, 90));
        stored.record(event, read(30, 95));
        assert!(stored.include(&Need::Event(event), &position(40, 95, 0)));
    }
}
