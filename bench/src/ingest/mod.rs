//! `catan-bench ingest`: how fast the results service takes in a round's sheets, through the
//! gateway of the whole suite started in this process over a fresh database of its own (see
//! [`crate::harness`]), against what PostgreSQL itself does with the same write.
//!
//! For each concurrency C of `--connections`, `--rounds-per-concurrency` times: a classic event of
//! 4 × `--tables` players (a field of its own), round 1 drawn, and every table's sheet (random and
//! legal, serialized before the clock starts) PUT once, with a scorer's token and an
//! `Idempotency-Key` each, by C keep-alive clients as fast as they go, on two threads of their own;
//! every answer must be 201.
//! With `--batch N` (at most 500), the sheets go N to a request through
//! `POST /v1/events/{id}/rounds/1/results` instead, answered 200 with each sheet's status, which
//! must be 201. Right after each measurement, the reference: pgbench at the same concurrency (see
//! [`pgbench`]); the figure is the ratio of results a second to pgbench's transactions a second.

mod cpu;
mod floor;
mod pgbench;

use crate::harness::{self, Bench, Latencies, median, round1, round2, round3};
use anyhow::{Context, bail};
use catan_api::{
    BatchOutcome, CreateApiKey, Event, Role, Round, SubmitResult, SubmitResults, TableSheet,
};
use catan_suite::demo::random_sheet;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;
use uuid::Uuid;

#[derive(clap::Args)]
pub struct Options {
    /// Tables of each event's first round (4 players each): the sheets posted per measurement.
    #[arg(long, default_value_t = 1000)]
    pub tables: usize,
    /// The concurrencies measured: keep-alive clients posting at once (and pgbench's `-c`).
    #[arg(long, value_delimiter = ',', default_value = "8,32")]
    pub connections: Vec<usize>,
    /// Measurements at each concurrency, each over an event of its own.
    #[arg(long, default_value_t = 2)]
    pub rounds_per_concurrency: usize,
    /// Sheets per request through the batch route `POST /v1/events/{id}/rounds/1/results`;
    /// 0: one `PUT .../tables/{t}/result` per sheet.
    #[arg(long, default_value_t = 0)]
    pub batch: usize,
    /// Seconds of each pgbench run (`-T`).
    #[arg(long, default_value_t = 5)]
    pub pgbench_seconds: u64,
    /// Also post each measurement's sheets to the floor (see [`floor`]): the thinnest server the
    /// suite's stack makes, which only parses them and commits pgbench's rows for them, right
    /// after the suite and before pgbench; its ratio is the ceiling of the suite's.
    #[arg(long)]
    pub floor: bool,
    /// Also print where the CPU went while posting: this process (suite and clients) by kind of
    /// thread, with how long they waited for a core, and PostgreSQL.
    #[arg(long)]
    pub diagnose: bool,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub server: harness::DatabaseServer,
}

/// Runs the benchmark on a runtime of its own; the JSON summary.
pub fn main(options: &Options) -> anyhow::Result<Value> {
    if options.tables == 0 || options.connections.contains(&0) {
        bail!("--tables and every --connections must be positive");
    }
    harness::block_on(run(options))
}

async fn run(options: &Options) -> anyhow::Result<Value> {
    harness::measured(&options.server.database_url, async |bench| {
        measure(bench, options).await
    })
    .await
}

async fn measure(bench: &Bench, options: &Options) -> anyhow::Result<Value> {
    let table_apps = TableApps::start()?;
    let measured = measure_with(bench, options, &table_apps).await;
    table_apps.stop();
    measured
}

/// The runtime the clients run on, threads of their own like pgbench's: the suite's background
/// work (the read model following the burst, the outbox relay) runs on the bench's runtime, and
/// sharing its workers with the clients would delay sends and answers by whatever it computes.
struct TableApps(tokio::runtime::Runtime);

