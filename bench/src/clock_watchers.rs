//! Screens and phones watching one round's clock (issue 32): `--clients` streams of
//! `GET /v1/events/{id}/rounds/1/clock/stream` open through the gateway at once, then the
//! director pauses and resumes the round `--changes` times; each change is timed from the moment
//! its POST was sent until each client's stream says the new state.

use crate::harness::{self, Bench, Latencies};
use anyhow::{Context, bail};
use catan_api::{ClockActionKind, ClockChange, RoundClockReading, RoundState};
use futures_util::StreamExt;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

#[derive(Debug, clap::Args)]
pub struct Options {
    /// Streams open at once.
    #[arg(long, default_value_t = 2000)]
    pub clients: usize,
    /// Pauses and resumes, in turn, each timed.
    #[arg(long, default_value_t = 6)]
    pub changes: usize,
    #[command(flatten)]
    pub server: harness::DatabaseServer,
}

/// Streams opened at once while connecting: the rest wait their turn.
const OPENING: usize = 64;

/// How long every client has to see a change before the bench gives up on it.
const GIVE_UP: Duration = Duration::from_secs(10);

/// The target: every client sees a pause within this.
const TARGET: Duration = Duration::from_secs(1);

/// What a client's stream said: which client, the clock's state, and when it arrived.
type Seen = (usize, RoundState, Instant);

/// Runs the benchmark on a runtime of its own; the one-line JSON summary.
pub fn main(options: &Options) -> anyhow::Result<Value> {
    harness::block_on(harness::measured(
        &options.server.database_url,
        async |bench| measure(bench, options).await,
    ))
}

async fn measure(bench: &Bench, options: &Options) -> anyhow::Result<Value> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut players = Vec::new();
    bench.top_up_players(&mut players, 8).await?;
    let event = bench.classic_event("Clock watchers", &players).await?;
    bench.draw(&event, &mut rng).await?;
    let change = |action| ClockChange {
        action,
        minutes: (action == ClockActionKind::Start).then_some(60),
        table: None,
    };
    bench
        .admin
        .change_clock(event.id, 1, &change(ClockActionKind::Start))
        .await?;

    let url = format!(
        "{}/v1/events/{}/rounds/1/clock/stream",
        bench.suite.url(),
        event.id
    );
    let (seen, mut sightings) = mpsc::unbounded_channel::<Seen>();
    let (failed, mut failures) = mpsc::unbounded_channel::<String>();
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .build()
        .context("an HTTP client")?;
    let opening = Instant::now();
    let watchers = futures_util::stream::iter(0..options.clients)
        .map(|client| {
            let (http, url, seen, failed) =
                (http.clone(), url.clone(), seen.clone(), failed.clone());
            async move {
                match http.get(&url).send().await {
                    Ok(response) if response.status().is_success() => {
                        tokio::spawn(watch(client, response, seen, failed));
                    }
                    Ok(response) => drop(failed.send(format!("{}", response.status()))),
                    Err(e) => drop(failed.send(e.to_string())),
                }
            }
        })
        .buffer_unordered(OPENING)
        .collect::<Vec<()>>();
    watchers.await;
    // Every stream first says the clock as it is: running.
    let opened = states_seen(
        &mut sightings,
        options.clients,
        RoundState::Running,
        opening,
    )
    .await
    .len();
    let open_ms = opening.elapsed().as_secs_f64() * 1000.0;
    eprintln!(
        "clock-watchers: {opened} of {} streams open through the gateway, each with its first reading, in {open_ms:.0} ms",
        options.clients
    );
    if opened < options.clients {
        bail!("only {opened} streams opened: {:?}", drain(&mut failures));
    }

    let mut changes = Vec::new();
    for n in 0..options.changes {
        let (action, state) = if n % 2 == 0 {
            (ClockActionKind::Pause, RoundState::Paused)
        } else {
            (ClockActionKind::Resume, RoundState::Running)
        };
        let sent = Instant::now();
        bench
            .admin
            .change_clock(event.id, 1, &change(action))
            .await?;
        let answered = sent.elapsed();
        let delays = states_seen(&mut sightings, options.clients, state, sent).await;
        let within = delays
            .iter()
            .filter(|&&micros| Duration::from_micros(micros) <= TARGET)
            .count();
        let latencies = Latencies::new(delays);
        eprintln!(
            "clock-watchers: {action:?}: POST answered in {:.0} ms; seen by {} of {} clients, {within} within 1 s: p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
            answered.as_secs_f64() * 1000.0,
            latencies.len(),
            options.clients,
            latencies.quantile_ms(0.5),
            latencies.quantile_ms(0.99),
            latencies.max_ms(),
        );
        changes.push(json!({
            "action": action,
            "post_ms": harness::round1(answered.as_secs_f64() * 1000.0),
            "seen_by": latencies.len(),
            "within_1s": within,
            "p50_ms": harness::round1(latencies.quantile_ms(0.5)),
            "p99_ms": harness::round1(latencies.quantile_ms(0.99)),
            "max_ms": harness::round1(latencies.max_ms()),
        }));
        // Between changes, a breath: the next one is timed on its own.
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let every_change_within = changes
        .iter()
        .all(|c| c["within_1s"].as_u64() == u64::try_from(options.clients).ok());
    eprintln!(
        "clock-watchers: every client saw every change within 1 s: {every_change_within} (target: every client sees a pause within 1 s); stream errors: {:?}",
        drain(&mut failures)
    );
    Ok(json!({
        "clients": options.clients,
        "open_ms": harness::round1(open_ms),
        "changes": changes,
        "every_change_within_1s": every_change_within,
    }))
}

