//! A round's clock as its log of actions, checked as it grows, and what it reads at an instant.
//!
//! A reading at an instant replays only the actions taken by then, so the log answers for any
//! instant of the round's history, past or present.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::action::{ClockAction, ClockError, DirectorAction, InvalidLog, check_input};
use super::{MILLIS_PER_MINUTE, TableNumber, UnixMillis};

/// Where a round stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum RoundState {
    /// The director has not started it.
    NotStarted,
    /// The round's own time is counting down.
    Running,
    /// The director paused it: no table's time counts.
    Paused,
    /// The round's own time is up; only tables given extra minutes still play.
    Overtime,
    /// Every table's time is up, or the director ended the round.
    Ended,
}

/// The round's own time at an instant (a table without extra minutes reads the same).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundReading {
    pub state: RoundState,
    /// Milliseconds left, frozen while paused and 0 once up; none before the start, which
    /// brings the round's minutes.
    pub time_left_ms: Option<i64>,
    /// When the time runs out if nobody touches the clock, or when it ran out. None before the
    /// start, and while paused before it ran out: a paused clock has no end until it resumes.
    pub ends_at: Option<UnixMillis>,
}

/// One table's time at an instant: the round's plus the table's extra minutes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableReading {
    pub table: TableNumber,
    /// The extra minutes the director gave this table alone.
    pub extra_minutes: i64,
    /// As [`RoundReading::time_left_ms`], for this table.
    pub time_left_ms: Option<i64>,
    /// As [`RoundReading::ends_at`], for this table; never before the round's end.
    pub ends_at: Option<UnixMillis>,
    /// The table's time has run out (or the director ended the round): a game still going is
    /// stopped at the time limit.
    pub time_up: bool,
}

/// Everything the clock reads at an instant, for `GET .../rounds/{n}/clock`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockReading {
    /// The instant read (the server's time), so that a client can correct its own clock.
    pub at: UnixMillis,
    pub round: RoundReading,
    pub tables: Vec<TableReading>,
}

/// A round's clock: its log of actions, each one allowed by the clock as the ones before it
/// left it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundClock {
    actions: Vec<ClockAction>,
    /// The whole log replayed, to check the next action against.
    latest: Replay,
}

impl RoundClock {
    /// A round whose clock has not started.
    pub fn new() -> Self {
        RoundClock::default()
    }

    /// Rebuilds a clock from its stored log, checking every action again.
    pub fn from_log(actions: &[ClockAction]) -> Result<Self, InvalidLog> {
        let mut clock = RoundClock::new();
        for (index, &action) in actions.iter().enumerate() {
            clock
                .push(action)
                .map_err(|error| InvalidLog { index, error })?;
        }
        Ok(clock)
    }

    /// Adds an action to the log if the clock allows it at its instant; a refused action
    /// changes nothing.
    pub fn push(&mut self, action: ClockAction) -> Result<(), ClockError> {
        check_input(&action, self.last_action_at())?;
        self.latest.check(&action)?;
        self.latest.record(&action);
        self.actions.push(action);
        Ok(())
    }

    /// The log, oldest first: what a service stores.
    pub fn actions(&self) -> &[ClockAction] {
        &self.actions
    }

    /// The instant of the last action: the next one may not come before it.
    pub fn last_action_at(&self) -> Option<UnixMillis> {
        self.actions.last().map(|action| action.at)
    }

    /// The round's own time at `at`.
    pub fn round_at(&self, at: UnixMillis) -> RoundReading {
        self.replay_until(at).round_at(at)
    }

    /// Table `table`'s time at `at`.
    pub fn table_at(&self, table: TableNumber, at: UnixMillis) -> TableReading {
        self.replay_until(at).table_at(table, at)
    }

    /// The round and the given tables at `at`.
    pub fn reading_at(&self, at: UnixMillis, tables: &[TableNumber]) -> ClockReading {
        let replay = self.replay_until(at);
        ClockReading {
            at,
            round: replay.round_at(at),
            tables: tables
                .iter()
                .map(|&table| replay.table_at(table, at))
                .collect(),
        }
    }

    /// The clock with only the actions taken by `at`.
    pub(super) fn as_of(&self, at: UnixMillis) -> RoundClock {
        let taken = self.actions.partition_point(|action| action.at <= at);
        RoundClock {
            actions: self.actions[..taken].to_vec(),
            latest: self.replay_until(at),
        }
    }

    /// The clock as the actions taken by `at` left it.
    pub(super) fn replay_until(&self, at: UnixMillis) -> Replay {
        if self.last_action_at().is_none_or(|last| last <= at) {
            return self.latest.clone();
        }
        let mut replay = Replay::default();
        for action in self.actions.iter().take_while(|action| action.at <= at) {
            replay.record(action);
        }
        replay
    }
}

/// The clock's state after some actions: how much time the round and each table were given and
/// when it ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Replay {
    pub(super) started_at: Option<UnixMillis>,
    /// The round's own time: its minutes and every extension of the round.
    pub(super) round_ms: i64,
    /// Each table's extra time, beyond the round's.
    extra_ms: BTreeMap<TableNumber, i64>,
    /// The stretches the clock ran and that are over, oldest first: (from, to).
    stretches: Vec<(UnixMillis, UnixMillis)>,
    pub(super) running_since: Option<UnixMillis>,
    pub(super) ended_early_at: Option<UnixMillis>,
}