impl TableApps {
    fn start() -> anyhow::Result<TableApps> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("table-app")
            .enable_all()
            .build()
            .context("the clients' runtime")?;
        Ok(TableApps(runtime))
    }

    /// Runs `work` on the clients' threads; their connections are driven there too.
    async fn run<T: Send + 'static>(
        &self,
        work: impl Future<Output = anyhow::Result<T>> + Send + 'static,
    ) -> anyhow::Result<T> {
        self.0.spawn(work).await?
    }

    /// A runtime may not be dropped where an async task runs.
    fn stop(self) {
        self.0.shutdown_background();
    }
}

async fn measure_with(
    bench: &Bench,
    options: &Options,
    table_apps: &TableApps,
) -> anyhow::Result<Value> {
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut players = Vec::new();
    let mut runs = Vec::new();
    let (mut medians, mut floor_medians) = (serde_json::Map::new(), serde_json::Map::new());
    let mut n = 0;
    for &connections in &options.connections {
        let (mut ratios, mut floor_ratios) = (Vec::new(), Vec::new());
        for repeat in 1..=options.rounds_per_concurrency {
            n += 1;
            let seeding = std::time::Instant::now();
            // A field of its own for each event, as events played at once have.
            let field = 4 * options.tables;
            bench.top_up_players(&mut players, n * field).await?;
            let name = format!("Bench ingest {n} ({} tables)", options.tables);
            let event = bench
                .classic_event(&name, &players[(n - 1) * field..n * field])
                .await?;
            let round = bench.draw(&event, &mut rng).await?;
            let token = scorer_token(bench, &event).await?;
            let sheets: Vec<(u32, SubmitResult)> = round
                .tables
                .iter()
                .map(|table| {
                    let seated: Vec<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
                    (table.number, random_sheet(&seated, round.stage, &mut rng))
                })
                .collect();
            let requests = prepare(&bench.suite.url(), &event, &round, &sheets, options.batch)?;
            // The read model takes in the new entries before the clock starts, and the results
            // before pgbench's, so that neither run shares the machine with it.
            bench.settled().await?;
            eprintln!(
                "ingest: event {n}: {} tables seeded in {:.1} s",
                sheets.len(),
                seeding.elapsed().as_secs_f64()
            );
            let url = bench.suite.url();
            let clients = table_apps
                .run(async move { connect(&url, &token, connections).await })
                .await?;
            let cpu_before = options.diagnose.then(cpu::Seconds::now);
            let posted = table_apps.run(post(clients, requests)).await?;
            let cpu = match cpu_before {
                Some(before) => Some(cpu::Used::since(&before, bench).await?),
                None => None,
            };
            bench.settled().await?;
            let floor = match options.floor {
                true => Some(
                    post_to_floor(options, table_apps, connections, &event, &round, &sheets)
                        .await?,
                ),
                false => None,
            };
            let reference = pgbench::tps(
                &options.server.database_url,
                connections,
                options.pgbench_seconds,
                &sheets[0].1,
            )
            .await?;
            let per_second = sheets.len() as f64 / posted.seconds;
            let ratio = per_second / reference;
            eprintln!(
                "ingest: {connections} connections, run {repeat}: {:>7.1} results/s, p50 {:>6.2} ms, p99 {:>6.2} ms, max {:>7.2} ms; pgbench {:>7.1} tps; ratio {ratio:.3}",
                per_second,
                posted.latencies.quantile_ms(0.5),
                posted.latencies.quantile_ms(0.99),
                posted.latencies.max_ms(),
                reference,
            );
            let mut run = json!({
                "connections": connections,
                "repeat": repeat,
                "results": sheets.len(),
                "requests": posted.latencies.len(),
                "seconds": round3(posted.seconds),
                "results_per_s": round1(per_second),
                "p50_ms": round2(posted.latencies.quantile_ms(0.5)),
                "p99_ms": round2(posted.latencies.quantile_ms(0.99)),
                "max_ms": round2(posted.latencies.max_ms()),
                "pgbench_tps": round1(reference),
                "ratio": round3(ratio),
            });
            if let Some(floor) = floor {
                let floor_per_second = sheets.len() as f64 / floor.seconds;
                eprintln!(
                    "ingest:   floor {floor_per_second:>7.1} results/s, p50 {:>6.2} ms, p99 {:>6.2} ms; floor ratio {:.3}",
                    floor.latencies.quantile_ms(0.5),
                    floor.latencies.quantile_ms(0.99),
                    floor_per_second / reference,
                );
                run["floor"] = json!({
                    "results_per_s": round1(floor_per_second),
                    "p50_ms": round2(floor.latencies.quantile_ms(0.5)),
                    "p99_ms": round2(floor.latencies.quantile_ms(0.99)),
                    "ratio": round3(floor_per_second / reference),
                });
                floor_ratios.push(floor_per_second / reference);
            }
            if let Some(cpu) = cpu {
                eprintln!("ingest:   {}", cpu.line(sheets.len()));
                run["cpu"] = cpu.json(sheets.len());
            }
            runs.push(run);
            ratios.push(ratio);
        }
        let ratio = median(&mut ratios);
        eprintln!("ingest: {connections} connections: median ratio {ratio:.3}");
        medians.insert(connections.to_string(), json!(round3(ratio)));
        if !floor_ratios.is_empty() {
            let floor = median(&mut floor_ratios);
            eprintln!("ingest: {connections} connections: the floor's median ratio {floor:.3}");
            floor_medians.insert(connections.to_string(), json!(round3(floor)));
        }
    }
    Ok(json!({
        "tables": options.tables,
        "batch": options.batch,
        "pgbench_seconds": options.pgbench_seconds,
        "runs": runs,
        "median_ratio": medians,
        "floor_median_ratio": floor_medians,
    }))
}

