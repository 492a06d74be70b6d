//! What the benchmarks through the running suite share: the suite started in this process over a
//! fresh database of its own (dropped at the end), as the end-to-end harness starts it, with the
//! per-key rate limit lifted; the seeding steps; and the figures' arithmetic.

use anyhow::{Context, bail};
use catan_api::{ApiClient, CreateEntry, CreateEvent, CreatePlayer, DrawRound, Event, Round};
use catan_kit::Settings;
use catan_kit::settings::RateLimitSettings;
use catan_suite::Suite;
use catan_suite::demo::random_sheet;
use diesel::{Connection, PgConnection, RunQueryDsl};
use futures_util::{StreamExt, TryStreamExt, stream};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::future::Future;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// The PostgreSQL server a bench makes its own databases on: every bench's `--database-url`.
#[derive(Debug, Clone, clap::Args)]
pub struct DatabaseServer {
    /// The PostgreSQL server the bench creates its own databases on.
    #[arg(
        long,
        env = "TEST_DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
    )]
    pub database_url: String,
}

/// Requests in flight while seeding.
pub const SEEDING: usize = 8;

/// Runs `future` on a runtime of its own. With `RUST_LOG` set, the services' logs go to stderr
/// (e.g. `RUST_LOG=warn`).
pub fn block_on<T>(future: impl Future<Output = anyhow::Result<T>>) -> anyhow::Result<T> {
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
    }
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("a tokio runtime")?
        .block_on(future)
}

/// The suite, running over the bench's own database, with an admin client and an anonymous one.
pub struct Bench {
    pub suite: Suite,
    /// The server's URL with the bench's database in it.
    pub database_url: String,
    server_url: String,
    database: String,
    /// The admin's key, for what signs in as a person does (the web app's console).
    pub admin_key: String,
    pub admin: ApiClient,
    pub public: ApiClient,
}

impl Bench {
    /// Creates and migrates a database of its own on `server_url`, and starts the suite over it on
    /// free local ports, as the end-to-end harness does.
    pub async fn start(server_url: &str) -> anyhow::Result<Bench> {
        let (database, database_url) = fresh_database(server_url).await?;
        Self::over(server_url, database, database_url, new_admin_key()).await
    }

    /// Starts the suite over `database` (made by [`fresh_database`], its URL `database_url`),
    /// `admin_key` its admin's; the database is dropped when it fails to start.
    pub async fn over(
        server_url: &str,
        database: String,
        database_url: String,
        admin_key: String,
    ) -> anyhow::Result<Bench> {
        match Self::launch(&database_url, &admin_key).await {
            Ok((suite, admin, public)) => Ok(Bench {
                suite,
                database_url,
                server_url: server_url.to_owned(),
                database,
                admin_key,
                admin,
                public,
            }),
            Err(e) => {
                drop_database(server_url, &database).await;
                Err(e)
            }
        }
    }

    async fn launch(
        database_url: &str,
        admin_key: &str,
    ) -> anyhow::Result<(Suite, ApiClient, ApiClient)> {
        let suite = Suite::start(settings(database_url, admin_key), "127.0.0.1:0").await?;
        let public = ApiClient::new(&suite.url());
        let token = match public.token(admin_key).await {
            Ok(token) => token.access_token,
            Err(e) => {
                suite.stop().await;
                return Err(e.into());
            }
        };
        // Apart: the public client's reads do not wait for every write the admin's made. Its
        // seeding writes thousands of players at once, and a read after them may find the read
        // model still taking them in (503 past the consistency wait): it tries longer.
        let seeding = catan_api::RetryPolicy {
            attempts: 8,
            ..catan_api::RetryPolicy::default()
        };
        let admin = ApiClient::with_policy(&suite.url(), seeding)
            .with_token(token)
            .with_position(catan_api::Position::default());
        Ok((suite, admin, public))
    }

    /// The name of the bench's database.
    pub fn database(&self) -> &str {
        &self.database
    }

    /// Stops the suite and drops its database.
    pub async fn shutdown(self) {
        self.suite.stop().await;
        drop_database(&self.server_url, &self.database).await;
    }

    /// Stops the suite and keeps its database: its name and URL.
    pub async fn stop_keeping_database(self) -> (String, String) {
        self.suite.stop().await;
        (self.database, self.database_url)
    }

