//! Finding a PostgreSQL server for the suite: `DATABASE_URL`, else one at 127.0.0.1:5432, else a
//! private cluster under the project folder, started from the local PostgreSQL binaries.

use anyhow::{Context, bail};
use catan_kit::db;
use diesel::{Connection, PgConnection};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const DATABASE: &str = "catan";
/// `catan-suite demo` plays in a database of its own, made anew each run.
pub const DEMO_DATABASE: &str = "catan_demo";
/// Loopback connections skip TLS: it would only cost CPU on both ends.
const LOCAL_SERVER: &str = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable";
const PRIVATE_PORT: u16 = 5433;

/// The URL of database `name` (created if missing; dropped and made anew when `fresh`) on the
/// server `configured` (`DATABASE_URL`) names (its database name is used for the suite's own
/// database), else the local one.
pub fn resolve(
    data_dir: &Path,
    configured: Option<&str>,
    name: &str,
    fresh: bool,
) -> anyhow::Result<String> {
    let (server, name) = match configured.map(str::to_owned).ok_or(()) {
        Ok(url) if name == DATABASE => {
            let own = url
                .rsplit('/')
                .next()
                .and_then(|tail| tail.split('?').next())
                .filter(|n| !n.is_empty())
                .unwrap_or(DATABASE)
                .to_string();
            (url, own)
        }
        Ok(url) => (url, name.to_string()),
        Err(_) if PgConnection::establish(LOCAL_SERVER).is_ok() => {
            (LOCAL_SERVER.to_string(), name.to_string())
        }
        Err(_) => (start_private_cluster(data_dir)?, name.to_string()),
    };
    let admin_url = db::replace_database(&server, "postgres");
    ensure_database(&admin_url, &name, fresh)?;
    Ok(db::replace_database(&server, &name))
}

fn ensure_database(admin_url: &str, name: &str, fresh: bool) -> anyhow::Result<()> {
    if fresh {
        let mut conn = PgConnection::establish(admin_url)?;
        diesel::RunQueryDsl::execute(
            diesel::sql_query(format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)")),
            &mut conn,
        )?;
    }
    if !db::database_exists(admin_url, name)? {
        db::create_database(admin_url, name, None)?;
        tracing::info!(database = name, "created the database");
    }
    Ok(())
}

/// The newest local PostgreSQL's binaries.
fn binaries() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists() && bin.join("pg_ctl").exists())
        .collect();
    found.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    found.pop()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"))
}

/// PostgreSQL refuses to run as root: then its commands run as the `postgres` user.
fn pg_command(bin: &Path, tool: &str) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin.join(tool));
        c
    } else {
        Command::new(bin.join(tool))
    }
}

fn start_private_cluster(data_dir: &Path) -> anyhow::Result<String> {
    let Some(bin) = binaries() else {
        bail!(
            "no PostgreSQL server answers at 127.0.0.1:5432 and no PostgreSQL binaries were found under /usr/lib/postgresql.\n\
             Install PostgreSQL (Debian/Ubuntu: apt-get install postgresql) or set DATABASE_URL to a server you have."
        );
    };
    std::fs::create_dir_all(data_dir)?;
    let data_dir = data_dir.canonicalize()?;
    if is_root() {
        Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&data_dir)
            .status()?;
    }
    if !data_dir.join("PG_VERSION").exists() {
        let ok = pg_command(&bin, "initdb")
            // UTF-8 whatever the machine's locale: player search folds names with normalize().
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-locale",
                "-D",
            ])
            .arg(&data_dir)
            .status()
            .context("initdb")?
            .success();
        if !ok {
            bail!("initdb failed for {}", data_dir.display());
        }
    }
    let options = format!(
        "-p {PRIVATE_PORT} -k {} -c listen_addresses=127.0.0.1",
        data_dir.display()
    );
    let status = pg_command(&bin, "pg_ctl")
        .arg("-D")
        .arg(&data_dir)
        .args(["-o", &options, "-l"])
        .arg(data_dir.join("server.log"))
        .args(["-w", "start"])
        .status()
        .context("pg_ctl start")?;
    let url = format!("postgres://postgres@127.0.0.1:{PRIVATE_PORT}/postgres?sslmode=disable");
    if !status.success() && PgConnection::establish(&url).is_err() {
        bail!(
            "could not start PostgreSQL in {}; see its server.log",
            data_dir.display()
        );
    }
    tracing::info!(data_dir = %data_dir.display(), port = PRIVATE_PORT, "started a private PostgreSQL cluster");
    Ok(url)
}
