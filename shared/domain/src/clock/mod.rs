//! A round's clock (issue 32): the director's actions on it, what it reads at any instant, the
//! notices it gives (`round.started`, `round.ending`, `round.ended`) and which results sheets it
//! lets through.
//!
//! Pure: the clock never reads the time. Every action carries the instant it was taken and
//! every question names the instant it is about, as milliseconds since the Unix epoch
//! ([`UnixMillis`]); a service converts its `chrono::DateTime<Utc>` with `timestamp_millis()`.
//!
//! How the clock counts: the round is given its minutes at the start and only running time uses
//! them up. A pause stops every table's time; an extension of the round adds to every table; a
//! table's extra minutes add to that table alone, so a table's end is the round's end plus its
//! extra minutes. When the round's own time is up the tables given extra minutes play on
//! ([`RoundState::Overtime`]); the round is over when the last of them is, or when the director
//! ends it early.
//!
//! - `action`: the director's actions and why one is refused.
//! - `replay`: the log of actions, checked as it grows, and its readings at an instant.
//! - `notices`: when each webhook notice falls due.
//! - `sheets`: whether a results sheet's outcome fits the table's time.
//! - `defaults`: a game's minutes by the rules, and the `round.ending` lead.

mod action;
mod defaults;
mod notices;
mod replay;
mod sheets;

#[cfg(test)]
mod strategies;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_notices;
#[cfg(test)]
mod tests_properties;

pub use action::{ClockAction, ClockError, DirectorAction, InvalidLog};
pub use defaults::{
    CLASSIC_MINUTES_PER_GAME, DEFAULT_ENDING_NOTICE_MINUTES, default_minutes_per_game,
};
pub use notices::{Notice, NoticeKind};
pub use replay::{ClockReading, RoundClock, RoundReading, RoundState, TableReading};
pub use sheets::{MAX_REASON_CHARS, SheetTiming, TimingRefusal, admit_sheet};

/// An instant: milliseconds since the Unix epoch (UTC).
pub type UnixMillis = i64;

/// A table's number in its round, as pairing numbers them.
pub type TableNumber = u32;

/// Milliseconds in a minute.
pub const MILLIS_PER_MINUTE: i64 = 60_000;

/// The most minutes one action may give (a day): more is a typing mistake, not a round.
pub const MAX_MINUTES: i64 = 24 * 60;

/// The last instant the clock takes, the end of year 9999 (what `chrono` and the API's dates
/// can write); with the epoch as the first, no sum of instants and minutes can overflow.
pub const LATEST_INSTANT: UnixMillis = 253_402_300_799_999;