    /// Waits until ranking's read model includes every change made before the call: each feed
    /// read to its end by a round of the follower that began after it.
    pub async fn settled(&self) -> anyhow::Result<()> {
        let asked = chrono::Utc::now();
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let state = self.public.read_model_state().await?;
            if state
                .feeds
                .iter()
                .all(|f| f.caught_up_at.is_some_and(|at| at > asked))
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("the read model did not catch up in 120 s: {state:?}");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Registers new players until `players` holds `count`.
    pub async fn top_up_players(
        &self,
        players: &mut Vec<Uuid>,
        count: usize,
    ) -> anyhow::Result<()> {
        let admin = &self.admin;
        let new: Vec<Uuid> = stream::iter(players.len()..count)
            .map(|i| async move {
                let body = CreatePlayer {
                    name: format!("Bench player {i:05}"),
                    region_id: None,
                };
                admin.create_player(&body).await.map(|p| p.id)
            })
            .buffered(SEEDING)
            .try_collect()
            .await?;
        players.extend(new);
        Ok(())
    }

    /// Creates a classic event named `name` and enters `players` in it, in this order.
    pub async fn classic_event(&self, name: &str, players: &[Uuid]) -> anyhow::Result<Event> {
        // A practice event, so that its draws take the bench's seeds and a run replays.
        let body = CreateEvent {
            practice: Some(true),
            ..CreateEvent::classic(name)
        };
        let event = self.admin.create_event(&body).await?;
        self.enter(&event, players).await?;
        Ok(event)
    }

    /// Enters `players` in `event`, in this order.
    pub async fn enter(&self, event: &Event, players: &[Uuid]) -> anyhow::Result<()> {
        let admin = &self.admin;
        stream::iter(players)
            .map(|&player| async move {
                admin
                    .create_entry(event.id, &CreateEntry::player(player))
                    .await
            })
            .buffered(SEEDING)
            .try_for_each(|_| async { Ok(()) })
            .await?;
        Ok(())
    }

    /// Draws the event's next round from a seed of `rng`.
    pub async fn draw(&self, event: &Event, rng: &mut ChaCha8Rng) -> anyhow::Result<Round> {
        let body = DrawRound {
            seed: Some(rng.random_range(0..1 << 53)),
        };
        Ok(self.admin.draw_round(event.id, &body).await?)
    }

    /// Posts a random valid sheet for every table of `round`; how many.
    pub async fn post_round(
        &self,
        event: &Event,
        round: &Round,
        rng: &mut ChaCha8Rng,
    ) -> anyhow::Result<usize> {
        let admin = &self.admin;
        let sheets: Vec<_> = round
            .tables
            .iter()
            .map(|table| {
                let seated: Vec<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
                (table.number, random_sheet(&seated, round.stage, rng))
            })
            .collect();
        let posted = sheets.len();
        stream::iter(sheets)
            .map(|(table, sheet)| async move {
                admin
                    .submit_result(event.id, round.number, table, &sheet)
                    .await
            })
            .buffer_unordered(SEEDING)
            .try_for_each(|_| async { Ok(()) })
            .await?;
        Ok(posted)
    }
}

/// A new admin key for a suite of the bench.
pub fn new_admin_key() -> String {
    format!("ck_bench_admin_{}", Uuid::new_v4().simple())
}

/// The settings the bench starts a suite with over `database_url`: `admin_key` the admin's, and
/// the per-key and per-client rate limits lifted.
pub fn settings(database_url: &str, admin_key: &str) -> Settings {
    let mut settings = Settings::local(database_url);
    settings.tokens.admin_key = Some(admin_key.to_owned().into());
    settings.rate_limit = RateLimitSettings {
        per_second: 1e9,
        burst: 1e9,
    };
    // The bench drives the suite from one address: no per-client limit may stand in its way.
    settings.clients = catan_kit::settings::ClientSettings::unlimited();
    settings
}

/// Creates and migrates a database of the bench's own on `server_url`: its name and URL (dropped
/// again when the migration fails).
pub async fn fresh_database(server_url: &str) -> anyhow::Result<(String, String)> {
    let database = format!("catan_bench_{}", Uuid::new_v4().simple());
    let (server, name) = (server_url.to_owned(), database.clone());
    let made = tokio::task::spawn_blocking(move || {
        let url = catan_kit::db::create_database(&server, &name, None)?;
        catan_suite::migrate_all(&url)?;
        anyhow::Ok(url)
    })
    .await?;
    match made {
        Ok(url) => Ok((database, url)),
        Err(e) => {
            drop_database(server_url, &database).await;
            Err(e.context("a fresh database"))
        }
    }
}

/// Drops a database, whatever still holds it open; a failure is only reported.
pub async fn drop_database(server_url: &str, database: &str) {
    let (server, name) = (server_url.to_owned(), database.to_owned());
    let dropped = tokio::task::spawn_blocking(move || {
        let mut conn = PgConnection::establish(&server)?;
        diesel::sql_query(format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
            .execute(&mut conn)?;
        anyhow::Ok(())
    })
    .await;
    match dropped {
        Ok(Ok(())) => {}
        Ok(Err(e)) => eprintln!("catan-bench: could not drop database {database}: {e:#}"),
        Err(e) => eprintln!("catan-bench: could not drop database {database}: {e}"),
    }
}

/// Starts the suite over a fresh database of its own on `server_url`, runs `measure` with it,
/// stops it, and adds the machine's load average before and after to `measure`'s report.
pub async fn measured(
    server_url: &str,
    measure: impl AsyncFnOnce(&Bench) -> anyhow::Result<serde_json::Value>,
) -> anyhow::Result<serde_json::Value> {
    let load_before = load_average();
    let bench = Bench::start(server_url).await?;
    let outcome = measure(&bench).await;
    bench.shutdown().await;
    let mut report = outcome?;
    report["load_average"] = serde_json::json!({ "before": load_before, "after": load_average() });
    Ok(report)
}

/// The 1-, 5- and 15-minute load averages, as `/proc/loadavg` gives them.
pub fn load_average() -> Value {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .filter_map(|x| x.parse::<f64>().ok())
                .collect::<Vec<_>>()
        })
        .map_or(Value::Null, |loads| json!(loads))
}

