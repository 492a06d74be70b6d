//! Where the CPU went while posting (`--diagnose`), from `/proc` (Linux): this process (the suite
//! and the bench's clients), the PostgreSQL backends of the bench's database, and every other
//! PostgreSQL process of the machine (background writers, and other users of the server).

use crate::harness::{Bench, cpu_of_stat, round2};
use diesel::sql_types::{Integer, Text};
use diesel::{Connection, PgConnection, QueryableByName, RunQueryDsl};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

/// CPU seconds used so far by this process, by each of its threads, and by each PostgreSQL
/// process by its pid.
pub struct Seconds {
    at: Instant,
    process: f64,
    threads: HashMap<u32, Thread>,
    postgres: HashMap<u32, f64>,
}

/// A thread of this process: its kind (its name without its number), and the seconds it ran and
/// waited for a core so far (its `schedstat`, in nanoseconds, finer than `stat`'s ticks).
struct Thread {
    kind: String,
    ran: f64,
    waited: f64,
}

impl Thread {
    fn of(task: &std::path::Path) -> Option<Thread> {
        let name = std::fs::read_to_string(task.join("comm")).ok()?;
        let schedstat = std::fs::read_to_string(task.join("schedstat")).ok()?;
        let mut fields = schedstat.split_whitespace().map(str::parse::<f64>);
        let (ran, waited) = (fields.next()?.ok()?, fields.next()?.ok()?);
        // Threads of one kind are counted together: "r2d2-worker-0", "r2d2-worker-1".
        let kind = name
            .trim_end()
            .trim_end_matches(|c: char| c.is_ascii_digit() || c == '-');
        Some(Thread {
            kind: kind.to_owned(),
            ran: ran / 1e9,
            waited: waited / 1e9,
        })
    }

    fn all() -> HashMap<u32, Thread> {
        std::fs::read_dir("/proc/self/task")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|task| {
                let tid = task.file_name().to_str()?.parse().ok()?;
                Some((tid, Thread::of(&task.path())?))
            })
            .collect()
    }
}

impl Seconds {
    pub fn now() -> Seconds {
        let process = std::fs::read_to_string("/proc/self/stat")
            .ok()
            .and_then(|stat| cpu_of_stat(&stat))
            .map_or(0.0, |(_, seconds)| seconds);
        let mut postgres = HashMap::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            if let Ok(stat) = std::fs::read_to_string(entry.path().join("stat"))
                && let Some((name, seconds)) = cpu_of_stat(&stat)
                && name == "postgres"
            {
                postgres.insert(pid, seconds);
            }
        }
        Seconds {
            at: Instant::now(),
            process,
            threads: Thread::all(),
            postgres,
        }
    }
}

/// Cores used on average over a window.
pub struct Used {
    process: f64,
    backends: f64,
    /// The backends' share by the service whose session each is (its `application_name`).
    by_service: BTreeMap<String, f64>,
    other_postgres: f64,
    /// This process's threads by kind: cores they ran on, and cores' worth of waiting for one.
    by_thread: BTreeMap<String, (f64, f64)>,
    seconds: f64,
}

impl Used {
    /// The cores used from `before` until now. A PostgreSQL process that ended meanwhile is not
    /// counted; one that began is counted whole.
    pub async fn since(before: &Seconds, bench: &Bench) -> anyhow::Result<Used> {
        let after = Seconds::now();
        let seconds = after.at.duration_since(before.at).as_secs_f64();
        let backends = backends(bench.database_url.clone()).await?;
        let (mut ours, mut others) = (0.0, 0.0);
        let mut by_service = BTreeMap::new();
        for (pid, used) in &after.postgres {
            let used = used - before.postgres.get(pid).unwrap_or(&0.0);
            if let Some(service) = backends.get(pid) {
                ours += used;
                *by_service.entry(service.clone()).or_insert(0.0) += used / seconds;
            } else {
                others += used;
            }
        }
        let mut by_thread = BTreeMap::new();
        for (tid, thread) in &after.threads {
            let (ran, waited) = before
                .threads
                .get(tid)
                .map_or((0.0, 0.0), |t| (t.ran, t.waited));
            let kind: &mut (f64, f64) = by_thread.entry(thread.kind.clone()).or_default();
            kind.0 += (thread.ran - ran) / seconds;
            kind.1 += (thread.waited - waited) / seconds;
        }
        Ok(Used {
            process: (after.process - before.process) / seconds,
            backends: ours / seconds,
            by_service,
            other_postgres: others / seconds,
            by_thread,
            seconds,
        })
    }

    pub fn line(&self, results: usize) -> String {
        let by_service: Vec<String> = self
            .by_service
            .iter()
            .map(|(service, cores)| format!("{service} {cores:.2}"))
            .collect();
        let by_thread: Vec<String> = self
            .by_thread
            .iter()
            .filter(|(_, (ran, waited))| ran + waited >= 0.005)
            .map(|(kind, (ran, waited))| format!("{kind} {ran:.2} (waiting {waited:.2})"))
            .collect();
        format!(
            "CPU over {:.2} s around the posting, in cores of 2: this process {:.2} ({}), PostgreSQL backends of its database {:.2} ({}), other PostgreSQL processes {:.2}; CPU ms a result: {:.2} here, {:.2} in the backends",
            self.seconds,
            self.process,
            by_thread.join(", "),
            self.backends,
            by_service.join(", "),
            self.other_postgres,
            self.ms_a_result(self.process, results),
            self.ms_a_result(self.backends, results),
        )
    }

    pub fn json(&self, results: usize) -> Value {
        json!({
            "seconds": round2(self.seconds),
            "cores_process": round2(self.process),
            "cores_backends": round2(self.backends),
            "cores_backends_by_service": self
                .by_service
                .iter()
                .map(|(service, cores)| (service.clone(), json!(round2(*cores))))
                .collect::<serde_json::Map<_, _>>(),
            "cores_other_postgres": round2(self.other_postgres),
            "cores_process_by_thread": self
                .by_thread
                .iter()
                .map(|(kind, (ran, waited))| {
                    (kind.clone(), json!({"ran": round2(*ran), "waiting": round2(*waited)}))
                })
                .collect::<serde_json::Map<_, _>>(),
            "ms_a_result_process": round2(self.ms_a_result(self.process, results)),
            "ms_a_result_backends": round2(self.ms_a_result(self.backends, results)),
        })
    }

    fn ms_a_result(&self, cores: f64, results: usize) -> f64 {
        cores * self.seconds * 1000.0 / results.max(1) as f64
    }
}

#[derive(QueryableByName)]
struct Backend {
    #[diesel(sql_type = Integer)]
    pid: i32,
    #[diesel(sql_type = Text)]
    service: String,
}

/// The PostgreSQL backends connected to the database of `database_url`, by pid, with the service
/// whose session each is ("bench" for the harness's own).
async fn backends(database_url: String) -> anyhow::Result<HashMap<u32, String>> {
    let rows = tokio::task::spawn_blocking(move || {
        let mut conn = PgConnection::establish(&database_url)?;
        let rows: Vec<Backend> = diesel::sql_query(
            "SELECT pid, coalesce(nullif(application_name, ''), 'bench') AS service FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .load(&mut conn)?;
        anyhow::Ok(rows)
    })
    .await??;
    Ok(rows
        .into_iter()
        .filter_map(|b| Some((u32::try_from(b.pid).ok()?, b.service)))
        .collect())
}
