//! Freshness: results posted at a steady rate through the gateway while each event's standings
//! are polled (with `If-None-Match`, so that an unchanged poll costs a 304); for each result, the
//! time from the POST's answer until a poll answers standings whose `as_of` reaches the result's
//! `recorded_at` (an event's results commit one after another, so the standings then include it).
//! Each polled event is also alone in a season of its own, whose table's first page is polled the
//! same way: the season's `as_of` is its one event's, so it too reaches a result's `recorded_at`
//! only once the table includes the result.

use super::{Bench, Options};
use crate::harness::{Latencies, cpu_seconds, round1, round2};
use anyhow::{Context, bail};
use catan_api::{CreateEvent, Event, SubmitResult};
use catan_suite::demo::random_sheet;
use chrono::{DateTime, SubsecRound, Utc};
use rand_chacha::ChaCha8Rng;
use reqwest::StatusCode;
use reqwest::header::{ETAG, IF_NONE_MATCH};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Semaphore, watch};
use tokio::time::{Instant, MissedTickBehavior};
use uuid::Uuid;

mod poll;
mod post;

use poll::poll;
use post::post;

/// Posts in flight at most: beyond it the posting falls behind its rate, and says so.
const IN_FLIGHT: usize = 256;
/// How long after the last post the standings may take to include everything.
const GIVE_UP: Duration = Duration::from_secs(30);
/// One posted result in this many is followed into the ratings: its first player's rating
/// history is polled until it lists the game.
const RATINGS_SAMPLE_EVERY: usize = 50;
/// How often a sampled player's rating history is polled.
const RATINGS_POLL: Duration = Duration::from_millis(50);

/// One result to post.
struct Job {
    event: usize,
    round: u32,
    table: u32,
    sheet: SubmitResult,
}

/// A posted result: its event, when the POST was answered, and the time it was recorded.
struct Posted {
    event: usize,
    answered: Instant,
    recorded_at: DateTime<Utc>,
    post_micros: u64,
}

/// New standings a poll answered.
struct Seen {
    at: Instant,
    as_of: DateTime<Utc>,
    results_counted: u32,
}

/// What an event's poller saw.
struct Polls {
    seen: Vec<Seen>,
    polls: usize,
    errors: usize,
}

/// What a poll reads of an answer: event standings and a season's table both say `as_of`.
#[derive(serde::Deserialize)]
struct Head {
    as_of: DateTime<Utc>,
    #[serde(default)]
    results_counted: u32,
}

/// What the poller of an event waits for once posting is over: standings as of the event's last
/// result, or the moment it gives up.
type Target = Option<(DateTime<Utc>, Instant)>;

