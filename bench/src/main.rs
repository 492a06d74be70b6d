//! `catan-bench classic|swiss|ratings|read-model ...`: prints one JSON object with the figures
//! on stdout (and, for the longer runs, human lines on stderr).

#![allow(
    clippy::expect_used,
    clippy::cast_possible_truncation,
    reason = "a benchmark command, like a test: fields are the sizes asked for, and a failed step ends the run"
)]

use catan_bench::{
    chaos, classic, clock_watchers, console_page, ingest, projection, ratings, read_model, swiss,
    venue_publish,
};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    about = "Benchmarks of the pairing engine, the ratings and ranking's read model; prints one JSON object."
)]
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
    /// Draw whole events for every field size, number of rounds and seed of the ranges; one
    /// line per (N, R) on stderr, then a summary table. Exits 1 when a field misses its lower
    /// bound on some seed.
    ClassicSweep {
        #[arg(long)]
        from: usize,
        #[arg(long)]
        to: usize,
        /// Rounds: `R` or `A..B` (both included).
        #[arg(long, value_parser = parse_range)]
        rounds: (u64, u64),
        /// One seed (ignored when `--seeds` is given).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Seeds: `A..B` (both included).
        #[arg(long, value_parser = parse_range)]
        seeds: Option<(u64, u64)>,
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
    /// The playoff projection of a classic event's players (issue 35), computed from its
    /// standings after `--played` of `--rounds` qualifying rounds of random legal games.
    Projection {
        #[arg(long, default_value_t = 1000)]
        players: usize,
        #[arg(long, default_value_t = 3)]
        rounds: u32,
        #[arg(long, default_value_t = 2)]
        played: u32,
        #[arg(long, default_value_t = 21)]
        repeats: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Ranking's read model through the gateway of the whole suite, started here over a fresh
    /// database: event standings read against `GET /v1/events/{id}`, and freshness under writes.
    ReadModel(read_model::Options),
    /// The results service's ingestion through the gateway of the whole suite, started here over
    /// a fresh database: a round's sheets posted at once, against pgbench's inserts.
    Ingest(ingest::Options),
    /// The fault harness: results posted through the suite, run as processes over a private
    /// PostgreSQL, while PostgreSQL restarts and services are SIGKILLed; then every result,
    /// the feed, the standings, the webhooks and the outboxes checked (RELIABILITY.md).
    Chaos(chaos::Options),
    /// Screens and phones watching one round's clock through the gateway of the whole suite:
    /// how long each takes to see the director pause and resume it.
    ClockWatchers(clock_watchers::Options),
    /// The console's round control page against the API read it is built from (issue 30).
    ConsolePage(console_page::Options),
    /// Publishing an event a venue ran (issue 34): a federation and a venue, each a suite started
    /// here over a fresh database; the venue pulls the event and plays it to its placements, then
    /// publishes it, timed part by part, and the federation's read model is timed catching up.
    VenuePublish(venue_publish::Options),
    /// One service as a process of its own, configured from the environment (the chaos
    /// harness's).
    #[command(hide = true)]
    Serve(chaos::ServeArgs),
}

/// `N` or `A..B` (both included, A <= B).
fn parse_range(text: &str) -> Result<(u64, u64), String> {
    let number = |part: &str| {
        part.trim()
            .parse::<u64>()
            .map_err(|e| format!("{part:?}: {e}"))
    };
    let (low, high) = match text.split_once("..") {
        Some((low, high)) => (number(low)?, number(high.trim_start_matches('='))?),
        None => (number(text)?, number(text)?),
    };
    if low > high {
        return Err(format!("{text}: the range is empty"));
    }
    Ok((low, high))
}

fn main() {
    catan_kit::no_transparent_huge_pages();
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
            seeds,
        } => {
            let rounds = (rounds.0 as usize, rounds.1 as usize);
            let (report, ok) = classic::sweep(from, to, rounds, seeds.unwrap_or((seed, seed)));
            if !ok {
                println!("{report}");
                std::process::exit(1);
            }
            report
        }
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
        Command::Projection {
            players,
            rounds,
            played,
            repeats,
            seed,
        } => projection::run(players, rounds, played, repeats, seed),
        Command::ReadModel(options) => match read_model::main(&options) {
            Ok(report) => report,
            Err(e) => {
                eprintln!("catan-bench read-model: {e:#}");
                std::process::exit(1);
            }
        },
        Command::Ingest(options) => match ingest::main(&options) {
            Ok(report) => report,
            Err(e) => {
                eprintln!("catan-bench ingest: {e:#}");
                std::process::exit(1);
            }
        },
        Command::ClockWatchers(options) => match clock_watchers::main(&options) {
            Ok(report) => report,
            Err(e) => {
                eprintln!("catan-bench clock-watchers: {e:#}");
                std::process::exit(1);
            }
        },
        Command::ConsolePage(options) => match console_page::main(&options) {
            Ok(report) => report,
            Err(e) => {
                eprintln!("catan-bench console-page: {e:#}");
                std::process::exit(1);
            }
        },
        Command::VenuePublish(options) => match venue_publish::main(&options) {
            Ok(report) => report,
            Err(e) => {
                eprintln!("catan-bench venue-publish: {e:#}");
                std::process::exit(1);
            }
        },
        Command::Chaos(options) => std::process::exit(chaos::main(&options)),
        Command::Serve(args) => std::process::exit(catan_suite::serve::main(&args)),
    };
    println!("{report}");
}
