//! `catan-bench chaos`: the fault harness (see RELIABILITY.md).
//!
//! It starts a PostgreSQL cluster of its own (a data folder under the temp folder, a free port),
//! the four services as OS processes of their own over one database of it, and the gateway in
//! this process; sets up classic events through the API; posts `--results` results with
//! `--clients` concurrent table apps that retry with the same `Idempotency-Key`, while it
//! restarts PostgreSQL `--pg-restarts` times and SIGKILLs each service `--kills` times; then,
//! once everything has settled, checks that what the clients were told is what is stored, that
//! the change feed, the standings and the webhooks agree with it, and that the outboxes drained.
//! One JSON object on stdout; the exit code is 1 on any violation, 2 when the run itself failed.
//! The cluster, the processes and the folder go at the end however the run ends.

mod checks;
mod faults;
mod fixtures;
mod receiver;
mod submit;

use anyhow::{Context, bail};
use catan_suite::Owner;
use catan_suite::postgres::{PrivateCluster, StopMode};
use catan_suite::processes::{Output, Processes, ReplicaId, kept_ports, wait_healthy};
use checks::TableKey;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use submit::Progress;
use uuid::Uuid;

pub use catan_suite::serve::ServeArgs;

#[derive(clap::Args)]
pub struct Options {
    /// Results posted in all.
    #[arg(long, default_value_t = 10_000)]
    pub results: usize,
    /// PostgreSQL restarts, `-m immediate` and `-m fast` in turn.
    #[arg(long, default_value_t = 3)]
    pub pg_restarts: usize,
    /// SIGKILLs of each of the four services, each started again on its port.
    #[arg(long, default_value_t = 3)]
    pub kills: usize,
    /// Table apps posting at once.
    #[arg(long, default_value_t = 16)]
    pub clients: usize,
    /// Tables of each round (four players each: an event has four times as many players).
    #[arg(long, default_value_t = 25)]
    pub tables: usize,
    /// Qualifying rounds of each event (1 to 15); as many events as the results need.
    #[arg(long, default_value_t = 8)]
    pub rounds: usize,
    /// Share of succeeded posts sent once more with the same key.
    #[arg(long, default_value_t = 0.05)]
    pub client_retries: f64,
    /// Share of webhook deliveries the receiver answers with 500.
    #[arg(long, default_value_t = 0.02)]
    pub webhook_failures: f64,
    /// The longest wait for each thing that settles after the faults (the read model, the
    /// webhooks, the outboxes).
    #[arg(long, default_value_t = 120)]
    pub settle_seconds: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Keep the run's folder (the cluster's data, its log and the services' logs).
    #[arg(long)]
    pub keep: bool,
}

/// Runs the harness; the process's exit code (0: every check holds; 1: a violation; 2: the run
/// could not be made).
pub fn main(options: &Options) -> i32 {
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
    }
    if options.results == 0 || options.tables == 0 || !(1..=15).contains(&options.rounds) {
        eprintln!("catan-bench chaos: --results and --tables must be positive, --rounds 1 to 15");
        return 2;
    }
    let started = Instant::now();
    let outcome = Lab::create().and_then(|lab| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("a tokio runtime")?;
        let outcome = runtime.block_on(async {
            tokio::select! {
                outcome = exercise(&lab, options) => outcome,
                _ = tokio::signal::ctrl_c() => Err(anyhow::anyhow!("interrupted")),
            }
        });
        if outcome.as_ref().map_or(true, |report| !passed(report)) {
            eprint!("{}", faults::lock(&lab.services).log_tails(15));
        }
        runtime.shutdown_timeout(Duration::from_secs(5));
        lab.close(options.keep);
        outcome
    });
    match outcome {
        Ok(mut report) => {
            report["seconds"] = json!(round1(started.elapsed().as_secs_f64()));
            println!("{report}");
            if passed(&report) { 0 } else { 1 }
        }
        Err(e) => {
            eprintln!("catan-bench chaos: {e:#}");
            2
        }
    }
}

