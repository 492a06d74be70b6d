//! `catan-bench read-model`: ranking's read model measured through the gateway of the whole suite,
//! started in this process over a fresh database of its own (dropped at the end), as the
//! end-to-end harness starts it.
//!
//! - Reads: an event's standings (a classic event of `--players` after `--rounds` rounds, every
//!   table posted) against `GET /v1/events/{id}` through the same gateway (a one-row read), each
//!   read by `--connections` keep-alive clients for `--seconds`, alternately, `--repeats` times;
//!   the figure is the median ratio of their throughputs.
//! - Freshness: results posted at `--rate` a second for `--seconds` to round 1 of events of
//!   `--fresh-players`, each event's standings polled meanwhile; for each result, the time from
//!   the POST's answer until the standings' `as_of` reaches its `recorded_at` (results of the
//!   first `--poll-events` events, whose standings are polled every `--poll-ms`).
//! - With `--season`: a season's table (`GET /v1/seasons/{id}/standings`, its first page) against
//!   the same reference (see [`season`]).
//! - With `--diagnose`: also the standings read gzipped (by a client that sends
//!   `Accept-Encoding: gzip` and unzips every answer, as browsers do), with `If-None-Match` (304)
//!   and straight from ranking, and the season's first page gzipped, its whole table and its rows
//!   without per-event results.
//!
//! The per-key rate limit is lifted: at 200 results a second a federation's results come from
//! many table apps, each with its own key, not from the one key the bench posts with.

mod freshness;
pub mod load;
mod season;

use crate::harness::{self, Bench, median, round3};
use anyhow::{Context, bail};
use catan_api::CreateEvent;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::time::Instant;
use uuid::Uuid;

#[derive(clap::Args)]
pub struct Options {
    /// Players of the event whose standings are read.
    #[arg(long, default_value_t = 1000)]
    pub players: usize,
    /// Qualifying rounds of that event, each drawn and every table posted.
    #[arg(long, default_value_t = 3)]
    pub rounds: u32,
    /// Keep-alive clients reading at once.
    #[arg(long, default_value_t = 8)]
    pub connections: usize,
    /// Seconds of each read run, and of posting results for freshness.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
    /// Read runs of each kind, reference and standings alternately.
    #[arg(long, default_value_t = 2)]
    pub repeats: usize,
    /// Results posted a second during the freshness run.
    #[arg(long, default_value_t = 200)]
    pub rate: u32,
    /// Players of each event whose first round's tables the freshness run posts (a quarter as
    /// many tables); as many events as `--rate` × `--seconds` results need.
    #[arg(long, default_value_t = 1000)]
    pub fresh_players: usize,
    /// Milliseconds between two polls of an event's standings during the freshness run.
    #[arg(long, default_value_t = 20)]
    pub poll_ms: u64,
    /// Events whose standings are polled during the freshness run (the first ones drawn): only
    /// their results are timed, the others' are posted all the same.
    #[arg(long, default_value_t = 8)]
    pub poll_events: usize,
    /// One post in this many is followed by a read of its event's standings that carries the
    /// post's `Catan-Position` (0: none).
    #[arg(long, default_value_t = 10)]
    pub token_reads_every: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Skip the standings read ratio.
    #[arg(long)]
    pub no_reads: bool,
    /// Also read the event's standings with `If-None-Match` (answered 304) and straight from
    /// ranking (without the gateway), against the same reference.
    #[arg(long)]
    pub diagnose: bool,
    /// Also measure a season's table (`GET /v1/seasons/{id}/standings`, its first page) against
    /// the same reference, over `--season-events` events of `--season-players` each.
    #[arg(long)]
    pub season: bool,
    #[arg(long, default_value_t = 200)]
    pub season_events: usize,
    #[arg(long, default_value_t = 100)]
    pub season_players: usize,
    /// The players the season's events draw their fields from.
    #[arg(long, default_value_t = 1000)]
    pub season_pool: usize,
    /// Skip the freshness run.
    #[arg(long)]
    pub no_freshness: bool,
    #[command(flatten)]
    pub server: harness::DatabaseServer,
}

/// Runs the benchmark on a runtime of its own; the one-line JSON summary.
/// With `RUST_LOG` set, the services' logs go to stderr (e.g. `RUST_LOG=warn`).
pub fn main(options: &Options) -> anyhow::Result<Value> {
    harness::block_on(run(options))
}

async fn run(options: &Options) -> anyhow::Result<Value> {
    harness::measured(&options.server.database_url, async |bench| {
        measure(bench, options).await
    })
    .await
}

async fn measure(bench: &Bench, options: &Options) -> anyhow::Result<Value> {
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut players = Vec::new();
    let mut report = json!({
        "players": options.players,
        "rounds": options.rounds,
        "connections": options.connections,
        "seconds": options.seconds,
    });
    if !options.no_reads {
        report["reads"] = reads(bench, options, &mut players, &mut rng).await?;
    }
    if options.season {
        report["season"] = season::run(bench, options, &mut players).await?;
    }
    if !options.no_freshness {
        report["freshness"] = freshness::run(bench, options, &mut players, &mut rng).await?;
    }
    Ok(report)
}

