//! `catan-suite up --replicas N`: N OS processes of every service over one PostgreSQL. Each
//! service's replicas sit behind an entrance of their own, where the other services reach them
//! (as a Kubernetes Service), and behind the gateway, which takes them in turn and skips one that
//! is down; the web app runs in the launcher. A replica that ends is started again on its port.

use crate::Owner;
use crate::gateway::{self, Balancer, Upstreams};
use crate::processes::{Output, Processes, ReplicaId, kept_ports, wait_healthy};
use anyhow::Context;
use catan_kit::Settings;
use catan_kit::server::{RunningServer, bind};
use catan_kit::settings::ExposeSecret;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How often the launcher looks for replicas that ended.
const WATCH_INTERVAL: Duration = Duration::from_millis(250);
/// A replica that ran at least this long is started again at once; one that ended sooner waits,
/// twice as long each time, up to [`LONGEST_RESTART_WAIT`], so that a replica that cannot start
/// does not spin.
const STEADY_RUN: Duration = Duration::from_secs(10);
const FIRST_RESTART_WAIT: Duration = Duration::from_secs(1);
const LONGEST_RESTART_WAIT: Duration = Duration::from_secs(60);

/// The running replicas, their entrances, the gateway and the web app.
pub struct ReplicatedSuite {
    replicas: usize,
    processes: Processes,
    entrances: Vec<(Owner, RunningServer)>,
    gateway: RunningServer,
    web: RunningServer,
    /// The limits each replica was given, for the banner.
    limits: Vec<(&'static str, String)>,
}

impl ReplicatedSuite {
    /// Starts `replicas` processes of every service (the binary `exe`, which has the `serve`
    /// subcommand, with `settings` over the environment), their entrances, the gateway on
    /// `gateway_addr` and the web app. Returns once every replica answers its health probe.
    pub async fn start(
        settings: Settings,
        replicas: usize,
        exe: PathBuf,
        gateway_addr: &str,
    ) -> anyhow::Result<ReplicatedSuite> {
        let replicas = replicas.max(1);
        let settings = crate::with_internal_secrets(settings);
        let gateway_listener = bind(gateway_addr)?;
        let web_listener = bind("127.0.0.1:0")?;
        let gateway_url = format!("http://{}", gateway_listener.local_addr()?);
        let mut ports = kept_ports(Owner::ALL.len() * replicas)?.into_iter();
        let mut ids = Vec::new();
        for owner in Owner::ALL {
            for index in 1..=replicas {
                let port = ports.next().context("a port for each replica")?;
                ids.push((ReplicaId { owner, index }, port));
            }
        }
        let urls_of = |owner: Owner| -> Vec<String> {
            ids.iter()
                .filter(|(id, _)| id.owner == owner)
                .map(|(_, port)| format!("http://127.0.0.1:{port}"))
                .collect()
        };
        let balancer = Balancer::new(Upstreams {
            registration: urls_of(Owner::Registration),
            pairing: urls_of(Owner::Pairing),
            results: urls_of(Owner::Results),
            ranking: urls_of(Owner::Ranking),
            web: Some(format!("http://{}", web_listener.local_addr()?)),
        });
        let mut entrances = Vec::new();
        for owner in Owner::ALL {
            let listener = bind("127.0.0.1:0")?;
            entrances.push((
                owner,
                gateway::start_entrance(listener, owner, balancer.clone())?,
            ));
        }
        let entrance = |owner: Owner| {
            entrances
                .iter()
                .find(|(o, _)| *o == owner)
                .map(|(_, server)| server.url())
                .unwrap_or_default()
        };
        let mut env = vec![
            (
                "DATABASE_URL".to_owned(),
                settings.database.url().to_owned(),
            ),
            ("REGISTRATION_URL".to_owned(), entrance(Owner::Registration)),
            ("PAIRING_URL".to_owned(), entrance(Owner::Pairing)),
            ("RESULTS_URL".to_owned(), entrance(Owner::Results)),
            ("RANKING_URL".to_owned(), entrance(Owner::Ranking)),
        ];
        let secrets = [
            ("CATAN_INTERNAL_KEY", &settings.webhooks.internal_key),
            ("CATAN_PROXY_SECRET", &settings.clients.proxy_secret),
            ("CATAN_PIN_KEY", &settings.tokens.pin_key),
            ("CATAN_ADMIN_KEY", &settings.tokens.admin_key),
        ];
        for (name, secret) in secrets {
            if let Some(secret) = secret {
                env.push((name.to_owned(), secret.expose_secret().to_owned()));
            }
        }
        if let Some(url) = &settings.public_url {
            env.push(("CATAN_PUBLIC_URL".to_owned(), url.to_string()));
        }
        let limits = settings.limit_vars_per_replica(replicas);
        env.extend(limits.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        let mut processes = Processes::new(exe, env, ids, Output::Inherited)?;
        start_replicas(&mut processes).await?;
        // The gateway probes the replicas from now on: they all answer.
        let gateway = gateway::start_balanced(
            gateway_listener,
            balancer,
            catan_kit::client::ProxyTrust::new(settings.clients.proxy_secret.clone()),
        )?;
        // As in one process: the web app passes each visitor's address on with the secret.
        let web = catan_web::start(
            web_listener,
            &gateway_url,
            catan_kit::client::ProxyTrust::new(settings.clients.proxy_secret.clone()),
            catan_web::SessionKey::from_env(),
            settings.public_url.clone(),
        )?;
        Ok(ReplicatedSuite {
            replicas,
            processes,
            entrances,
            gateway,
            web,
            limits,
        })
    }

    /// The base URL of the whole v1 API.
    pub fn url(&self) -> String {
        self.gateway.url()
    }

    /// What the launcher prints once everything answers: each replica's process and address, the
    /// entrances, and the limits each replica keeps.
    pub fn banner(&self) -> String {
        let mut text = format!(
            "{} replicas of each service, each an OS process of its own:\n",
            self.replicas
        );
        for id in self.processes.ids() {
            let pid = self
                .processes
                .pid(id)
                .map_or_else(|| "-".to_owned(), |pid| pid.to_string());
            text.push_str(&format!(
                "  {id}: pid {pid} on {}\n",
                self.processes.url(id)
            ));
        }
        let entrances: Vec<String> = self
            .entrances
            .iter()
            .map(|(owner, server)| {
                format!(
                    "{} {}",
                    crate::serve::ServiceName::of(*owner).as_str(),
                    server.url()
                )
            })
            .collect();
        text.push_str(&format!(
            "  the services call each other through: {}\n",
            entrances.join(", ")
        ));
        let limits: Vec<String> = self
            .limits
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        text.push_str(&format!(
            "  limits of each replica (the totals / {}): {}\n",
            self.replicas,
            limits.join(" ")
        ));
        text
    }

    /// Runs until the process is told to stop (Ctrl-C or SIGTERM), starting again every replica
    /// that ends; then stops everything.
    pub async fn wait(mut self) -> anyhow::Result<()> {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        let mut watch = tokio::time::interval(WATCH_INTERVAL);
        let mut restarts = Restarts::default();
        for id in self.processes.ids() {
            restarts.started(id);
        }
        loop {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => break,
                _ = terminate.recv() => break,
                _ = watch.tick() => self.restart_ended(&mut restarts),
            }
        }
        self.stop().await;
        Ok(())
    }