/// Reads one client's stream, saying each clock state it carries, until it ends.
async fn watch(
    client: usize,
    mut response: reqwest::Response,
    seen: mpsc::UnboundedSender<Seen>,
    failed: mpsc::UnboundedSender<String>,
) {
    let mut buffer = Vec::new();
    loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => return,
            Err(e) => {
                drop(failed.send(e.to_string()));
                return;
            }
        };
        buffer.extend_from_slice(&chunk);
        // Server-sent events end with a blank line.
        while let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
            let event: Vec<u8> = buffer.drain(..end + 2).collect();
            if let Some(state) = state_of(&event)
                && seen.send((client, state, Instant::now())).is_err()
            {
                return;
            }
        }
    }
}

/// The clock's state in one server-sent event's `data:` line, if it has one.
fn state_of(event: &[u8]) -> Option<RoundState> {
    let text = std::str::from_utf8(event).ok()?;
    let data = text.lines().find_map(|line| line.strip_prefix("data:"))?;
    let reading: RoundClockReading = serde_json::from_str(data.trim()).ok()?;
    Some(reading.state)
}

/// Microseconds from `since` until each client first said `state` after it, for the clients
/// that did within [`GIVE_UP`].
async fn states_seen(
    sightings: &mut mpsc::UnboundedReceiver<Seen>,
    clients: usize,
    state: RoundState,
    since: Instant,
) -> Vec<u64> {
    let mut first: Vec<Option<u64>> = vec![None; clients];
    let mut count = 0;
    let deadline = tokio::time::Instant::from_std(since + GIVE_UP);
    while count < clients {
        let Ok(Some((client, said, at))) =
            tokio::time::timeout_at(deadline, sightings.recv()).await
        else {
            break;
        };
        if said == state
            && at >= since
            && let Some(slot @ None) = first.get_mut(client)
        {
            *slot = Some(u64::try_from(at.duration_since(since).as_micros()).unwrap_or(u64::MAX));
            count += 1;
        }
    }
    first.into_iter().flatten().collect()
}

/// The failures reported so far.
fn drain(failures: &mut mpsc::UnboundedReceiver<String>) -> Vec<String> {
    let mut all = Vec::new();
    while let Ok(failure) = failures.try_recv() {
        all.push(failure);
    }
    all
}
