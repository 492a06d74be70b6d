//! An event's days (issue 8): from its first day through its last, and where it stands on a
//! given day. Days are any ordered type (a calendar date, days since an epoch): the rules only
//! compare them.

use serde::{Deserialize, Serialize};

/// Where an event stands: by its days, and by its play, whichever is further.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum EventStatus {
    /// Before its first day, and no round drawn.
    Planned,
    /// From its first day or its first round drawn, until it is finished.
    Running,
    /// Its placements complete, or its last day past.
    Finished,
}

/// How far an event's play has come, as the services that run it tell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Play {
    /// A round has been drawn.
    pub drawn: bool,
    /// Its placements are complete (the final has a result, or the last round of an event
    /// without a playoff).
    pub placed: bool,
}

/// The days an event is held: `starts_on` through `ends_on`, both included, never ending
/// before it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventDays<D> {
    starts_on: D,
    ends_on: D,
}

/// An event's last day before its first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an event cannot end before it starts")]
pub struct EndsBeforeStart;

impl<D: Ord + Copy> EventDays<D> {
    /// The days from `starts_on` through `ends_on`; a one-day event when `ends_on` is not given.
    pub fn new(starts_on: D, ends_on: Option<D>) -> Result<Self, EndsBeforeStart> {
        let ends_on = ends_on.unwrap_or(starts_on);
        if ends_on < starts_on {
            return Err(EndsBeforeStart);
        }
        Ok(EventDays { starts_on, ends_on })
    }

    pub fn starts_on(&self) -> D {
        self.starts_on
    }

    pub fn ends_on(&self) -> D {
        self.ends_on
    }

    /// Where the event stands on `today` by its days alone: planned before its first day,
    /// running from its first day through its last, finished after.
    pub fn status_on(&self, today: D) -> EventStatus {
        if today < self.starts_on {
            EventStatus::Planned
        } else if today <= self.ends_on {
            EventStatus::Running
        } else {
            EventStatus::Finished
        }
    }

    /// Where the event stands on `today` with its `play`: play that runs ahead of the calendar
    /// wins (a first round drawn before the first day runs it, complete placements finish it
    /// before its last day); the calendar never takes an event back.
    pub fn status(&self, today: D, play: Play) -> EventStatus {
        match (self.status_on(today), play) {
            (_, Play { placed: true, .. }) | (EventStatus::Finished, _) => EventStatus::Finished,
            (_, Play { drawn: true, .. }) | (EventStatus::Running, _) => EventStatus::Running,
            (EventStatus::Planned, _) => EventStatus::Planned,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_planned_before_its_first_day_running_through_its_last_and_finished_after() {
        let days = EventDays::new(10, Some(12)).unwrap();
        let statuses: Vec<EventStatus> = (8..=14).map(|today| days.status_on(today)).collect();
        use EventStatus::{Finished, Planned, Running};
        assert_eq!(
            statuses,
            [
                Planned, Planned, Running, Running, Running, Finished, Finished
            ]
        );
    }

    #[test]
    fn a_one_day_event_runs_on_that_day_only() {
        let days = EventDays::new(10, None).unwrap();
        assert_eq!((days.starts_on(), days.ends_on()), (10, 10));
        assert_eq!(days.status_on(9), EventStatus::Planned);
        assert_eq!(days.status_on(10), EventStatus::Running);
        assert_eq!(days.status_on(11), EventStatus::Finished);
    }

    #[test]
    fn play_runs_an_event_from_its_first_draw_and_finishes_it_at_its_placements() {
        use EventStatus::{Finished, Planned, Running};
        let days = EventDays::new(10, Some(12)).unwrap();
        let drawn = Play {
            drawn: true,
            placed: false,
        };
        let placed = Play {
            drawn: true,
            placed: true,
        };
        // Before its first day: drawn early, it runs; placed early, it is finished.
        assert_eq!(days.status(8, Play::default()), Planned);
        assert_eq!(days.status(8, drawn), Running);
        assert_eq!(days.status(8, placed), Finished);
        // On its days: finished once placed, not before.
        assert_eq!(days.status(11, Play::default()), Running);
        assert_eq!(days.status(11, drawn), Running);
        assert_eq!(days.status(11, placed), Finished);
        // After its last day it is finished, played or not.
        for play in [Play::default(), drawn, placed] {
            assert_eq!(days.status(13, play), Finished);
        }
    }

    #[test]
    fn an_event_cannot_end_before_it_starts() {
        assert_eq!(EventDays::new(10, Some(9)), Err(EndsBeforeStart));
        assert!(EventDays::new(10, Some(10)).is_ok());
    }

    #[test]
    fn statuses_are_written_as_the_api_names_them() {
        let names = serde_json::to_value([
            EventStatus::Planned,
            EventStatus::Running,
            EventStatus::Finished,
        ])
        .unwrap();
        assert_eq!(names, serde_json::json!(["planned", "running", "finished"]));
    }
}