impl Replay {
    /// The table's own time: the round's and its extra.
    fn table_ms(&self, table: TableNumber) -> i64 {
        self.round_ms + self.extra_ms.get(&table).copied().unwrap_or(0)
    }

    /// The time after which no table plays: the round's and the most extra any table has.
    pub(super) fn play_ms(&self) -> i64 {
        self.round_ms + self.extra_ms.values().copied().max().unwrap_or(0)
    }

    /// Running time used by `at` (at or after every recorded action).
    fn used_ms(&self, at: UnixMillis) -> i64 {
        let over: i64 = self.stretches.iter().map(|(from, to)| to - from).sum();
        let current = self.running_since.map_or(0, |since| (at - since).max(0));
        over + current
    }

    /// The instant the used time reaches `budget`: past, or ahead while running; none while
    /// stopped short of it.
    pub(super) fn reaches(&self, budget: i64) -> Option<UnixMillis> {
        let mut used = 0;
        for &(from, to) in &self.stretches {
            if used + (to - from) >= budget {
                return Some(from + (budget - used));
            }
            used += to - from;
        }
        self.running_since.map(|since| since + (budget - used))
    }

    /// When `budget` runs out, or ran out, an early end cutting it short.
    pub(super) fn end_of(&self, budget: i64) -> Option<UnixMillis> {
        self.started_at?;
        match self.ended_early_at {
            Some(ended) => Some(self.reaches(budget).map_or(ended, |end| end.min(ended))),
            None => self.reaches(budget),
        }
    }

    /// What is left of `budget` at `at`; none before the start.
    fn left_ms(&self, budget: i64, at: UnixMillis) -> Option<i64> {
        self.started_at?;
        if self.ended_early_at.is_some() {
            return Some(0);
        }
        Some((budget - self.used_ms(at)).max(0))
    }

    pub(super) fn state_at(&self, at: UnixMillis) -> RoundState {
        if self.started_at.is_none() {
            return RoundState::NotStarted;
        }
        let used = self.used_ms(at);
        if self.ended_early_at.is_some() || used >= self.play_ms() {
            RoundState::Ended
        } else if self.running_since.is_none() {
            RoundState::Paused
        } else if used >= self.round_ms {
            RoundState::Overtime
        } else {
            RoundState::Running
        }
    }

    fn round_at(&self, at: UnixMillis) -> RoundReading {
        RoundReading {
            state: self.state_at(at),
            time_left_ms: self.left_ms(self.round_ms, at),
            ends_at: self.end_of(self.round_ms),
        }
    }

    fn table_at(&self, table: TableNumber, at: UnixMillis) -> TableReading {
        let budget = self.table_ms(table);
        let time_left_ms = self.left_ms(budget, at);
        TableReading {
            table,
            extra_minutes: self.extra_ms.get(&table).copied().unwrap_or(0) / MILLIS_PER_MINUTE,
            time_left_ms,
            ends_at: self.end_of(budget),
            time_up: time_left_ms == Some(0),
        }
    }

    /// Whether the clock allows `action` at its instant.
    pub(super) fn check(&self, action: &ClockAction) -> Result<(), ClockError> {
        let state = self.state_at(action.at);
        match (action.action, state) {
            (DirectorAction::Start { .. }, RoundState::NotStarted) => Ok(()),
            (DirectorAction::Start { .. }, _) => Err(ClockError::AlreadyStarted),
            (_, RoundState::NotStarted) => Err(ClockError::NotStarted),
            (_, RoundState::Ended) => Err(ClockError::Ended),
            (DirectorAction::Pause, RoundState::Paused) => Err(ClockError::NotRunning),
            (DirectorAction::Resume, RoundState::Running | RoundState::Overtime) => {
                Err(ClockError::NotPaused)
            }
            // Once the round's own time is up, games without extra minutes have stopped at the
            // limit; adding to the round would restart them.
            (DirectorAction::ExtendRound { .. }, _) if self.used_ms(action.at) >= self.round_ms => {
                Err(ClockError::RoundTimeUp)
            }
            (DirectorAction::ExtendTable { table, .. }, _)
                if self.used_ms(action.at) >= self.table_ms(table) =>
            {
                Err(ClockError::TableTimeUp { table })
            }
            _ => Ok(()),
        }
    }

    /// Applies an action the clock allows (see [`Replay::check`]).
    pub(super) fn record(&mut self, action: &ClockAction) {
        let at = action.at;
        match action.action {
            DirectorAction::Start { minutes } => {
                self.started_at = Some(at);
                self.round_ms = minutes * MILLIS_PER_MINUTE;
                self.running_since = Some(at);
            }
            DirectorAction::Pause => self.stop(at),
            DirectorAction::Resume => self.running_since = Some(at),
            DirectorAction::ExtendRound { minutes } => self.round_ms += minutes * MILLIS_PER_MINUTE,
            DirectorAction::ExtendTable { table, minutes } => {
                *self.extra_ms.entry(table).or_insert(0) += minutes * MILLIS_PER_MINUTE;
            }
            DirectorAction::EndEarly => {
                self.stop(at);
                self.ended_early_at = Some(at);
            }
        }
    }

    fn stop(&mut self, at: UnixMillis) {
        if let Some(since) = self.running_since.take() {
            self.stretches.push((since, at));
        }
    }
}
