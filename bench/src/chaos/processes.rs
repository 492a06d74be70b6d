//! The four services as OS processes of their own (the harness's binary re-executed with the
//! hidden `serve` subcommand), each on a port it keeps across restarts, and its log in a file.

use super::serve::ServiceName;
use anyhow::{Context, bail};
use catan_suite::Owner;
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Registration first: the others fetch its token keys when they start.
pub const OWNERS: [Owner; 4] = [
    Owner::Registration,
    Owner::Pairing,
    Owner::Results,
    Owner::Ranking,
];

/// How long a service may take to answer its health probe after it was started.
const START_TIMEOUT: Duration = Duration::from_secs(60);

struct ServiceProcess {
    owner: Owner,
    port: u16,
    child: Option<Child>,
}

/// The services, their settings and their processes.
pub struct Services {
    exe: PathBuf,
    env: Vec<(String, String)>,
    log_dir: PathBuf,
    processes: Vec<ServiceProcess>,
}

impl Services {
    /// The services to run with the environment `env`, on `ports` (in [`OWNERS`]' order), their
    /// logs in `log_dir`. Nothing runs yet.
    pub fn new(
        env: Vec<(String, String)>,
        ports: [u16; 4],
        log_dir: &Path,
    ) -> anyhow::Result<Self> {
        let exe = std::env::current_exe().context("the harness's own binary")?;
        std::fs::create_dir_all(log_dir)?;
        Ok(Services {
            exe,
            env,
            log_dir: log_dir.to_path_buf(),
            processes: OWNERS
                .into_iter()
                .zip(ports)
                .map(|(owner, port)| ServiceProcess {
                    owner,
                    port,
                    child: None,
                })
                .collect(),
        })
    }

    /// The environment every service starts with from now on.
    pub fn set_env(&mut self, env: Vec<(String, String)>) {
        self.env = env;
    }

    fn process(&mut self, owner: Owner) -> anyhow::Result<&mut ServiceProcess> {
        self.processes
            .iter_mut()
            .find(|p| p.owner == owner)
            .context("no such service")
    }

    pub fn url(&self, owner: Owner) -> String {
        let port = self
            .processes
            .iter()
            .find(|p| p.owner == owner)
            .map_or(0, |p| p.port);
        format!("http://127.0.0.1:{port}")
    }

    /// The peers' URLs as each service reads them.
    pub fn peer_env(ports: [u16; 4]) -> Vec<(String, String)> {
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

    /// Starts the service's process (it answers its probe a moment later: [`wait_healthy`]).
    pub fn spawn(&mut self, owner: Owner) -> anyhow::Result<()> {
        let name = ServiceName::of(owner).as_str();
        let log_path = self.log_dir.join(format!("{name}.log"));
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .with_context(|| format!("{}", log_path.display()))?;
        let (exe, env) = (self.exe.clone(), self.env.clone());
        let process = self.process(owner)?;
        if process.child.is_some() {
            bail!("{name} is already running");
        }
        let child = Command::new(exe)
            .args(["serve", name])
            .envs(env)
            .env("HOST", "127.0.0.1")
            .env("PORT", process.port.to_string())
            .stdin(Stdio::piped())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {name}"))?;
        process.child = Some(child);
        Ok(())
    }

    /// SIGKILLs the service's process and reaps it.
    pub fn kill(&mut self, owner: Owner) -> anyhow::Result<()> {
        let process = self.process(owner)?;
        if let Some(mut child) = process.child.take() {
            // An error here means it had already ended: reaping it is all that is left.
            let _ = child.kill();
            child.wait()?;
        }
        Ok(())
    }

    /// Whether a service's process ended by itself (a crash at start, say): its exit status.
    pub fn exited(&mut self, owner: Owner) -> Option<std::process::ExitStatus> {
        let process = self.process(owner).ok()?;
        process.child.as_mut()?.try_wait().ok().flatten()
    }

    /// Kills every service: the harness's cleanup.
    pub fn kill_all(&mut self) {
        for owner in OWNERS {
            if let Err(e) = self.kill(owner) {
                eprintln!("chaos: could not stop {owner:?}: {e:#}");
            }
        }
    }

    /// The last `lines` lines of each service's log, for a report of what went wrong.
    pub fn log_tails(&self, lines: usize) -> String {
        let mut text = String::new();
        for owner in OWNERS {
            let name = ServiceName::of(owner).as_str();
            let log = std::fs::read_to_string(self.log_dir.join(format!("{name}.log")))
                .unwrap_or_default();
            let all: Vec<&str> = log.lines().collect();
            text.push_str(&format!("--- {name}.log (last {lines} lines)\n"));
            for line in &all[all.len().saturating_sub(lines)..] {
                text.push_str(line);
                text.push('\n');
            }
        }
        text
    }
}

/// Waits until `url`'s `/health` answers 200, for up to a minute.
pub async fn wait_healthy(http: &reqwest::Client, url: &str) -> anyhow::Result<Duration> {
    let started = Instant::now();
    loop {
        let probe = http
            .get(format!("{url}/health"))
            .timeout(Duration::from_secs(2))
            .send()
            .await;
        if probe.is_ok_and(|r| r.status().is_success()) {
            return Ok(started.elapsed());
        }
        if started.elapsed() > START_TIMEOUT {
            bail!("{url} did not answer its health probe in {START_TIMEOUT:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
