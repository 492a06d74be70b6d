//! Finding a PostgreSQL server for the suite: `DATABASE_URL`, else one at 127.0.0.1:5432, else a
//! private cluster under the project folder, started from the local PostgreSQL binaries
//! ([`PrivateCluster`], which `catan-bench chaos` also starts, stops and restarts).

use anyhow::{Context, bail};
use catan_kit::db;
use diesel::{Connection, PgConnection};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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

/// PostgreSQL refuses to run as root: then its commands run as the `postgres` user. Their own
/// output goes to stderr, so that a command whose stdout is its answer (a JSON report) keeps it.
fn pg_command(bin: &Path, tool: &str) -> Command {
    let mut command = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin.join(tool));
        c
    } else {
        Command::new(bin.join(tool))
    };
    if let Ok(stderr) = std::io::stderr().as_fd().try_clone_to_owned() {
        command.stdout(Stdio::from(stderr));
    }
    command
}

fn start_private_cluster(data_dir: &Path) -> anyhow::Result<String> {
    let cluster = PrivateCluster::init(data_dir, PRIVATE_PORT)
        .context("no PostgreSQL server answers at 127.0.0.1:5432")?;
    cluster.start()?;
    tracing::info!(data_dir = %cluster.data_dir.display(), port = PRIVATE_PORT, "started a private PostgreSQL cluster");
    Ok(cluster.url())
}

/// How `pg_ctl stop` ends the server (`-m`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopMode {
    /// Disconnects the clients, rolling back their transactions, and shuts down cleanly.
    Fast,
    /// Ends every process at once, as a crash would: the next start recovers from the WAL.
    Immediate,
}

impl StopMode {
    pub fn as_str(self) -> &'static str {
        match self {
            StopMode::Fast => "fast",
            StopMode::Immediate => "immediate",
        }
    }
}

/// A PostgreSQL cluster of its own in a data folder, listening on one port of 127.0.0.1 (and a
/// socket in its folder), run from the local binaries as the `postgres` user when we are root.
/// Nothing stops it on drop: [`PrivateCluster::stop`] does.
#[derive(Debug, Clone)]
pub struct PrivateCluster {
    bin: PathBuf,
    data_dir: PathBuf,
    port: u16,
}

impl PrivateCluster {
    /// The cluster in `data_dir` (made with initdb if it has none yet), to serve on `port`.
    pub fn init(data_dir: &Path, port: u16) -> anyhow::Result<PrivateCluster> {
        let Some(bin) = binaries() else {
            bail!(
                "no PostgreSQL binaries were found under /usr/lib/postgresql.\n\
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
        Ok(PrivateCluster {
            bin,
            data_dir,
            port,
        })
    }

    /// The URL of its `postgres` database (loopback: no TLS).
    pub fn url(&self) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{}/postgres?sslmode=disable",
            self.port
        )
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Starts the server and waits until it accepts connections (a server already running is
    /// fine); its log is `server.log` in the data folder.
    pub fn start(&self) -> anyhow::Result<()> {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.data_dir.display()
        );
        let status = pg_command(&self.bin, "pg_ctl")
            .arg("-D")
            .arg(&self.data_dir)
            .args(["-o", &options, "-l"])
            .arg(self.data_dir.join("server.log"))
            .args(["-w", "start"])
            .status()
            .context("pg_ctl start")?;
        if !status.success() && PgConnection::establish(&self.url()).is_err() {
            bail!(
                "could not start PostgreSQL in {}; see its server.log",
                self.data_dir.display()
            );
        }
        Ok(())
    }

    /// Stops the server the `mode` way and waits until it is down.
    pub fn stop(&self, mode: StopMode) -> anyhow::Result<()> {
        let status = pg_command(&self.bin, "pg_ctl")
            .arg("-D")
            .arg(&self.data_dir)
            .args(["-m", mode.as_str(), "-w", "stop"])
            .status()
            .context("pg_ctl stop")?;
        if !status.success() {
            bail!("pg_ctl stop -m {} failed", mode.as_str());
        }
        Ok(())
    }
}