fn passed(report: &Value) -> bool {
    report["violations"].as_array().is_some_and(Vec::is_empty)
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The run's private world: its folder, its cluster and its service processes. Dropping it
/// stops and removes them all (also when the run panics).
struct Lab {
    dir: PathBuf,
    cluster: Option<PrivateCluster>,
    services: Arc<Mutex<Processes>>,
    database_url: String,
    env: Vec<(String, String)>,
    keep: bool,
}

impl Lab {
    /// A folder under the temp folder, a cluster in it on a free port, and the suite's database,
    /// migrated; the services' settings (nothing runs yet but PostgreSQL).
    fn create() -> anyhow::Result<Lab> {
        sweep_abandoned();
        let exe = std::env::current_exe().context("the harness's own binary")?;
        let ports: [u16; 5] = kept_ports(5)?
            .try_into()
            .map_err(|_| anyhow::anyhow!("not 5 ports"))?;
        let dir = std::env::temp_dir().join(format!("{LAB_PREFIX}{}", Uuid::new_v4().simple()));
        let [pg_port, service_ports @ ..] = ports;
        let admin_key = format!("ck_chaos_admin_{}", Uuid::new_v4().simple());
        let mut env = vec![
            ("CATAN_ADMIN_KEY".into(), admin_key),
            (
                "CATAN_INTERNAL_KEY".into(),
                format!("cik_chaos_{}", Uuid::new_v4().simple()),
            ),
            // As the read-model bench: at this rate results come from many table apps' keys.
            ("RATE_LIMIT_PER_SECOND".into(), "1000000000".into()),
            ("RATE_LIMIT_BURST".into(), "1000000000".into()),
            // One address drives the suite: no per-client limit may stand in its way.
            ("CATAN_ANONYMOUS_LIMIT_PER_SECOND".into(), "0".into()),
            ("CATAN_SIGN_IN_LIMIT_PER_SECOND".into(), "1000000000".into()),
            ("CATAN_SIGN_IN_LIMIT_BURST".into(), "1000000000".into()),
            ("CATAN_STREAMS_PER_CLIENT".into(), "1000000".into()),
            ("CATAN_WEBHOOKS_ALLOW_PRIVATE".into(), "true".into()),
            ("CATAN_WEBHOOKS_FIRST_RETRY_MS".into(), "200".into()),
            ("CATAN_WEBHOOKS_MAX_ATTEMPTS".into(), "20".into()),
            ("CATAN_WEBHOOKS_POLL_MS".into(), "100".into()),
            ("CATAN_WEBHOOKS_TIMEOUT_MS".into(), "5000".into()),
            ("RUST_LOG".into(), "warn".into()),
        ];
        env.extend(peer_env(service_ports));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(OWNER_FILE), std::process::id().to_string())?;
        let replicas = Owner::ALL.into_iter().map(only).zip(service_ports);
        let output = Output::Files(dir.join("logs"));
        let services = match Processes::new(exe, env.clone(), replicas, output) {
            Ok(services) => services,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(e);
            }
        };
        let mut lab = Lab {
            dir: dir.clone(),
            cluster: None,
            services: Arc::new(Mutex::new(services)),
            database_url: String::new(),
            env,
            keep: false,
        };
        let cluster = PrivateCluster::init(&dir.join("pgdata"), pg_port)?;
        lab.cluster = Some(cluster.clone());
        cluster.start()?;
        let server = cluster.url();
        catan_kit::db::create_database(&server, "catan", None)?;
        let database_url = catan_kit::db::replace_database(&server, "catan");
        catan_suite::migrate_all(&database_url)?;
        lab.env.push(("DATABASE_URL".into(), database_url.clone()));
        faults::lock(&lab.services).set_env(lab.env.clone());
        lab.database_url = database_url;
        eprintln!(
            "chaos: PostgreSQL on port {pg_port} in {}; services on {service_ports:?}",
            dir.display()
        );
        Ok(lab)
    }

    fn admin_key(&self) -> &str {
        self.env
            .iter()
            .find(|(k, _)| k == "CATAN_ADMIN_KEY")
            .map_or("", |(_, v)| v)
    }

    fn close(mut self, keep: bool) {
        self.keep = keep;
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        faults::lock(&self.services).kill_all();
        if let Some(cluster) = &self.cluster
            && let Err(e) = cluster.stop(StopMode::Immediate)
        {
            eprintln!("chaos: could not stop PostgreSQL: {e:#}");
        }
        if self.keep {
            eprintln!("chaos: kept {}", self.dir.display());
        } else if let Err(e) = std::fs::remove_dir_all(&self.dir) {
            eprintln!("chaos: could not remove {}: {e}", self.dir.display());
        }
    }
}

