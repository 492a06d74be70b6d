//! The services as OS processes of their own (a binary re-executed with its hidden `serve`
//! subcommand, see [`crate::serve`]): any number of replicas of each, each on a port it keeps
//! across restarts. The replica launcher (`catan-suite up --replicas N`) and the chaos harness
//! (`catan-bench chaos`) both run them.

use crate::Owner;
use crate::serve::ServiceName;
use anyhow::{Context, bail};
use std::fmt;
use std::fs::OpenOptions;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// `n` different ports of 127.0.0.1, free now, for replicas that keep theirs across restarts.
/// They are taken below the kernel's range of ports for outgoing connections: while a replica is
/// down, any process's outgoing connection could otherwise get its port as its own, and the
/// replica's restart would find the port in use (seen once in a chaos run).
pub fn kept_ports(n: usize) -> anyhow::Result<Vec<u16>> {
    let first_outgoing = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    let lowest = 10_000.min(first_outgoing / 2);
    let span = first_outgoing - lowest;
    // From a random place, so that launchers started at once seldom try the same ports.
    let start = rand::random_range(0..span);
    let mut ports = Vec::with_capacity(n);
    for step in 0..span {
        let port = lowest + (start + step) % span;
        if ports.len() == n {
            break;
        }
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            ports.push(port);
        }
    }
    if ports.len() < n {
        bail!("fewer than {n} free ports below {first_outgoing}");
    }
    Ok(ports)
}

/// How long a service may take to answer its health probe after it was started.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// One replica of one service: `index` counts from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReplicaId {
    pub owner: Owner,
    pub index: usize,
}

impl fmt::Display for ReplicaId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", ServiceName::of(self.owner).as_str(), self.index)
    }
}

/// Where the processes' output goes.
pub enum Output {
    /// To the launcher's own stdout and stderr (the admin key a first start prints included).
    Inherited,
    /// To a file per replica in this folder, `<service>-<index>.log`.
    Files(PathBuf),
}

struct ReplicaProcess {
    id: ReplicaId,
    port: u16,
    child: Option<Child>,
}

/// The replicas, their settings and their processes.
pub struct Processes {
    exe: PathBuf,
    env: Vec<(String, String)>,
    output: Output,
    replicas: Vec<ReplicaProcess>,
}

impl Processes {
    /// The replicas to run from the binary `exe` (which has the `serve` subcommand) with the
    /// environment `env` (over the launcher's own), each on its port. Nothing runs yet.
    pub fn new(
        exe: PathBuf,
        env: Vec<(String, String)>,
        replicas: impl IntoIterator<Item = (ReplicaId, u16)>,
        output: Output,
    ) -> anyhow::Result<Self> {
        if let Output::Files(dir) = &output {
            std::fs::create_dir_all(dir)?;
        }
        Ok(Processes {
            exe,
            env,
            output,
            replicas: replicas
                .into_iter()
                .map(|(id, port)| ReplicaProcess {
                    id,
                    port,
                    child: None,
                })
                .collect(),
        })
    }

    /// The environment every replica starts with from now on.
    pub fn set_env(&mut self, env: Vec<(String, String)>) {
        self.env = env;
    }

    /// Every replica, in the order they were given.
    pub fn ids(&self) -> Vec<ReplicaId> {
        self.replicas.iter().map(|r| r.id).collect()
    }

    fn replica(&mut self, id: ReplicaId) -> anyhow::Result<&mut ReplicaProcess> {
        self.replicas
            .iter_mut()
            .find(|r| r.id == id)
            .with_context(|| format!("no replica {id}"))
    }

    /// The replica's base URL.
    pub fn url(&self, id: ReplicaId) -> String {
        let port = self
            .replicas
            .iter()
            .find(|r| r.id == id)
            .map_or(0, |r| r.port);
        format!("http://127.0.0.1:{port}")
    }

    /// The replica's process id while it runs.
    pub fn pid(&self, id: ReplicaId) -> Option<u32> {
        self.replicas
            .iter()
            .find(|r| r.id == id)
            .and_then(|r| r.child.as_ref())
            .map(Child::id)
    }

    /// Starts the replica's process (it answers its probe a moment later: [`wait_healthy`]).
    pub fn spawn(&mut self, id: ReplicaId) -> anyhow::Result<()> {
        let name = ServiceName::of(id.owner).as_str();
        let (stdout, stderr) = match &self.output {
            Output::Inherited => (Stdio::inherit(), Stdio::inherit()),
            Output::Files(dir) => {
                let path = dir.join(format!("{name}-{}.log", id.index));
                let log = OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .with_context(|| format!("{}", path.display()))?;
                (Stdio::from(log.try_clone()?), Stdio::from(log))
            }
        };
        let (exe, env) = (self.exe.clone(), self.env.clone());
        let replica = self.replica(id)?;
        if replica.child.is_some() {
            bail!("{id} is already running");
        }
        let child = Command::new(exe)
            .args(["serve", name])
            .envs(env)
            .env("HOST", "127.0.0.1")
            .env("PORT", replica.port.to_string())
            // Held open by this process: the replica ends when it does (see `serve`).
            .stdin(Stdio::piped())
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .with_context(|| format!("starting {id}"))?;
        replica.child = Some(child);
        Ok(())
    }

    /// SIGKILLs the replica's process and reaps it.
    pub fn kill(&mut self, id: ReplicaId) -> anyhow::Result<()> {
        let replica = self.replica(id)?;
        if let Some(mut child) = replica.child.take() {
            // An error here means it had already ended: reaping it is all that is left.
            let _ = child.kill();
            child.wait()?;
        }
        Ok(())
    }

    /// Whether the replica's process ended by itself (a crash, a kill from outside): its exit
    /// status. It is reaped: [`Processes::spawn`] starts it again.
    pub fn exited(&mut self, id: ReplicaId) -> Option<ExitStatus> {
        let replica = self.replica(id).ok()?;
        let status = replica.child.as_mut()?.try_wait().ok().flatten()?;
        replica.child = None;
        Some(status)
    }

    /// Kills every replica: the launcher's cleanup.
    pub fn kill_all(&mut self) {
        for id in self.ids() {
            if let Err(e) = self.kill(id) {
                eprintln!("could not stop {id}: {e:#}");
            }
        }
    }

    /// The last `lines` lines of each replica's log (with [`Output::Files`]), for a report of
    /// what went wrong.
    pub fn log_tails(&self, lines: usize) -> String {
        let Output::Files(dir) = &self.output else {
            return String::new();
        };
        let mut text = String::new();
        for replica in &self.replicas {
            let name = format!(
                "{}-{}.log",
                ServiceName::of(replica.id.owner).as_str(),
                replica.id.index
            );
            let log = std::fs::read_to_string(dir.join(&name)).unwrap_or_default();
            let all: Vec<&str> = log.lines().collect();
            text.push_str(&format!("--- {name} (last {lines} lines)\n"));
            for line in &all[all.len().saturating_sub(lines)..] {
                text.push_str(line);
                text.push('\n');
            }
        }
        text
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        self.kill_all();
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
