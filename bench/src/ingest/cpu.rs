//! Where the CPU went while posting (`--diagnose`), from `/proc` (Linux): this process (the suite
//! and the bench's clients), the PostgreSQL backends of the bench's database, and every other
//! PostgreSQL process of the machine (background writers, and other users of the server).

use crate::harness::{Bench, cpu_of_stat, round2};
use diesel::sql_types::Integer;
use diesel::{Connection, PgConnection, QueryableByName, RunQueryDsl};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// CPU seconds used so far by this process, and by each PostgreSQL process by its pid.
pub struct Seconds {
    at: Instant,
    process: f64,
    postgres: HashMap<u32, f64>,
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
            postgres,
        }
    }
}

/// Cores used on average over a window.
pub struct Used {
    process: f64,
    backends: f64,
    other_postgres: f64,
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
        for (pid, used) in &after.postgres {
            let used = used - before.postgres.get(pid).unwrap_or(&0.0);
            if backends.contains(pid) {
                ours += used;
            } else {
                others += used;
            }
        }
        Ok(Used {
            process: (after.process - before.process) / seconds,
            backends: ours / seconds,
            other_postgres: others / seconds,
            seconds,
        })
    }

    pub fn line(&self, results: usize) -> String {
        format!(
            "CPU over {:.2} s around the posting, in cores of 2: this process {:.2}, PostgreSQL backends of its database {:.2}, other PostgreSQL processes {:.2}; CPU ms a result: {:.2} here, {:.2} in the backends",
            self.seconds,
            self.process,
            self.backends,
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
            "cores_other_postgres": round2(self.other_postgres),
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
}

/// The pids of the PostgreSQL backends connected to the database of `database_url`.
async fn backends(database_url: String) -> anyhow::Result<HashSet<u32>> {
    let rows = tokio::task::spawn_blocking(move || {
        let mut conn = PgConnection::establish(&database_url)?;
        let rows: Vec<Backend> = diesel::sql_query(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .load(&mut conn)?;
        anyhow::Ok(rows)
    })
    .await??;
    Ok(rows
        .into_iter()
        .filter_map(|b| u32::try_from(b.pid).ok())
        .collect())
}