    /// Starts again each replica that ended and whose wait is over.
    fn restart_ended(&mut self, restarts: &mut Restarts) {
        for id in self.processes.ids() {
            if let Some(pid) = self.processes.pid(id)
                && let Some(status) = self.processes.exited(id)
            {
                let wait = restarts.ended(id);
                println!(
                    "catan-suite: {id} (pid {pid}) ended ({status}); starting it again on {} in {} ms",
                    self.processes.url(id),
                    wait.as_millis()
                );
            }
            if self.processes.pid(id).is_none() && restarts.due(id) {
                match self.processes.spawn(id) {
                    Ok(()) => {
                        restarts.started(id);
                        if let Some(pid) = self.processes.pid(id) {
                            println!("catan-suite: {id} started again: pid {pid}");
                        }
                    }
                    Err(e) => eprintln!("catan-suite: could not start {id} again: {e:#}"),
                }
            }
        }
    }

    /// Stops everything, the replicas first (the entrances they call stop on the same signal).
    pub async fn stop(mut self) {
        self.processes.kill_all();
        self.web.stop().await;
        self.gateway.stop().await;
        for (_, entrance) in self.entrances {
            entrance.stop().await;
        }
    }
}

/// Starts every replica: registration's first one first (it makes the signing key and the admin
/// key the others rely on), then all the others at once; returns once each answers its probe.
async fn start_replicas(processes: &mut Processes) -> anyhow::Result<()> {
    let http = reqwest::Client::new();
    let first = ReplicaId {
        owner: Owner::Registration,
        index: 1,
    };
    processes.spawn(first)?;
    wait_healthy(&http, &processes.url(first)).await?;
    let others: Vec<ReplicaId> = processes
        .ids()
        .into_iter()
        .filter(|id| *id != first)
        .collect();
    for id in &others {
        processes.spawn(*id)?;
    }
    let probes = others.iter().map(|id| {
        let url = processes.url(*id);
        let http = http.clone();
        async move { wait_healthy(&http, &url).await }
    });
    for started in futures_util::future::join_all(probes).await {
        started?;
    }
    Ok(())
}

/// When each replica was started and when one that ended may start again.
#[derive(Default)]
struct Restarts {
    started: HashMap<ReplicaId, Instant>,
    waits: HashMap<ReplicaId, Duration>,
    due: HashMap<ReplicaId, Instant>,
}

impl Restarts {
    /// The replica ended: how long it waits before it starts again.
    fn ended(&mut self, id: ReplicaId) -> Duration {
        let ran = self.started.get(&id).map(Instant::elapsed);
        let wait = match (ran, self.waits.get(&id)) {
            (Some(ran), _) if ran >= STEADY_RUN => Duration::ZERO,
            (_, Some(last)) if !last.is_zero() => (*last * 2).min(LONGEST_RESTART_WAIT),
            _ => FIRST_RESTART_WAIT,
        };
        self.waits.insert(id, wait);
        self.due.insert(id, Instant::now() + wait);
        wait
    }

    fn due(&self, id: ReplicaId) -> bool {
        self.due.get(&id).is_none_or(|at| Instant::now() >= *at)
    }

    fn started(&mut self, id: ReplicaId) {
        self.started.insert(id, Instant::now());
        self.due.remove(&id);
    }
}

/// A free port of 127.0.0.1 (bound, then let go for a replica to take).
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replica_that_keeps_ending_at_once_waits_longer_each_time() {
        let id = ReplicaId {
            owner: Owner::Results,
            index: 2,
        };
        let mut restarts = Restarts::default();
        let mut waits = Vec::new();
        for _ in 0..8 {
            restarts.started(id);
            waits.push(restarts.ended(id).as_secs());
        }
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60]);
        assert!(!restarts.due(id), "it waits its turn");
        restarts.started(id);
        assert!(restarts.due(id));
    }
}