/// Each run's folder under the temp folder starts with this.
const LAB_PREFIX: &str = "catan-chaos-";
/// The file in a run's folder that holds the harness's process id.
const OWNER_FILE: &str = "harness.pid";

/// Stops the clusters and removes the folders of runs whose harness is gone without cleaning up
/// (it was SIGKILLed: its services ended with it, as their stdin did, but PostgreSQL runs on).
fn sweep_abandoned() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for dir in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        let is_lab = dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(LAB_PREFIX));
        let Some(owner) = is_lab
            .then(|| std::fs::read_to_string(dir.join(OWNER_FILE)).ok())
            .flatten()
        else {
            continue;
        };
        if std::path::Path::new("/proc").join(owner.trim()).exists() {
            continue;
        }
        eprintln!(
            "chaos: cleaning up {}, left by a harness that is gone",
            dir.display()
        );
        let data = dir.join("pgdata");
        if data.join("postmaster.pid").exists()
            && let Ok(cluster) = PrivateCluster::init(&data, 0)
        {
            let _ = cluster.stop(StopMode::Immediate);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The one process the harness runs of `owner`.
fn only(owner: Owner) -> ReplicaId {
    ReplicaId { owner, index: 1 }
}

/// The peers' URLs as each service reads them, the services on `ports` (in [`Owner::ALL`]'
/// order).
fn peer_env(ports: [u16; 4]) -> Vec<(String, String)> {
    [
        "REGISTRATION_URL",
        "PAIRING_URL",
        "RESULTS_URL",
        "RANKING_URL",
    ]
    .into_iter()
    .zip(ports)
    .map(|(name, port)| (name.to_owned(), format!("http://127.0.0.1:{port}")))
    .collect()
}

/// The run, in the lab: start, set up, post under faults, settle, check. The report.
async fn exercise(lab: &Lab, options: &Options) -> anyhow::Result<Value> {
    let http = reqwest::Client::new();
    let receiver = receiver::Receiver::start(options.webhook_failures).await?;
    let upstreams = {
        let services = faults::lock(&lab.services);
        catan_suite::gateway::Upstreams {
            registration: vec![services.url(only(Owner::Registration))],
            pairing: vec![services.url(only(Owner::Pairing))],
            results: vec![services.url(only(Owner::Results))],
            ranking: vec![services.url(only(Owner::Ranking))],
            web: None,
        }
    };
    let gateway = catan_suite::gateway::start(catan_kit::server::bind("127.0.0.1:0")?, upstreams)?;
    let outcome = exercise_through(lab, options, &http, &receiver, &gateway.url()).await;
    gateway.stop().await;
    outcome
}

async fn exercise_through(
    lab: &Lab,
    options: &Options,
    http: &reqwest::Client,
    receiver: &receiver::Receiver,
    gateway: &str,
) -> anyhow::Result<Value> {
    let started = Instant::now();
    for owner in Owner::ALL {
        let url = {
            let mut services = faults::lock(&lab.services);
            services.spawn(only(owner))?;
            services.url(only(owner))
        };
        wait_healthy(http, &url).await?;
    }
    let plan = fixtures::plan(options.results, options.tables, options.rounds);
    let world = fixtures::set_up(
        gateway,
        lab.admin_key(),
        &receiver.url,
        plan,
        options.tables,
    )
    .await?;
    receiver.set_key(
        catan_kit::webhooks::secret_key(&world.webhook_secret).map_err(anyhow::Error::msg)?,
    );
    let set_up = started.elapsed();
    eprintln!(
        "chaos: set up {} events of {} players in {:.1} s; posting {} results with {} clients",
        world.events.len(),
        options.tables * 4,
        set_up.as_secs_f64(),
        options.results,
        options.clients
    );

    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let schedule = faults::schedule(options.pg_restarts, options.kills, &mut rng);
    let planned_faults = schedule.len();
    let progress = Progress::new(faults::due(planned_faults, options.results));
    let cluster = lab.cluster.clone().context("no cluster")?;
    let targets = faults::Targets {
        cluster,
        services: lab.services.clone(),
    };
    let posting = Instant::now();
    let (submitted, faults_run) = tokio::try_join!(
        submit::run(
            &world,
            options.clients,
            options.client_retries,
            options.seed,
            &progress
        ),
        faults::run(schedule, options.results, &progress, &targets, &mut rng),
    )?;
    let posted = posting.elapsed();
    eprintln!(
        "chaos: {} tables answered in {:.1} s, {} faults",
        submitted.tickets.len(),
        posted.as_secs_f64(),
        faults_run.len()
    );

    let settling = Instant::now();
    for owner in Owner::ALL {
        let mut services = faults::lock(&lab.services);
        if let Some(status) = services.exited(only(owner)) {
            bail!("{owner:?} ended by itself: {status}");
        }
        drop(services);
    }
    let tickets = &submitted.tickets;
    let stored = checks::read_stored(&world.public, tickets).await?;
    let ledger = checks::ledger(tickets, &stored);
    eprintln!(
        "chaos: read {} tables' results and histories after {:.1} s",
        stored.len(),
        settling.elapsed().as_secs_f64()
    );
    let current: HashMap<TableKey, u32> = stored
        .iter()
        .filter_map(|s| s.current.as_ref())
        .map(|r| ((r.event_id, r.round, r.table), r.version))
        .collect();
    let feed = checks::feed(&world.public, &current).await?;
    eprintln!(
        "chaos: read the feed ({} items) after {:.1} s",
        feed.read,
        settling.elapsed().as_secs_f64()
    );
    let within = Duration::from_secs(options.settle_seconds);
    let caught_up = checks::settled(&world.public, within).await;
    eprintln!(
        "chaos: ranking caught up after {:.1} s",
        settling.elapsed().as_secs_f64()
    );
    let current_results: Vec<_> = stored.iter().filter_map(|s| s.current.as_ref()).collect();
    let standings = match &caught_up {
        Ok(_) => checks::standings(&world, &current_results).await?,
        Err(e) => vec![format!("{e:#}")],
    };
    let expected_hooks: HashSet<_> = stored
        .iter()
        .flat_map(|s| &s.history)
        .map(|r| (r.event_id, r.round, r.table, r.version))
        .collect();
    let (hooks_received, hooks_unexpected) =
        checks::webhooks(receiver, &expected_hooks, within).await;
    eprintln!(
        "chaos: {hooks_received} of {} webhooks after {:.1} s",
        expected_hooks.len(),
        settling.elapsed().as_secs_f64()
    );
    let outbox_left = checks::outbox(&lab.database_url, within).await?;
    eprintln!(
        "chaos: {outbox_left} outbox rows left after {:.1} s",
        settling.elapsed().as_secs_f64()
    );
    let settled = settling.elapsed();

    let all_answers = tickets.iter().flat_map(|t| {
        t.exchange
            .answers
            .iter()
            .chain(t.client_retries.iter().flat_map(|r| &r.answers))
    });
    let (answers, replayed) = submit::tally(all_answers);
    let (draw_answers, _) = submit::tally(submitted.draws.iter().flat_map(|d| &d.answers));
    let client_retries: usize = tickets.iter().map(|t| t.client_retries.len()).sum();
    let retry_disagreements: usize = tickets.iter().map(|t| t.retry_disagreements).sum();
    let internal_errors =
        answers.get("500").copied().unwrap_or(0) + draw_answers.get("500").copied().unwrap_or(0);
    let (deliveries, refused_deliveries, bad_deliveries, _) = receiver.counts();

    let mut violations = Vec::new();
    let mut violated = |holds: bool, what: String| {
        if !holds {
            violations.push(what);
        }
    };
    violated(
        ledger.acknowledged == options.results,
        format!(
            "{} of {} results acknowledged",
            ledger.acknowledged, options.results
        ),
    );
    violated(
        ledger.lost == 0,
        format!("{} acknowledged results lost", ledger.lost),
    );
    violated(
        ledger.duplicated == 0,
        format!("{} results stored twice", ledger.duplicated),
    );
    violated(
        ledger.stored_unacknowledged == 0,
        format!(
            "{} results stored that no client was told of",
            ledger.stored_unacknowledged
        ),
    );
    violated(
        feed.gaps == 0,
        format!("{} stored results missing from the feed", feed.gaps),
    );
    violated(
        feed.extra == 0,
        format!("{} feed items repeated or not stored", feed.extra),
    );
    violated(
        standings.is_empty(),
        format!("standings differ: {standings:?}"),
    );
    violated(
        hooks_received == expected_hooks.len(),
        format!(
            "{} of {} result.posted webhooks arrived",
            hooks_received,
            expected_hooks.len()
        ),
    );
    violated(
        hooks_unexpected == 0 && bad_deliveries == 0,
        format!(
            "{hooks_unexpected} webhooks of versions not stored, {bad_deliveries} deliveries that do not verify"
        ),
    );
    violated(outbox_left == 0, format!("{outbox_left} outbox rows left"));
    violated(
        faults_run.len() == planned_faults,
        format!("{} of {planned_faults} faults run", faults_run.len()),
    );
    violated(
        internal_errors == 0,
        format!("{internal_errors} answers were 500 (a database or peer outage is a 503)"),
    );
    violated(
        ledger.ran_twice == 0,
        format!(
            "{} posts were answered 200 (a try ran again instead of being replayed)",
            ledger.ran_twice
        ),
    );
    violated(
        ledger.refused == 0 && ledger.unanswered == 0,
        format!(
            "{} posts refused, {} given up without an answer",
            ledger.refused, ledger.unanswered
        ),
    );
    violated(
        retry_disagreements == 0,
        format!("{retry_disagreements} client retries were not answered with the first result"),
    );
    violated(
        submitted.draw_failures.is_empty(),
        format!("draws failed: {:?}", submitted.draw_failures),
    );
    for example in &ledger.examples {
        eprintln!("chaos: {example}");
    }
    let internal: Vec<&String> = tickets
        .iter()
        .flat_map(|t| std::iter::once(&t.exchange).chain(&t.client_retries))
        .chain(&submitted.draws)
        .flat_map(|e| &e.internal_errors)
        .collect();
    for request in internal.iter().take(20) {
        eprintln!("chaos: 500 to {request}");
    }

    Ok(json!({
        "results": options.results,
        "events": world.events.len(),
        "clients": options.clients,
        "acknowledged": ledger.acknowledged,
        "stored": ledger.stored,
        "lost": ledger.lost,
        "duplicated": ledger.duplicated,
        "stored_unacknowledged": ledger.stored_unacknowledged,
        "refused": ledger.refused,
        "unanswered": ledger.unanswered,
        "ran_twice": ledger.ran_twice,
        "retry_disagreements": retry_disagreements,
        "feed_read": feed.read,
        "feed_gaps": feed.gaps,
        "feed_extra": feed.extra,
        "standings_mismatches": standings.len(),
        "webhooks_expected": expected_hooks.len(),
        "webhooks_received": hooks_received,
        "webhook_deliveries": deliveries,
        "webhook_deliveries_refused": refused_deliveries,
        "outbox_left": outbox_left,
        "faults_run": faults_run.len(),
        "faults": faults_run,
        "answers": answers,
        "replayed": replayed,
        "client_retries": client_retries,
        "draw_answers": draw_answers,
        "phase_seconds": {
            "set_up": round1(set_up.as_secs_f64()),
            "posting": round1(posted.as_secs_f64()),
            "settle_and_check": round1(settled.as_secs_f64()),
        },
        "violations": violations,
    }))
}