/// CPU seconds used so far by this process (the suite and the bench's clients) and by every
/// PostgreSQL process of the machine, from `/proc` (Linux; `None` elsewhere).
pub fn cpu_seconds() -> Option<(f64, f64)> {
    let own = cpu_of_stat(&std::fs::read_to_string("/proc/self/stat").ok()?)?.1;
    let mut postgres = 0.0;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if let Some((name, seconds)) = cpu_of_stat(&stat)
            && name == "postgres"
        {
            postgres += seconds;
        }
    }
    Some((own, postgres))
}

/// The name and the CPU seconds (user and system) of a process or thread, from its
/// `/proc/.../stat` line.
pub fn cpu_of_stat(stat: &str) -> Option<(String, f64)> {
    // USER_HZ: 100 on every Linux the bench runs on.
    const TICKS: f64 = 100.0;
    let (head, tail) = stat.rsplit_once(") ")?;
    let name = head.split_once(" (")?.1.to_owned();
    let fields: Vec<&str> = tail.split_whitespace().collect();
    // utime and stime: fields 14 and 15 of the line, 12 and 13 after the name.
    let user: f64 = fields.get(11)?.parse().ok()?;
    let system: f64 = fields.get(12)?.parse().ok()?;
    Some((name, (user + system) / TICKS))
}

/// The median of `values` (the mean of the middle two when even); 0 when empty.
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// Latencies in microseconds, sorted.
pub struct Latencies(Vec<u64>);

impl Latencies {
    pub fn new(mut micros: Vec<u64>) -> Self {
        micros.sort_unstable();
        Latencies(micros)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `p`-quantile (0 < p ≤ 1), nearest rank, in milliseconds; 0 when there is none.
    pub fn quantile_ms(&self, p: f64) -> f64 {
        let n = self.0.len();
        if n == 0 {
            return 0.0;
        }
        // The nearest rank ⌈p·n⌉, found by counting so that no float is cast to an index.
        let rank = (1..=n).find(|&r| r as f64 >= p * n as f64).unwrap_or(n);
        self.0.get(rank - 1).map_or(0.0, |&us| us as f64 / 1000.0)
    }

    /// The mean, in milliseconds; 0 for none.
    pub fn mean_ms(&self) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        self.0.iter().map(|&m| m as f64).sum::<f64>() / self.0.len() as f64 / 1000.0
    }

    pub fn max_ms(&self) -> f64 {
        self.0.last().map_or(0.0, |&us| us as f64 / 1000.0)
    }
}

pub fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }

    #[test]
    fn quantiles_are_nearest_ranks() {
        let l = Latencies::new((1..=100).rev().map(|ms| ms * 1000).collect());
        assert_eq!(l.quantile_ms(0.5), 50.0);
        assert_eq!(l.quantile_ms(0.99), 99.0);
        assert_eq!(l.quantile_ms(1.0), 100.0);
        assert_eq!(l.max_ms(), 100.0);
        assert_eq!(Latencies::new(vec![7000]).quantile_ms(0.99), 7.0);
        assert_eq!(Latencies::new(vec![]).quantile_ms(0.5), 0.0);
    }
}
