//! The table apps: every event's rounds drawn and their tables' sheets posted by `--clients`
//! clients at once while the faults run. Each request carries its own `Idempotency-Key` and is
//! sent again with the same key after a transport error, a timeout, a 5xx or a 429 (after a
//! random backoff) until it gets a definite answer; a share of the requests that did succeed is
//! sent once more, as a client that missed its answer would. Every answer is recorded.

use super::fixtures::{PlannedEvent, World};
use catan_api::{Round, SubmitResult, TableResult};
use catan_suite::demo::random_sheet;
use futures_util::{StreamExt, stream};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use uuid::Uuid;

/// How long one try may take before the client gives up on it and tries again.
const TRY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one request is retried before the client gives up on it altogether.
const REQUEST_DEADLINE: Duration = Duration::from_secs(180);
const FIRST_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// What one try was told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// A status, and whether it was the remembered answer of an earlier try (`Idempotency-Replayed`).
    Status { code: u16, replayed: bool },
    /// No answer: the connection failed or broke.
    Transport,
    /// No answer within [`TRY_TIMEOUT`].
    Timeout,
}

impl Answer {
    fn is_definite(self) -> bool {
        match self {
            Answer::Status { code, .. } => !(code == 429 || (500..=599).contains(&code)),
            Answer::Transport | Answer::Timeout => false,
        }
    }

    /// How the report counts it: the status, `transport` or `timeout`.
    pub fn label(self) -> String {
        match self {
            Answer::Status { code, .. } => code.to_string(),
            Answer::Transport => "transport".into(),
            Answer::Timeout => "timeout".into(),
        }
    }
}

/// One request sent until it got a definite answer.
#[derive(Debug, Default)]
pub struct Exchange {
    pub answers: Vec<Answer>,
    /// The definite answer's status and body; none if the request was given up.
    pub definite: Option<(u16, Value)>,
    /// Each 500's request, time and request id: the services' logs tell its cause.
    pub internal_errors: Vec<String>,
}

impl Exchange {
    fn succeeded(&self) -> Option<&Value> {
        match &self.definite {
            Some((code, body)) if (200..300).contains(code) => Some(body),
            _ => None,
        }
    }
}

/// A table's sheet as one table app posted it, and everything it was told.
pub struct Ticket {
    pub event_id: Uuid,
    pub round: u32,
    pub table: u32,
    pub key: String,
    pub sheet: SubmitResult,
    /// The request until its definite answer.
    pub exchange: Exchange,
    /// The result a 2xx answered with.
    pub acknowledged: Option<TableResult>,
    /// The same request sent again after it had succeeded, each until its definite answer.
    pub client_retries: Vec<Exchange>,
    /// Client retries whose answer was not the first answer.
    pub retry_disagreements: usize,
}

impl Ticket {
    /// The post was acknowledged with 200, the answer to a sheet sent again with another key:
    /// one of its own tries ran again instead of being answered from the first.
    pub fn ran_twice(&self) -> bool {
        matches!(self.exchange.definite, Some((200, _)))
    }

    /// The definite answer was a refusal (a 4xx).
    pub fn refused(&self) -> Option<u16> {
        match self.exchange.definite {
            Some((code, _)) if !(200..300).contains(&code) => Some(code),
            _ => None,
        }
    }
}

/// What the submission phase did.
pub struct Submitted {
    pub tickets: Vec<Ticket>,
    /// Draws (and the tables they would have had) that never got a round.
    pub draw_failures: Vec<String>,
    /// Every draw until its definite answer.
    pub draws: Vec<Exchange>,
}

/// Shared by the submitting clients and the faults: how far the run is. Each fault is due when a
/// number of tables have been started: the table that reaches it waits until the fault has
/// begun, so that every fault strikes while tables are being posted, however long the faults
/// before it took.
pub struct Progress {
    /// Tables whose post has begun.
    pub started: AtomicUsize,
    /// Tables with a definite answer (or given up).
    pub finished: AtomicUsize,
    /// After how many started tables each fault is due, in order.
    pub fault_due: Vec<usize>,
    /// Faults begun.
    pub faults_begun: AtomicUsize,
    /// Every event has stopped posting.
    pub over: AtomicBool,
}

impl Progress {
    pub fn new(fault_due: Vec<usize>) -> Progress {
        Progress {
            started: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
            fault_due,
            faults_begun: AtomicUsize::new(0),
            over: AtomicBool::new(false),
        }
    }

