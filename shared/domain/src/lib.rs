//! The tournament rules as pure functions and types: no I/O, no database, no wall clock.
//!
//! Services parse requests, call these functions and persist what they return.

/// A player's federation-wide identity.
pub type PlayerId = uuid::Uuid;

pub mod board;
pub mod calendar;
pub mod clock;
pub mod correction;
pub mod duplicates;
pub mod explain;
pub mod icalendar;
pub mod identity;
pub mod names;
pub mod pairing;
pub mod partner;
pub mod playoffs;
pub mod projection;
pub mod ratings;
pub mod reinstate;
pub mod reporting;
pub mod results;
pub mod season;
pub mod seating;
pub mod standings;
pub mod venue_checkout;
pub mod venue_copy;
pub mod venue_results;
pub mod venue_rounds;
