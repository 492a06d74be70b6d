//! The reference of the ingestion benchmark: what PostgreSQL itself does with the same write at the
//! same concurrency. pgbench, against the same server, in a scratch database of its own, runs one
//! transaction a result: one row of a `results` table plus one row a player of a `scores` table,
//! shaped like the results service's (an event's uuid, the round, the table, the sheet as jsonb;
//! a player's uuid and VP).

use anyhow::{Context, bail};
use catan_api::SubmitResult;
use diesel::{Connection, PgConnection, connection::SimpleConnection};
use std::process::Stdio;
use std::time::Duration;
use uuid::Uuid;

const SCHEMA: &str = "
    CREATE SEQUENCE table_numbers;
    CREATE TABLE results (
        event_id uuid NOT NULL,
        round integer NOT NULL,
        table_number integer NOT NULL,
        sheet jsonb NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (event_id, round, table_number)
    );
    CREATE TABLE scores (
        event_id uuid NOT NULL,
        round integer NOT NULL,
        table_number integer NOT NULL,
        player_id uuid NOT NULL,
        vp integer NOT NULL,
        PRIMARY KEY (event_id, round, table_number, player_id)
    );
";

/// pgbench's transactions a second (without the time to connect) over `seconds` with `clients`
/// connections, each transaction one result and its scores as `sheet`, in a scratch database on
/// `server_url` that it creates and drops.
pub async fn tps(
    server_url: &str,
    clients: usize,
    seconds: u64,
    sheet: &SubmitResult,
) -> anyhow::Result<f64> {
    let database = format!("catan_bench_pgbench_{}", Uuid::new_v4().simple());
    let created = with_results_tables(server_url, &database).await;
    let outcome = match created {
        Ok(url) => run(&url, clients, seconds, sheet).await,
        Err(e) => Err(e.context("pgbench's scratch database")),
    };
    crate::harness::drop_database(server_url, &database).await;
    outcome
}

/// Creates `database` on `server_url` with the two tables of [`SCHEMA`]: its URL.
pub(super) async fn with_results_tables(
    server_url: &str,
    database: &str,
) -> anyhow::Result<String> {
    let (server, name) = (server_url.to_owned(), database.to_owned());
    tokio::task::spawn_blocking(move || {
        let url = catan_kit::db::create_database(&server, &name, None)?;
        PgConnection::establish(&url)?.batch_execute(SCHEMA)?;
        anyhow::Ok(url)
    })
    .await?
}

async fn run(
    database_url: &str,
    clients: usize,
    seconds: u64,
    sheet: &SubmitResult,
) -> anyhow::Result<f64> {
    let script = std::env::temp_dir().join(format!("catan-bench-{}.sql", Uuid::new_v4().simple()));
    std::fs::write(&script, transaction(Uuid::new_v4(), sheet)?)?;
    let threads = clients.clamp(1, 2);
    let child = tokio::process::Command::new("pgbench")
        .args(["-n", "-c", &clients.to_string(), "-j", &threads.to_string()])
        .args(["-T", &seconds.to_string(), "-f"])
        .arg(&script)
        .arg(database_url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .context("pgbench (from the PostgreSQL client tools) on the PATH")?;
    let finished =
        tokio::time::timeout(Duration::from_secs(seconds + 60), child.wait_with_output()).await;
    let _ = std::fs::remove_file(&script);
    let output = finished.context("pgbench did not end in time")??;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "pgbench failed ({}): {}{stdout}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    if let Some(failed) = failed_transactions(&stdout)
        && failed > 0
    {
        bail!("pgbench: {failed} transactions failed:\n{stdout}");
    }
    parse_tps(&stdout).with_context(|| format!("no tps in pgbench's output:\n{stdout}"))
}

/// pgbench's script: one transaction, the result's row (a new table number each time) and its
/// players' rows, as the results service writes them.
fn transaction(event_id: Uuid, sheet: &SubmitResult) -> anyhow::Result<String> {
    // JSON of uuids, numbers and fixed words: no quote to escape, but escaped all the same.
    let json = serde_json::to_string(sheet)?.replace('\'', "''");
    let scores: Vec<String> = sheet
        .scores
        .iter()
        .map(|s| {
            format!(
                "('{event_id}', 1, :table_number, '{}', {})",
                s.player_id, s.vp
            )
        })
        .collect();
    Ok(format!(
        "BEGIN;\n\
         INSERT INTO results (event_id, round, table_number, sheet) VALUES ('{event_id}', 1, nextval('table_numbers'), '{json}') RETURNING table_number \\gset\n\
         INSERT INTO scores (event_id, round, table_number, player_id, vp) VALUES {};\n\
         END;\n",
        scores.join(", ")
    ))
}

/// The transactions a second of pgbench's report, without the time to connect: PostgreSQL 14 and
/// later say `tps = N (without initial connection time)`, earlier ones
/// `tps = N (excluding connections establishing)`.
fn parse_tps(output: &str) -> Option<f64> {
    output.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("tps = ")?;
        let (number, what) = rest.split_once(' ')?;
        (what.contains("without initial connection time")
            || what.contains("excluding connections establishing"))
        .then(|| number.parse().ok())
        .flatten()
    })
}

/// The failed transactions pgbench reports (PostgreSQL 15 and later), if it does.
fn failed_transactions(output: &str) -> Option<u64> {
    output.lines().find_map(|line| {
        let rest = line
            .trim()
            .strip_prefix("number of failed transactions: ")?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PG15: &str = "\
pgbench (15.20 (Debian 15.20-0+deb12u1))
transaction type: /tmp/catan-bench.sql
scaling factor: 1
query mode: simple
number of clients: 8
number of threads: 2
maximum number of tries: 1
duration: 5 s
number of transactions actually processed: 10822
number of failed transactions: 0 (0.000%)
latency average = 3.691 ms
initial connection time = 12.771 ms
tps = 2167.405937 (without initial connection time)
";

    const PG13: &str = "\
number of transactions actually processed: 10822
latency average = 3.691 ms
tps = 2150.114055 (including connections establishing)
tps = 2167.405937 (excluding connections establishing)
";

    #[test]
    fn the_tps_is_the_one_without_the_time_to_connect() {
        assert_eq!(parse_tps(PG15), Some(2167.405937));
        assert_eq!(parse_tps(PG13), Some(2167.405937));
        assert_eq!(parse_tps("pgbench: error: connection failed\n"), None);
    }

    #[test]
    fn failed_transactions_are_read_when_reported() {
        assert_eq!(failed_transactions(PG15), Some(0));
        assert_eq!(
            failed_transactions("number of failed transactions: 3 (0.030%)\n"),
            Some(3)
        );
        assert_eq!(failed_transactions(PG13), None);
    }
}