    /// Begins a table's post: waits until every fault due by then has begun (for at most
    /// [`REQUEST_DEADLINE`]: the faults' own failure ends the run).
    async fn begin_table(&self) {
        let number = self.started.fetch_add(1, Ordering::SeqCst);
        let due = self.fault_due.iter().filter(|&&at| at <= number).count();
        let deadline = Instant::now() + REQUEST_DEADLINE;
        while self.faults_begun.load(Ordering::SeqCst) < due && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

/// Sends HTTP requests to the gateway until they get a definite answer.
#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    gateway: String,
}

impl Client {
    async fn until_definite(
        &self,
        method: Method,
        path: &str,
        token: &str,
        key: &str,
        body: &Value,
        rng: &mut ChaCha8Rng,
    ) -> Exchange {
        let deadline = Instant::now() + REQUEST_DEADLINE;
        let mut backoff = FIRST_BACKOFF;
        let mut exchange = Exchange::default();
        loop {
            let sent = self
                .http
                .request(method.clone(), format!("{}{path}", self.gateway))
                .bearer_auth(token)
                .header("Idempotency-Key", key)
                .json(body)
                .timeout(TRY_TIMEOUT)
                .send()
                .await;
            let (answer, body) = match sent {
                Ok(response) => {
                    let code = response.status().as_u16();
                    let replayed = response.headers().contains_key("idempotency-replayed");
                    if code == 500 {
                        let id = response.headers().get("x-request-id").cloned();
                        exchange.internal_errors.push(format!(
                            "{method} {path} at {} (x-request-id {id:?})",
                            chrono::Utc::now().format("%H:%M:%S%.3f")
                        ));
                    }
                    match response.bytes().await {
                        Ok(bytes) => (
                            Answer::Status { code, replayed },
                            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                        ),
                        Err(e) if e.is_timeout() => (Answer::Timeout, Value::Null),
                        Err(_) => (Answer::Transport, Value::Null),
                    }
                }
                Err(e) if e.is_timeout() => (Answer::Timeout, Value::Null),
                Err(_) => (Answer::Transport, Value::Null),
            };
            exchange.answers.push(answer);
            if let (true, Answer::Status { code, .. }) = (answer.is_definite(), answer) {
                exchange.definite = Some((code, body));
                return exchange;
            }
            if Instant::now() > deadline {
                return exchange;
            }
            let wait = rng.random_range(backoff / 2..=backoff);
            tokio::time::sleep(wait).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }
}

/// Plays every event at once: each draws its rounds in turn and posts each round's tables, with
/// at most `clients` requests of all events in flight. `client_retries` is the share of
/// succeeded posts sent again.
pub async fn run(
    world: &World,
    clients: usize,
    client_retries: f64,
    seed: u64,
    progress: &Progress,
) -> anyhow::Result<Submitted> {
    let client = Client {
        http: reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(2))
            .build()?,
        gateway: world.gateway.clone(),
    };
    let slots = Arc::new(Semaphore::new(clients.max(1)));
    let played = stream::iter(world.events.iter().enumerate())
        .map(|(i, planned)| {
            let (client, slots) = (client.clone(), slots.clone());
            let seed = seed.wrapping_mul(1_000_003).wrapping_add(i as u64);
            async move {
                let event = EventPlay {
                    client: &client,
                    slots: &slots,
                    planned,
                    admin_token: &world.admin_token,
                    clients,
                    client_retries,
                    progress,
                };
                event.play(seed).await
            }
        })
        .buffer_unordered(world.events.len().max(1))
        .collect::<Vec<_>>()
        .await;
    progress.over.store(true, Ordering::SeqCst);
    let mut submitted = Submitted {
        tickets: Vec::new(),
        draw_failures: Vec::new(),
        draws: Vec::new(),
    };
    for event in played {
        submitted.tickets.extend(event.tickets);
        submitted.draws.extend(event.draws);
        submitted.draw_failures.extend(event.draw_failure);
    }
    Ok(submitted)
}

struct EventPlay<'a> {
    client: &'a Client,
    slots: &'a Semaphore,
    planned: &'a PlannedEvent,
    admin_token: &'a str,
    clients: usize,
    client_retries: f64,
    progress: &'a Progress,
}

struct Played {
    tickets: Vec<Ticket>,
    draws: Vec<Exchange>,
    draw_failure: Option<String>,
}