/// The same sheets, one PUT each, by as many clients, to a floor server started for them.
async fn post_to_floor(
    options: &Options,
    table_apps: &TableApps,
    connections: usize,
    event: &Event,
    round: &Round,
    sheets: &[(u32, SubmitResult)],
) -> anyhow::Result<Posted> {
    let floor = floor::Floor::start(&options.server.database_url).await?;
    let requests = prepare(floor.url(), event, round, sheets, 0)?;
    let url = floor.url().to_owned();
    let posted = async {
        let clients = table_apps
            .run(async move { connect(&url, "floor", connections).await })
            .await?;
        table_apps.run(post(clients, requests)).await
    }
    .await;
    floor.stop(&options.server.database_url).await;
    posted
}

/// A bearer token of a scorer key for `event`, as a table app posts with.
async fn scorer_token(bench: &Bench, event: &Event) -> anyhow::Result<String> {
    let key = bench
        .admin
        .create_api_key(&CreateApiKey {
            name: format!("Bench scorer {}", event.id),
            role: Role::Scorer,
            event_ids: Some(vec![event.id]),
            region_ids: None,
        })
        .await?;
    Ok(bench.public.token(&key.api_key).await?.access_token)
}

/// One request, ready to send: its method and URL, its `Idempotency-Key`, its body serialized.
struct Request {
    batch: bool,
    url: String,
    idempotency_key: String,
    body: Vec<u8>,
    /// The sheets it posts.
    sheets: usize,
}

/// The requests that post `sheets`: one PUT each, or `batch` of them to a POST.
fn prepare(
    base: &str,
    event: &Event,
    round: &Round,
    sheets: &[(u32, SubmitResult)],
    batch: usize,
) -> anyhow::Result<Vec<Request>> {
    let (event_id, number) = (event.id, round.number);
    if batch == 0 {
        return sheets
            .iter()
            .map(|(table, sheet)| {
                Ok(Request {
                    batch: false,
                    url: format!(
                        "{base}/v1/events/{event_id}/rounds/{number}/tables/{table}/result"
                    ),
                    idempotency_key: Uuid::new_v4().to_string(),
                    body: serde_json::to_vec(sheet)?,
                    sheets: 1,
                })
            })
            .collect();
    }
    sheets
        .chunks(batch)
        .map(|chunk| {
            let body = SubmitResults {
                sheets: chunk
                    .iter()
                    .map(|(table, sheet)| TableSheet {
                        table: *table,
                        sheet: sheet.clone(),
                    })
                    .collect(),
            };
            Ok(Request {
                batch: true,
                url: format!("{base}/v1/events/{event_id}/rounds/{number}/results"),
                idempotency_key: Uuid::new_v4().to_string(),
                body: serde_json::to_vec(&body)?,
                sheets: chunk.len(),
            })
        })
        .collect()
}

