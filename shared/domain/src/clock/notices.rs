//! When the clock's webhook notices fall due: `round.started`, `round.ending` (some minutes
//! before the round's end) and `round.ended`.
//!
//! A notice is known by what it announces ([`Notice::key`]): the start, an end instant, the
//! end of play. Pauses and extensions move the round's end, so `round.ending` can fall due more
//! than once, once per end instant the round has had within the lead of it; an end that moved
//! before its notice fell due never gets one. A notice once due stays due whatever the director
//! does later, so a service that records the keys it sent sends each notice once.

use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};

use super::action::DirectorAction;
use super::replay::{Replay, RoundClock, RoundState};
use super::{MILLIS_PER_MINUTE, UnixMillis};

/// Which webhook a notice is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum NoticeKind {
    /// The director started the round.
    Started,
    /// The round's own time will be up at `announces`.
    Ending,
    /// Play stopped at `announces`: every table's time is up, or the director ended the round.
    Ended,
}

impl NoticeKind {
    /// The webhook event's name.
    pub fn event(self) -> &'static str {
        match self {
            NoticeKind::Started => "round.started",
            NoticeKind::Ending => "round.ending",
            NoticeKind::Ended => "round.ended",
        }
    }
}

/// A webhook notice and when it falls due.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Notice {
    pub kind: NoticeKind,
    /// When to send it.
    pub due_at: UnixMillis,
    /// The instant it is about: the start, the end it announces, or the end of play.
    pub announces: UnixMillis,
}

impl Notice {
    /// What tells this notice from every other of the round: a service sends each key once.
    pub fn key(&self) -> (NoticeKind, UnixMillis) {
        (self.kind, self.announces)
    }
}

impl RoundClock {
    /// Every notice of the log as it stands, in the order they fall due: those due already and
    /// those that will be if the director does nothing more. `ending_lead_minutes` before the
    /// round's end is when `round.ending` is due (at once when less is left); at least one, so
    /// that the notice always comes before the end it announces.
    pub fn notices(&self, ending_lead_minutes: NonZeroU32) -> Vec<Notice> {
        let lead_ms = i64::from(ending_lead_minutes.get()) * MILLIS_PER_MINUTE;
        let actions = self.actions();
        let mut replay = Replay::default();
        let mut notices: Vec<Notice> = Vec::new();
        for (index, action) in actions.iter().enumerate() {
            replay.record(action);
            if let DirectorAction::Start { .. } = action.action {
                push_new(&mut notices, NoticeKind::Started, action.at, action.at);
            }
            if let DirectorAction::EndEarly = action.action {
                push_new(&mut notices, NoticeKind::Ended, action.at, action.at);
            }
            let next_at = actions.get(index + 1).map(|next| next.at);
            if next_at == Some(action.at) {
                // The clock reads as the last action of an instant left it.
                continue;
            }
            // Until the next action the clock runs untouched, so what it will announce is known.
            let before_next = |due: UnixMillis| next_at.is_none_or(|next| due < next);
            if replay.state_at(action.at) == RoundState::Running
                && let Some(end) = replay.reaches(replay.round_ms)
            {
                let due = (end - lead_ms).max(action.at);
                if before_next(due) {
                    push_new(&mut notices, NoticeKind::Ending, due, end);
                }
            }
            // Play ends by the clock only while it runs; an early end was noticed above.
            if replay.ended_early_at.is_none()
                && replay.running_since.is_some()
                && let Some(end_of_play) = replay.reaches(replay.play_ms())
                && before_next(end_of_play)
            {
                push_new(&mut notices, NoticeKind::Ended, end_of_play, end_of_play);
            }
        }
        notices.sort_by_key(|notice| (notice.due_at, notice.kind));
        notices
    }

    /// The notices due by `now`, from the actions taken by then, in order.
    pub fn notices_due(&self, ending_lead_minutes: NonZeroU32, now: UnixMillis) -> Vec<Notice> {
        let mut due = self.as_of(now).notices(ending_lead_minutes);
        due.retain(|notice| notice.due_at <= now);
        due
    }
}

/// Adds a notice unless one with its key is there already, which fell due first.
fn push_new(notices: &mut Vec<Notice>, kind: NoticeKind, due_at: UnixMillis, announces: i64) {
    let notice = Notice {
        kind,
        due_at,
        announces,
    };
    if !notices.iter().any(|known| known.key() == notice.key()) {
        notices.push(notice);
    }
}
