//! The checks once the faults are over: what the clients were told against what is stored, the
//! change feed, the standings, the webhooks and the outboxes. Each waits, bounded, for what is
//! eventually consistent (ranking, deliveries, the relay) before it judges.

use super::fixtures::World;
use super::receiver::{Receiver, VersionKey};
use super::submit::{Ticket, records_sheet};
use anyhow::{Context, bail};
use catan_api::{ApiClient, ClientError, Stage, TableResult};
use catan_domain::standings::{Game, classic_standings};
use diesel::{Connection, PgConnection, RunQueryDsl};
use futures_util::{StreamExt, TryStreamExt, stream};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// Reads in flight while checking.
const READING: usize = 16;

/// A table: (event, round, table).
pub type TableKey = (Uuid, u32, u32);

/// What the results service holds for one table.
pub struct Stored {
    pub current: Option<TableResult>,
    pub history: Vec<TableResult>,
}

/// Checks 1 and 2, per table.
#[derive(Default)]
pub struct Ledger {
    pub acknowledged: usize,
    pub stored: usize,
    /// Acknowledged but not stored, or stored as another sheet.
    pub lost: usize,
    /// Stored in more than one version.
    pub duplicated: usize,
    /// Stored although its request never had a 2xx.
    pub stored_unacknowledged: usize,
    /// Requests that got a definite refusal (4xx).
    pub refused: usize,
    /// Requests given up without a definite answer.
    pub unanswered: usize,
    /// Acknowledged as a sheet sent again (200) rather than recorded (201): a try ran twice.
    pub ran_twice: usize,
    pub examples: Vec<String>,
}

/// The stored result and history of each ticket's table, read through the gateway.
pub async fn read_stored(public: &ApiClient, tickets: &[Ticket]) -> anyhow::Result<Vec<Stored>> {
    stream::iter(tickets)
        .map(|t| async move {
            let current = eventually(|| public.result(t.event_id, t.round, t.table)).await?;
            let history = eventually(|| public.result_history(t.event_id, t.round, t.table))
                .await?
                .map(|list| list.items)
                .unwrap_or_default();
            anyhow::Ok(Stored { current, history })
        })
        .buffered(READING)
        .try_collect()
        .await
}

