//! `catan-bench classic|swiss ...`: prints one JSON object with the engine's figures.

#![allow(
    clippy::expect_used,
    clippy::cast_possible_truncation,
    reason = "a benchmark command, like a test: fields are the sizes asked for, and a failed step ends the run"
)]

use catan_bench::{classic, ratings, swiss};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(about = "Benchmarks of the pairing engine and the ratings; prints one JSON object.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Draw every qualifying round of a classic event (players numbered from 0).
    Classic {
        #[arg(long)]
        players: usize,
        #[arg(long)]
        rounds: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print the whole schedule: rounds of tables of players in seat order.
        #[arg(long)]
        schedule: bool,
        /// Also draw with the random baseline and print its figures under `baseline`.
        #[arg(long)]
        baseline: bool,
    },
    /// Draw whole events for every field size in a range; one line per size on stderr.
    ClassicSweep {
        #[arg(long)]
        from: usize,
        #[arg(long)]
        to: usize,
        #[arg(long)]
        rounds: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Simulate a partner event's Swiss rounds with random results (teams numbered from 0).
    Swiss {
        #[arg(long)]
        teams: usize,
        #[arg(long)]
        rounds: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also pair with the random baseline and print its figures under `baseline`.
        #[arg(long)]
        baseline: bool,
    },
    /// Replay ratings over random 3- and 4-player games of a pool of players, one core.
    Ratings {
        #[arg(long, default_value_t = 1_000_000)]
        games: usize,
        #[arg(long, default_value_t = 5_000)]
        players: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

fn main() {
    let report = match Cli::parse().command {
        Command::Classic {
            players,
            rounds,
            seed,
            schedule,
            baseline,
        } => classic::run(players, rounds, seed, schedule, baseline),
        Command::ClassicSweep {
            from,
            to,
            rounds,
            seed,
        } => classic::sweep(from, to, rounds, seed),
        Command::Swiss {
            teams,
            rounds,
            seed,
            baseline,
        } => swiss::run(teams, rounds, seed, baseline),
        Command::Ratings {
            games,
            players,
            seed,
        } => ratings::run(games, players, seed),
    };
    println!("{report}");
}