pub(super) async fn run(
    bench: &Bench,
    options: &Options,
    players: &mut Vec<Uuid>,
    rng: &mut ChaCha8Rng,
) -> anyhow::Result<Value> {
    let seeding = std::time::Instant::now();
    let tables_per_event = options.fresh_players / 4;
    if tables_per_event == 0 || options.rate == 0 {
        bail!("nothing to post: --fresh-players and --rate must be positive");
    }
    let wanted = usize::try_from(u64::from(options.rate) * options.seconds)?;
    let events_needed = wanted.div_ceil(tables_per_event);
    // Events played at once have fields of their own: a player sits at one table at a time. (A
    // field shared by every event would also make each new game of the first event change every
    // later game of its players that day, and the ratings replay them all.)
    let everyone = options.fresh_players * events_needed;
    bench
        .top_up_players(players, everyone.max(players.len()))
        .await?;
    let mut events: Vec<Event> = Vec::with_capacity(events_needed);
    let mut rounds = Vec::with_capacity(events_needed);
    for (n, field) in (1..=events_needed).zip(players.chunks(options.fresh_players)) {
        let name = format!("Bench freshness {n} ({} players)", options.fresh_players);
        let event = bench
            .admin
            // Its draws take the bench's seeds.
            .create_event(&CreateEvent {
                practice: Some(true),
                ..CreateEvent::classic(&name)
            })
            .await?;
        bench.enter(&event, field).await?;
        rounds.push(bench.draw(&event, rng).await?);
        events.push(event);
    }
    // One season for each polled event, holding that event alone: the season's `as_of` then
    // reaches a result's `recorded_at` only once its table includes the result.
    let today = Utc::now().date_naive();
    let mut seasons = Vec::new();
    for (n, event) in events.iter().take(options.poll_events).enumerate() {
        let body: catan_api::CreateSeason = serde_json::from_value(json!({
            "name": format!("Bench freshness season {}", n + 1),
            "starts_on": today,
            "ends_on": today,
            "scoring": { "mode": "table_points" },
        }))?;
        let season = bench.admin.create_season(&body).await?;
        super::season::join(bench, season.id, event.id).await?;
        seasons.push(season.id);
    }
    bench.settled().await?;
    // The events' tables taken in turn, as results come in from events played at once.
    let most = rounds.iter().map(|r| r.tables.len()).max().unwrap_or(0);
    let mut jobs = Vec::with_capacity(wanted);
    for i in 0..most {
        for (event, round) in rounds.iter().enumerate() {
            if let Some(table) = round.tables.get(i) {
                let seated: Vec<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
                jobs.push(Job {
                    event,
                    round: round.number,
                    table: table.number,
                    sheet: random_sheet(&seated, round.stage, rng),
                });
            }
        }
    }
    jobs.truncate(wanted);
    eprintln!(
        "read-model: freshness: {} events of {} players drawn, {} results to post, seeded in {:.1} s",
        events.len(),
        options.fresh_players,
        jobs.len(),
        seeding.elapsed().as_secs_f64()
    );

    let base = bench.suite.url();
    // Results checks each sheet against its round as pairing serves it: what one post reads.
    let (round_bytes, round_ms) = match events.first() {
        Some(event) => {
            let url = format!("{base}/v1/events/{}/rounds/1", event.id);
            let asked = Instant::now();
            let body = reqwest::get(&url)
                .await?
                .error_for_status()?
                .bytes()
                .await?;
            (body.len(), asked.elapsed().as_secs_f64() * 1000.0)
        }
        None => (0, 0.0),
    };
    eprintln!(
        "read-model: freshness: GET .../rounds/1 of one event: {round_bytes} B in {round_ms:.1} ms"
    );
    let poll_every = Duration::from_millis(options.poll_ms);
    let mut targets = Vec::new();
    let mut pollers = Vec::new();
    let mut season_pollers = Vec::new();
    // One client for every poller: building one loads the system's certificates, tens of ms of
    // CPU that would land on the first second of posting.
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(2 * events.len())
        .timeout(Duration::from_secs(30))
        .build()?;
    for (event, season) in events.iter().zip(&seasons) {
        let (target, watched) = watch::channel(None);
        let url = format!("{base}/v1/events/{}/standings", event.id);
        pollers.push(tokio::spawn(poll(
            client.clone(),
            url,
            poll_every,
            watched.clone(),
        )));
        let url = format!("{base}/v1/seasons/{season}/standings");
        season_pollers.push(tokio::spawn(poll(client.clone(), url, poll_every, watched)));
        targets.push(target);
    }

    let cpu_before = cpu_seconds();
    let (posted, post_errors, first_sent, last_answered, rating_waits, token_reads) =
        post(bench, options, &events, jobs).await?;
    let cpu_after = cpu_seconds();
    let failed: usize = post_errors.values().sum();
    let give_up = Instant::now() + GIVE_UP;
    for (event, target) in targets.iter().enumerate() {
        let last = posted
            .iter()
            .filter(|p| p.event == event)
            .map(|p| p.recorded_at)
            .max();
        // With nothing posted to the event, any standings will do.
        let last = last.unwrap_or(DateTime::<Utc>::MIN_UTC);
        target.send_replace(Some((last, give_up)));
    }
    let mut polls = Vec::with_capacity(pollers.len());
    for poller in pollers {
        polls.push(poller.await??);
    }
    let mut season_polls = Vec::with_capacity(season_pollers.len());
    for poller in season_pollers {
        season_polls.push(poller.await??);
    }

    let (freshness, missing) = time_to_seen(&posted, &polls);
    let (season_freshness, season_missing) = time_to_seen(&posted, &season_polls);
    let mut rated_micros = Vec::new();
    let mut rated_missing = 0;
    for wait in rating_waits {
        match wait.await? {
            Some(micros) => rated_micros.push(micros),
            None => rated_missing += 1,
        }
    }
    let rated = Latencies::new(rated_micros);
    let (mut read_micros, mut reads_without_it, mut read_errors) = (Vec::new(), 0, BTreeMap::new());
    for read in token_reads {
        match read.await? {
            Ok((micros, included)) => {
                read_micros.push(micros);
                reads_without_it += usize::from(!included);
            }
            Err(status) => *read_errors.entry(status).or_insert(0_usize) += 1,
        }
    }
    let token_reads = Latencies::new(read_micros);
    let posts = Latencies::new(posted.iter().map(|p| p.post_micros).collect());
    let window = last_answered
        .saturating_duration_since(first_sent)
        .as_secs_f64();
    let rate = if window > 0.0 {
        posted.len() as f64 / window
    } else {
        0.0
    };
    // The polled events' last standings count at least the results posted to them (a post that
    // failed at the client may still have been recorded).
    let posted_to_polled = posted.iter().filter(|p| p.event < polls.len()).count();
    let counted_at_end: usize = polls
        .iter()
        .filter_map(|p| p.seen.last())
        .map(|s| s.results_counted as usize)
        .sum();
    // New standings the polls saw while results were still being posted.
    let updates_while_posting: usize = polls
        .iter()
        .map(|p| p.seen.iter().filter(|s| s.at <= last_answered).count())
        .sum();
    let cpu = cpu_before
        .zip(cpu_after)
        .map(|((suite0, pg0), (suite1, pg1))| {
            let window = last_answered
                .saturating_duration_since(first_sent)
                .as_secs_f64();
            ((suite1 - suite0) / window, (pg1 - pg0) / window)
        });
    if let Some((suite, postgres)) = cpu {
        eprintln!(
            "read-model: freshness: CPU while posting: this process (suite and clients) {suite:.2} cores, PostgreSQL {postgres:.2} cores, of 2"
        );
    }
    let poll_count: usize = polls.iter().map(|p| p.polls).sum();
    let poll_errors: usize = polls.iter().map(|p| p.errors).sum();
    eprintln!(
        "read-model: freshness: posted {} results ({failed} failed: {post_errors:?}) at {rate:.1}/s (asked {}/s); POST p50 {:.1} ms, p99 {:.1} ms",
        posted.len(),
        options.rate,
        posts.quantile_ms(0.5),
        posts.quantile_ms(0.99),
    );
    eprintln!(
        "read-model: freshness: POST answered → in the standings ({} results of {} events polled every {} ms): mean {:.0} ms, p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms; {missing} never seen; {poll_count} polls, {poll_errors} failed; the last standings count {counted_at_end} results, {posted_to_polled} posted; the polls saw {updates_while_posting} new standings while posting (target p99 ≤ 1000 ms)",
        freshness.len(),
        polls.len(),
        options.poll_ms,
        freshness.mean_ms(),
        freshness.quantile_ms(0.5),
        freshness.quantile_ms(0.99),
        freshness.max_ms(),
    );
    eprintln!(
        "read-model: freshness: POST answered → in the season table ({} results, a season for each polled event, its first page polled every {} ms): p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms; {season_missing} never seen (target p99 ≤ 1000 ms)",
        season_freshness.len(),
        options.poll_ms,
        season_freshness.quantile_ms(0.5),
        season_freshness.quantile_ms(0.99),
        season_freshness.max_ms(),
    );
    eprintln!(
        "read-model: freshness: POST answered → in the ratings (1 result in {RATINGS_SAMPLE_EVERY}, {} sampled: its first player's rating history polled every {} ms until it lists the game): p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms; {rated_missing} never seen (target p99 ≤ 1000 ms)",
        rated.len(),
        RATINGS_POLL.as_millis(),
        rated.quantile_ms(0.5),
        rated.quantile_ms(0.99),
        rated.max_ms(),
    );
    eprintln!(
        "read-model: freshness: POST answered → a read of its event's standings that carries its Catan-Position answered (1 post in {}, {} reads): mean {:.0} ms, p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms; {reads_without_it} answered without the result; errors {read_errors:?} (target: mean no longer than the standings' freshness above)",
        options.token_reads_every,
        token_reads.len(),
        token_reads.mean_ms(),
        token_reads.quantile_ms(0.5),
        token_reads.quantile_ms(0.99),
        token_reads.max_ms(),
    );
    if freshness.is_empty() {
        bail!("no posted result was seen in the standings");
    }
    Ok(json!({
        "events": events.len(),
        "players_per_event": options.fresh_players,
        "round_body_bytes": round_bytes,
        "rate_asked": options.rate,
        "rate_achieved": round1(rate),
        "posted": posted.len(),
        "post_errors": failed,
        "post_errors_by_status": post_errors,
        "post_p50_ms": round2(posts.quantile_ms(0.5)),
        "post_p99_ms": round2(posts.quantile_ms(0.99)),
        "p50_ms": round1(freshness.quantile_ms(0.5)),
        "p99_ms": round1(freshness.quantile_ms(0.99)),
        "max_ms": round1(freshness.max_ms()),
        "seen": freshness.len(),
        "missing": missing,
        "season_p50_ms": round1(season_freshness.quantile_ms(0.5)),
        "season_p99_ms": round1(season_freshness.quantile_ms(0.99)),
        "season_max_ms": round1(season_freshness.max_ms()),
        "season_missing": season_missing,
        "ratings_sampled": rated.len(),
        "ratings_p50_ms": round1(rated.quantile_ms(0.5)),
        "ratings_p99_ms": round1(rated.quantile_ms(0.99)),
        "ratings_max_ms": round1(rated.max_ms()),
        "ratings_missing": rated_missing,
        "token_reads": token_reads.len(),
        "token_read_mean_ms": round1(token_reads.mean_ms()),
        "token_read_p50_ms": round1(token_reads.quantile_ms(0.5)),
        "token_read_p99_ms": round1(token_reads.quantile_ms(0.99)),
        "token_read_max_ms": round1(token_reads.max_ms()),
        "token_reads_without_the_result": reads_without_it,
        "token_read_errors": read_errors,
        "mean_ms": round1(freshness.mean_ms()),
        "poll_ms": options.poll_ms,
        "events_polled": polls.len(),
        "polls": poll_count,
        "poll_errors": poll_errors,
        "posted_to_polled": posted_to_polled,
        "counted_at_end": counted_at_end,
        "updates_while_posting": updates_while_posting,
        "cpu_cores_suite": cpu.map(|(suite, _)| round2(suite)),
        "cpu_cores_postgres": cpu.map(|(_, postgres)| round2(postgres)),
    }))
}

/// For each result posted to a polled event, the time from its POST's answer until a poll of that
/// event's read saw an `as_of` reaching its `recorded_at`; and how many were never seen.
fn time_to_seen(posted: &[Posted], polls: &[Polls]) -> (Latencies, usize) {
    let mut micros = Vec::with_capacity(posted.len());
    let mut missing = 0;
    for p in posted.iter().filter(|p| p.event < polls.len()) {
        let seen = polls
            .get(p.event)
            .and_then(|polls| polls.seen.iter().find(|s| s.as_of >= p.recorded_at));
        match seen {
            Some(seen) => {
                let waited = seen.at.saturating_duration_since(p.answered).as_micros();
                micros.push(u64::try_from(waited).unwrap_or(u64::MAX));
            }
            None => missing += 1,
        }
    }
    (Latencies::new(micros), missing)
}
