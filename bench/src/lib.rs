//! Benchmarks of the pairing engine: the engine against the simplest alternative, a random
//! draw retried until it repeats no meeting (at most 1,000 tries), measured in the same run.

pub mod baseline;
pub mod classic;
pub mod swiss;
