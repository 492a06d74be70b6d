//! `catan-bench venue-publish`: publishing an event a venue ran to the federation (issue 34), and
//! the federation's read model catching up on it.
//!
//! Two suites run in this process, each over a fresh database of its own (dropped at the end),
//! with the rate limits lifted: the federation and the venue. Not timed: the federation enters
//! `--players` players of a region in a classic event of `--rounds` qualifying rounds, in the
//! region's season; the venue pulls it (`catan_suite::venue::pull::pull`) and plays it to its
//! placements (each table's sheet posted, one table in `--correct-every` of each round
//! corrected); the venue's suite stops, and is then started and stopped once alone (what the
//! export spends besides reading). Timed: the publish, step by step with the library's functions
//! (see [`timed`]); then, from its end, the federation's read model catching up (see
//! [`catch_up`]); then the federation's standings, placements and season table are compared
//! with the venue's (the run fails when they differ); then each part's dry run again, which
//! must add nothing (what checking a part costs without writing); then a second publish, which
//! must add nothing.

mod catch_up;
mod setup;
mod timed;

use crate::harness::{self, Bench, load_average, round1};
use anyhow::bail;
use catan_suite::venue::publish::read_bundle;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use setup::{FederationEvent, VenueSide};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Options {
    /// Players entered in the federation's event.
    #[arg(long, default_value_t = 1000)]
    pub players: usize,
    /// Qualifying rounds the venue plays.
    #[arg(long, default_value_t = 5)]
    pub rounds: u32,
    /// Leave the playoff unplayed (then the placements and the season table stay empty).
    #[arg(long)]
    pub no_playoff: bool,
    /// One table of each round in this many is corrected by the venue's director.
    #[arg(long, default_value_t = 100)]
    pub correct_every: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub server: harness::DatabaseServer,
}

/// Runs the benchmark on a runtime of its own; the one-line JSON summary.
pub fn main(options: &Options) -> anyhow::Result<Value> {
    harness::block_on(run(options))
}

async fn run(options: &Options) -> anyhow::Result<Value> {
    let load_before = load_average();
    let server_url = &options.server.database_url;
    let federation = Bench::start(server_url).await?;
    let outcome = at_federation(&federation, options).await;
    federation.shutdown().await;
    let mut report = outcome?;
    report["load_average"] = json!({ "before": load_before, "after": load_average() });
    Ok(report)
}

/// Enters the event at the federation and pulls it into a venue of its own.
async fn at_federation(federation: &Bench, options: &Options) -> anyhow::Result<Value> {
    let seeding = Instant::now();
    let event = setup::enter_at_federation(federation, options.players, options.rounds).await?;
    let entered_s = seeding.elapsed().as_secs_f64();
    let pulling = Instant::now();
    let (venue, pulled) =
        VenueSide::pull(&options.server.database_url, federation, event.event_id).await?;
    let pull_s = pulling.elapsed().as_secs_f64();
    eprintln!(
        "venue-publish: {} players entered at the federation in {entered_s:.1} s, pulled in {pull_s:.1} s",
        pulled.copy.entries.len()
    );
    let outcome = at_venue(federation, &venue, &event, options).await;
    venue.remove().await;
    let mut report = outcome?;
    report["setup"]["federation_entered_s"] = json!(round1(entered_s));
    report["setup"]["pull_s"] = json!(round1(pull_s));
    Ok(report)
}

/// Plays the event at the venue, then publishes it and measures the federation.
async fn at_venue(
    federation: &Bench,
    venue: &VenueSide,
    event: &FederationEvent,
    options: &Options,
) -> anyhow::Result<Value> {
    let (mut setup, venue_shows) = play_at_venue(venue, event, options).await?;
    setup["venue_suite_alone"] = timed::suite_start_and_stop(venue).await?;
    let published = timed::publish_in_steps(event.event_id, venue).await?;
    let caught_up = catch_up::measure(
        &federation.public,
        published.position,
        published.ended,
        event.event_id,
        event.season_id,
        &venue_shows,
    )
    .await?;
    federation.settled().await?;
    let federation_shows =
        catch_up::shown(&federation.public, event.event_id, event.season_id).await?;
    for part in ["standings", "placements", "season"] {
        if federation_shows[part] != venue_shows[part] {
            bail!("the federation's {part} differ from the venue's");
        }
    }
    let dry_runs_after = timed::dry_runs_after(&federation.suite.url(), &published.signed).await?;
    let again = timed::publish_again(event.event_id, venue).await?;
    Ok(json!({
        "players": options.players,
        "rounds": options.rounds,
        "setup": setup,
        "publish": published.report,
        "catch_up": caught_up,
        "federation_equals_venue": true,
        "dry_runs_after_publish": dry_runs_after,
        "publish_again": again,
    }))
}

/// The venue's suite served over its database: the event played, what it shows once its read
/// model has it all, and the suite stopped (its database kept for the publish).
async fn play_at_venue(
    venue: &VenueSide,
    event: &FederationEvent,
    options: &Options,
) -> anyhow::Result<(Value, Value)> {
    let served = venue.serve().await?;
    let outcome = async {
        let admin = &served.admin;
        let season = admin
            .create_season(&setup::season_body(event.region_id)?)
            .await?;
        admin.join_season(season.id, event.event_id).await?;
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        let playing = Instant::now();
        let played = setup::play(
            &served,
            event.event_id,
            options.rounds,
            !options.no_playoff,
            options.correct_every,
            &mut rng,
        )
        .await?;
        let play_s = playing.elapsed().as_secs_f64();
        served.settled().await?;
        let shows = catch_up::shown(&served.public, event.event_id, season.id).await?;
        // What the export spends reading, without starting and stopping the venue's suite.
        let reading = Instant::now();
        read_bundle(admin, event.event_id).await?;
        let read_bundle_ms = round1(reading.elapsed().as_secs_f64() * 1000.0);
        // The venue's season is its own: only its rows are compared with the federation's.
        let setup = json!({
            "tables": played.tables,
            "playoff_rounds": played.playoff_rounds,
            "corrections": played.corrections,
            "results_counted": shows["standings"][1],
            "placements": shows["placements"][1].as_array().map_or(0, Vec::len),
            "placements_complete": shows["placements"][0],
            "season_rows": shows["season"].as_array().map_or(0, Vec::len),
            "read_bundle_from_running_suite_ms": read_bundle_ms,
            "play_s": round1(play_s),
        });
        eprintln!("venue-publish: venue played: {setup}");
        anyhow::Ok((setup, shows))
    }
    .await;
    served.stop_keeping_database().await;
    outcome
}