/// What posting a round's sheets measured.
struct Posted {
    /// From the start until the last answer.
    seconds: f64,
    /// One a request.
    latencies: Latencies,
}

/// `connections` clients sending `token`, each with its keep-alive connection to `base` open.
async fn connect(
    base: &str,
    token: &str,
    connections: usize,
) -> anyhow::Result<Vec<reqwest::Client>> {
    let mut headers = HeaderMap::new();
    headers.insert(
        AUTHORIZATION,
        HeaderValue::from_str(&format!("Bearer {token}"))?,
    );
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    let mut clients = Vec::with_capacity(connections);
    for _ in 0..connections {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .timeout(Duration::from_secs(60))
            .default_headers(headers.clone())
            .build()
            .context("an HTTP client")?;
        // Opens the connection before the clock starts.
        client
            .get(format!("{base}/health"))
            .send()
            .await?
            .bytes()
            .await?;
        clients.push(client);
    }
    Ok(clients)
}

/// The clients send `requests` one after another (each takes the next one left) until none is
/// left. Any answer but 201 (or, to a batch, any but 200 with 201 for each sheet) fails the run.
async fn post(clients: Vec<reqwest::Client>, requests: Vec<Request>) -> anyhow::Result<Posted> {
    let left = Arc::new(Mutex::new(requests.into_iter()));
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for client in clients {
        let left = left.clone();
        tasks.spawn(async move {
            let mut micros = Vec::new();
            let mut last = start;
            loop {
                let next = left
                    .lock()
                    .map_err(|_| anyhow::anyhow!("a client panicked"))?
                    .next();
                let Some(mut request) = next else {
                    return anyhow::Ok((micros, last));
                };
                let sent = Instant::now();
                let builder = if request.batch {
                    client.post(&request.url)
                } else {
                    client.put(&request.url)
                };
                let response = builder
                    .header("Idempotency-Key", &request.idempotency_key)
                    .body(std::mem::take(&mut request.body))
                    .send()
                    .await
                    .with_context(|| request.url.clone())?;
                let status = response.status();
                let body = response.bytes().await?;
                last = Instant::now();
                micros
                    .push(u64::try_from(last.duration_since(sent).as_micros()).unwrap_or(u64::MAX));
                check(&request, status, &body)?;
            }
        });
    }
    let mut micros = Vec::new();
    let mut last = start;
    while let Some(client) = tasks.join_next().await {
        let (client_micros, client_last) = client??;
        micros.extend(client_micros);
        last = last.max(client_last);
    }
    Ok(Posted {
        seconds: last.duration_since(start).as_secs_f64(),
        latencies: Latencies::new(micros),
    })
}

/// Whether the answer recorded every sheet of the request: 201, or for a batch 200 with a status
/// of 201 for each of its sheets.
fn check(request: &Request, status: StatusCode, body: &[u8]) -> anyhow::Result<()> {
    let text = || String::from_utf8_lossy(body).into_owned();
    let expected = if request.batch {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    if status != expected {
        bail!("{} answered {status}: {}", request.url, text());
    }
    if !request.batch {
        return Ok(());
    }
    let answer: BatchOutcome = serde_json::from_slice(body)
        .with_context(|| format!("{} answered another body: {}", request.url, text()))?;
    let recorded = answer.results.iter().filter(|r| r.status == 201).count();
    if answer.results.len() != request.sheets || recorded != request.sheets {
        bail!(
            "{} recorded {recorded} of {} sheets: {}",
            request.url,
            request.sheets,
            text()
        );
    }
    Ok(())
}