impl EventPlay<'_> {
    async fn play(&self, seed: u64) -> Played {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut played = Played {
            tickets: Vec::new(),
            draws: Vec::new(),
            draw_failure: None,
        };
        let event_id = self.planned.event.id;
        let rounds = &self.planned.tables_per_round;
        for (index, &tables) in rounds.iter().enumerate() {
            let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
            let drawn = {
                let _slot = self.slots.acquire().await;
                self.draw(&mut rng).await
            };
            let round = drawn
                .succeeded()
                .and_then(|body| serde_json::from_value::<Round>(body.clone()).ok());
            let Some(round) = round else {
                played.draw_failure = Some(format!(
                    "event {event_id} round {number}: {:?} after {:?}",
                    drawn.definite.as_ref().map(|(code, _)| code),
                    drawn.answers
                ));
                played.draws.push(drawn);
                let left: usize = rounds[index..].iter().sum();
                self.progress.finished.fetch_add(left, Ordering::SeqCst);
                return played;
            };
            played.draws.push(drawn);
            let posts: Vec<_> = round
                .tables
                .iter()
                .take(tables)
                .map(|table| {
                    let seated: Vec<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
                    let sheet = random_sheet(&seated, round.stage, &mut rng);
                    (table.number, sheet, rng.random::<u64>())
                })
                .collect();
            let tickets: Vec<Ticket> = stream::iter(posts)
                .map(|(table, sheet, seed)| async move {
                    let _slot = self.slots.acquire().await;
                    self.progress.begin_table().await;
                    let ticket = self.post(number, table, sheet, seed).await;
                    self.progress.finished.fetch_add(1, Ordering::SeqCst);
                    ticket
                })
                .buffer_unordered(self.clients.max(1))
                .collect()
                .await;
            let all_acknowledged = tickets.iter().all(|t| t.acknowledged.is_some());
            played.tickets.extend(tickets);
            if !all_acknowledged && index + 1 < rounds.len() {
                played.draw_failure = Some(format!(
                    "event {event_id}: round {number} has tables without a result; no later round drawn"
                ));
                let left: usize = rounds[index + 1..].iter().sum();
                self.progress.finished.fetch_add(left, Ordering::SeqCst);
                return played;
            }
        }
        played
    }

    /// Draws the event's next round, the admin's way.
    async fn draw(&self, rng: &mut ChaCha8Rng) -> Exchange {
        let path = format!("/v1/events/{}/rounds", self.planned.event.id);
        let body = json!({ "seed": rng.random_range(0..1u64 << 53) });
        let key = Uuid::new_v4().to_string();
        self.client
            .until_definite(Method::POST, &path, self.admin_token, &key, &body, rng)
            .await
    }

    /// Posts one table's sheet as its table app, and sometimes once more after it succeeded.
    async fn post(&self, round: u32, table: u32, sheet: SubmitResult, seed: u64) -> Ticket {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let event_id = self.planned.event.id;
        let path = format!("/v1/events/{event_id}/rounds/{round}/tables/{table}/result");
        let key = Uuid::new_v4().to_string();
        let body = serde_json::to_value(&sheet).unwrap_or(Value::Null);
        let token = &self.planned.scorer_token;
        let exchange = self
            .client
            .until_definite(Method::PUT, &path, token, &key, &body, &mut rng)
            .await;
        let acknowledged = exchange
            .succeeded()
            .and_then(|body| serde_json::from_value::<TableResult>(body.clone()).ok());
        let mut ticket = Ticket {
            event_id,
            round,
            table,
            key,
            sheet,
            exchange,
            acknowledged,
            client_retries: Vec::new(),
            retry_disagreements: 0,
        };
        if ticket.acknowledged.is_some() && rng.random_bool(self.client_retries.clamp(0.0, 1.0)) {
            let again = self
                .client
                .until_definite(Method::PUT, &path, token, &ticket.key, &body, &mut rng)
                .await;
            // A retry is answered with the first answer, status and body, never run again.
            let agrees = again.definite.is_some() && again.definite == ticket.exchange.definite;
            ticket.retry_disagreements += usize::from(!agrees);
            ticket.client_retries.push(again);
        }
        ticket
    }
}

/// Whether `recorded` is the sheet `sheet` (the players, their VP and breakdowns, the outcome).
pub fn records_sheet(recorded: &TableResult, sheet: &SubmitResult) -> bool {
    let mut posted: Vec<_> = sheet
        .scores
        .iter()
        .map(|s| (s.player_id, s.vp, s.breakdown.clone()))
        .collect();
    let mut stored: Vec<_> = recorded
        .scores
        .iter()
        .map(|s| (s.player_id, i64::from(s.vp), s.breakdown.clone()))
        .collect();
    posted.sort_by_key(|s| s.0);
    stored.sort_by_key(|s| s.0);
    recorded.outcome == sheet.outcome
        && recorded.winner_player_id == sheet.winner_player_id
        && posted == stored
}

/// Every answer of `answers`, counted by its label; `replayed` counts the 2xx that were replays.
pub fn tally<'a>(answers: impl Iterator<Item = &'a Answer>) -> (BTreeMap<String, usize>, usize) {
    let mut counts = BTreeMap::new();
    let mut replayed = 0;
    for answer in answers {
        *counts.entry(answer.label()).or_insert(0) += 1;
        if let Answer::Status { replayed: true, .. } = answer {
            replayed += 1;
        }
    }
    (counts, replayed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transport_errors_timeouts_5xx_and_429_are_retried_and_anything_else_is_an_answer() {
        let status = |code| Answer::Status {
            code,
            replayed: false,
        };
        for retried in [
            Answer::Transport,
            Answer::Timeout,
            status(500),
            status(503),
            status(429),
        ] {
            assert!(!retried.is_definite(), "{retried:?}");
        }
        for definite in [
            status(200),
            status(201),
            status(409),
            status(422),
            status(404),
        ] {
            assert!(definite.is_definite(), "{definite:?}");
        }
    }
}