/// A read retried while it fails for a reason other than 404, for up to a minute; `None` on 404.
async fn eventually<T, F, Fut>(read: F) -> anyhow::Result<Option<T>>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, ClientError>>,
{
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match read().await {
            Ok(value) => return Ok(Some(value)),
            Err(e) if e.status() == Some(404) => return Ok(None),
            Err(e) if Instant::now() > deadline => return Err(e.into()),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// Checks 1 and 2: every acknowledged result stored once as the acknowledged sheet, and nothing
/// stored that its client was not told about.
pub fn ledger(tickets: &[Ticket], stored: &[Stored]) -> Ledger {
    let mut ledger = Ledger::default();
    for (ticket, stored) in tickets.iter().zip(stored) {
        let at = format!(
            "event {} round {} table {}",
            ticket.event_id, ticket.round, ticket.table
        );
        let acknowledged = ticket.acknowledged.as_ref();
        ledger.acknowledged += usize::from(acknowledged.is_some());
        ledger.refused += usize::from(ticket.refused().is_some());
        ledger.unanswered += usize::from(ticket.exchange.definite.is_none());
        ledger.ran_twice += usize::from(ticket.ran_twice());
        let note = |ledger: &mut Ledger, what: String| {
            if ledger.examples.len() < 20 {
                ledger.examples.push(format!("{at}: {what}"));
            }
        };
        match &stored.current {
            Some(current) => {
                ledger.stored += 1;
                if stored.history.len() != 1 || current.version != 1 {
                    ledger.duplicated += 1;
                    let versions = stored.history.len();
                    note(&mut ledger, format!("stored in {versions} versions"));
                }
                let as_posted = records_sheet(current, &ticket.sheet)
                    && acknowledged.is_none_or(|ack| ack.version == current.version);
                if acknowledged.is_some() && !as_posted {
                    ledger.lost += 1;
                    note(&mut ledger, "stored as another sheet".into());
                }
                if acknowledged.is_none() {
                    ledger.stored_unacknowledged += 1;
                    let told = ticket.exchange.answers.last().map(|a| a.label());
                    note(
                        &mut ledger,
                        format!("stored, but its client was last told {told:?}"),
                    );
                }
            }
            None if acknowledged.is_some() => {
                ledger.lost += 1;
                note(&mut ledger, "acknowledged, not stored".into());
            }
            None => {}
        }
    }
    ledger
}

/// Check 3: the change feed from its start to its end.
#[derive(Default)]
pub struct FeedCheck {
    pub read: usize,
    /// Stored results the feed never gave, or gave in another version.
    pub gaps: usize,
    /// Results the feed gave twice, or that are not stored.
    pub extra: usize,
}

pub async fn feed(
    public: &ApiClient,
    stored: &HashMap<TableKey, u32>,
) -> anyhow::Result<FeedCheck> {
    let mut seen: HashMap<TableKey, (usize, u32)> = HashMap::new();
    let mut after = String::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let page = match public.results_feed(&after, 1000).await {
            Ok(page) => page,
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
            Err(e) => return Err(e).context("the results feed"),
        };
        let empty = page.items.is_empty();
        for item in page.items {
            let seen = seen
                .entry((item.event_id, item.round, item.table))
                .or_insert((0, 0));
            *seen = (seen.0 + 1, item.version);
        }
        after = page.next;
        if empty && !page.held_back {
            break;
        }
        if empty {
            if Instant::now() > deadline {
                bail!("the results feed stays held back");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let mut check = FeedCheck {
        read: seen.values().map(|(n, _)| n).sum(),
        ..FeedCheck::default()
    };
    for (table, version) in stored {
        if seen.get(table).is_none_or(|(_, v)| v != version) {
            check.gaps += 1;
        }
    }
    for (table, (times, _)) in &seen {
        check.extra += times - 1 + usize::from(!stored.contains_key(table));
    }
    Ok(check)
}

/// Waits until ranking's read model includes every change made before the call, for up to
/// `within`.
pub async fn settled(public: &ApiClient, within: Duration) -> anyhow::Result<Duration> {
    let asked = chrono::Utc::now();
    let started = Instant::now();
    loop {
        if let Ok(state) = public.read_model_state().await
            && state
                .feeds
                .iter()
                .all(|f| f.caught_up_at.is_some_and(|at| at > asked))
        {
            return Ok(started.elapsed());
        }
        if started.elapsed() > within {
            bail!("ranking's read model did not catch up in {within:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Check 4: each event's standings, as ranking serves them, against the domain's standings of
/// the stored sheets. The events that differ, with what differs first.
pub async fn standings(world: &World, results: &[&TableResult]) -> anyhow::Result<Vec<String>> {
    let mut mismatches = Vec::new();
    for planned in &world.events {
        let event_id = planned.event.id;
        let games: Vec<Game> = results
            .iter()
            .filter(|r| r.event_id == event_id && r.stage == Stage::Qualifying)
            .map(|r| Game::from_result(&r.to_domain()))
            .collect();
        let expected = classic_standings(&planned.players, &games);
        let served = eventually(|| world.public.standings(event_id))
            .await?
            .with_context(|| format!("the standings of {event_id}"))?;
        let served_rows: HashMap<Uuid, _> = served.rows.iter().map(|r| (r.player_id, r)).collect();
        let mut differs = None;
        if served.results_counted as usize != games.len() {
            differs = Some(format!(
                "{} results counted, {} stored",
                served.results_counted,
                games.len()
            ));
        } else if served.rows.len() != expected.len() {
            differs = Some(format!(
                "{} rows, {} expected",
                served.rows.len(),
                expected.len()
            ));
        }
        for row in &expected {
            if differs.is_some() {
                break;
            }
            let Some(got) = served_rows.get(&row.player) else {
                differs = Some(format!("no row for player {}", row.player));
                break;
            };
            let want = (
                row.rank,
                row.vp,
                row.vp_share.exact(),
                row.games,
                row.wins,
                row.three_player_games,
            );
            let have = (
                got.rank,
                got.vp,
                got.vp_share_exact.clone(),
                got.games,
                got.wins,
                got.three_player_games,
            );
            if want != have {
                differs = Some(format!(
                    "player {}: served (rank, vp, share, games, wins, 3p) {have:?}, computed {want:?}",
                    row.player
                ));
            }
        }
        if let Some(why) = differs {
            mismatches.push(format!("event {event_id}: {why}"));
        }
    }
    Ok(mismatches)
}

/// Check 5: waits until every expected `result.posted` has arrived, for up to `within`; the
/// expected versions that arrived, and the messages about versions that are not stored.
pub async fn webhooks(
    receiver: &Receiver,
    expected: &HashSet<VersionKey>,
    within: Duration,
) -> (usize, usize) {
    let started = Instant::now();
    loop {
        let received = receiver.posted_versions();
        let arrived = expected.intersection(&received).count();
        if arrived == expected.len() || started.elapsed() > within {
            return (arrived, received.difference(expected).count());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Check 6: waits until pairing's and results' outboxes are empty, for up to `within`; the rows
/// left.
pub async fn outbox(database_url: &str, within: Duration) -> anyhow::Result<i64> {
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let started = Instant::now();
    loop {
        let url = database_url.to_owned();
        let left = tokio::task::spawn_blocking(move || {
            let mut conn = PgConnection::establish(&url)?;
            let count: Count = diesel::sql_query(
                "SELECT (SELECT count(*) FROM pairing.outbox) + (SELECT count(*) FROM results.outbox) AS n",
            )
            .get_result(&mut conn)?;
            anyhow::Ok(count.n)
        })
        .await??;
        if left == 0 || started.elapsed() > within {
            return Ok(left);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