/// The standings read ratio.
async fn reads(
    bench: &Bench,
    options: &Options,
    players: &mut Vec<Uuid>,
    rng: &mut ChaCha8Rng,
) -> anyhow::Result<Value> {
    let seeding = Instant::now();
    bench.top_up_players(players, options.players).await?;
    let event = bench
        .admin
        .create_event(&CreateEvent {
            qualifying_rounds: Some(i64::from(options.rounds)),
            // Its draws take the bench's seeds.
            practice: Some(true),
            ..CreateEvent::classic(&format!("Bench open ({} players)", options.players))
        })
        .await?;
    bench.enter(&event, &players[..options.players]).await?;
    let mut posted = 0;
    for _ in 0..options.rounds {
        let round = bench.draw(&event, rng).await?;
        posted += bench.post_round(&event, &round, rng).await?;
    }
    bench.settled().await?;
    let standings = bench.public.standings(event.id).await?;
    if standings.rows.len() != options.players
        || standings.after_round != options.rounds
        || standings.results_counted as usize != posted
    {
        bail!(
            "the standings have {} rows after round {} with {} results, not {} after {} with {posted}",
            standings.rows.len(),
            standings.after_round,
            standings.results_counted,
            options.players,
            options.rounds,
        );
    }
    eprintln!(
        "read-model: seeded {} players, {} rounds, {posted} results in {:.1} s",
        options.players,
        options.rounds,
        seeding.elapsed().as_secs_f64()
    );
    let base = bench.suite.url();
    let mut targets = vec![(
        "standings",
        "GET /v1/events/{id}/standings",
        load::Target::get(format!("{base}/v1/events/{}/standings", event.id)),
    )];
    if options.diagnose {
        targets.push((
            "standings_gzip",
            "  … Accept-Encoding: gzip   ",
            load::Target::get_gzip(format!("{base}/v1/events/{}/standings", event.id)),
        ));
        let ranking = bench.suite.service_url(catan_suite::Owner::Ranking);
        let direct = format!("{ranking}/v1/events/{}/standings", event.id);
        let etag = reqwest::get(&direct)
            .await?
            .headers()
            .get(reqwest::header::ETAG)
            .cloned()
            .context("the standings' ETag")?;
        let mut unchanged = load::Target::get(targets[0].2.url.clone());
        unchanged
            .headers
            .insert(reqwest::header::IF_NONE_MATCH, etag);
        unchanged.status = reqwest::StatusCode::NOT_MODIFIED;
        targets.push((
            "standings_not_modified",
            "  … If-None-Match (304)  ",
            unchanged,
        ));
        targets.push((
            "standings_from_ranking",
            "  … from ranking directly",
            load::Target::get(direct),
        ));
    }
    let mut report = compare(options, &format!("{base}/v1/events/{}", event.id), &targets).await?;
    report["event_id"] = json!(event.id);
    report["results"] = json!(posted);
    Ok(report)
}

/// Reads the reference (`GET /v1/events/{id}`) and then each target, `--repeats` times in turn;
/// each target's runs, and the median ratio of the first target's throughput to the reference's.
async fn compare(
    options: &Options,
    reference_url: &str,
    targets: &[(&str, &str, load::Target)],
) -> anyhow::Result<Value> {
    let reference_target = load::Target::get(reference_url.to_owned());
    let mut runs = Vec::new();
    // Each target's ratio to the reference in every run.
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); targets.len()];
    for repeat in 1..=options.repeats {
        let reference = load::run(&reference_target, options.connections, options.seconds).await?;
        describe(repeat, "GET /v1/events/{id}          ", &reference);
        if reference.errors > 0 || reference.reads == 0 {
            bail!("{} reads of the reference failed", reference.errors);
        }
        let mut run = json!({ "reference": reference.json() });
        for (i, (key, what, target)) in targets.iter().enumerate() {
            let measured = load::run(target, options.connections, options.seconds).await?;
            describe(repeat, what, &measured);
            if measured.errors > 0 {
                bail!("{} reads of {what} failed", measured.errors);
            }
            let ratio = measured.per_second() / reference.per_second();
            eprintln!(
                "read-model: run {repeat}: {} / reference = {ratio:.3}",
                what.trim()
            );
            let mut figures = measured.json();
            figures["ratio"] = json!(round3(ratio));
            run[*key] = figures;
            if i == 0 {
                run["ratio"] = json!(round3(ratio));
            }
            ratios[i].push(ratio);
        }
        runs.push(run);
    }
    let mut medians = serde_json::Map::new();
    for ((key, what, _), ratios) in targets.iter().zip(&mut ratios) {
        let ratio = median(ratios);
        eprintln!(
            "read-model: median ratio {} / reference = {ratio:.3} (target ≥ 0.5)",
            what.trim()
        );
        medians.insert((*key).to_owned(), json!(round3(ratio)));
    }
    let first = targets
        .first()
        .and_then(|t| medians.get(t.0))
        .cloned()
        .unwrap_or(json!(0.0));
    Ok(json!({ "runs": runs, "median_ratio": first, "median_ratios": medians }))
}

fn describe(repeat: usize, what: &str, run: &load::LoadRun) {
    eprintln!(
        "read-model: run {repeat}: {what}: {:>8.1} reads/s, p50 {:>7.2} ms, p99 {:>7.2} ms, {} B a body, {} errors",
        run.per_second(),
        run.latencies.quantile_ms(0.5),
        run.latencies.quantile_ms(0.99),
        run.body_bytes,
        run.errors
    );
}
