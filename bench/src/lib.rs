//! Benchmarks of the pairing engine, the ratings and ranking's read model ([`read_model`]).
//!
//! The pairing engine is measured against the simplest alternative, a random
//! draw retried until it repeats no meeting (at most 1,000 tries), measured in the same run.

#![allow(
    clippy::expect_used,
    clippy::cast_possible_truncation,
    reason = "a benchmark command, like a test: fields are the sizes asked for, and a failed step ends the run"
)]

pub mod baseline;
pub mod chaos;
pub mod classic;
pub mod clock_watchers;
pub mod console_page;
pub mod harness;
pub mod ingest;
pub mod projection;
pub mod ratings;
pub mod read_model;
pub mod swiss;
pub mod venue_publish;
