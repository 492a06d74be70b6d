//! The faults: PostgreSQL restarted (`-m immediate` and `-m fast` in turn) and each service
//! SIGKILLed and started again on its port, one at a time, in a shuffled order, spread over the
//! submission period by its progress (the i-th of n faults once i/(n+1) of the tables have their
//! answer).

use super::only;
use super::submit::Progress;
use anyhow::Context;
use catan_suite::Owner;
use catan_suite::postgres::{PrivateCluster, StopMode};
use catan_suite::processes::{Processes, wait_healthy};
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    RestartPostgres(StopMode),
    Kill(Owner),
}

impl Fault {
    pub fn describe(self) -> String {
        match self {
            Fault::RestartPostgres(mode) => format!("postgres restart -m {}", mode.as_str()),
            Fault::Kill(owner) => {
                format!(
                    "SIGKILL {}",
                    catan_suite::serve::ServiceName::of(owner).as_str()
                )
            }
        }
    }
}

/// The run's faults, in the order they happen: `restarts` of PostgreSQL (immediate first, then
/// fast, in turn) and `kills` of each service.
pub fn schedule(restarts: usize, kills: usize, rng: &mut ChaCha8Rng) -> Vec<Fault> {
    let mut faults: Vec<Fault> = (0..restarts)
        .map(|i| {
            Fault::RestartPostgres(if i % 2 == 0 {
                StopMode::Immediate
            } else {
                StopMode::Fast
            })
        })
        .collect();
    for owner in Owner::ALL {
        faults.extend(std::iter::repeat_n(Fault::Kill(owner), kills));
    }
    faults.shuffle(rng);
    faults
}

/// Where the faults act.
pub struct Targets {
    pub cluster: PrivateCluster,
    pub services: Arc<Mutex<Processes>>,
}

/// After how many started tables of `total` each of `count` faults is due: evenly spread.
pub fn due(count: usize, total: usize) -> Vec<usize> {
    (1..=count).map(|i| total * i / (count + 1)).collect()
}

/// Runs `faults`, each when `progress` says it is due; what each did, as JSON.
pub async fn run(
    faults: Vec<Fault>,
    total: usize,
    progress: &Progress,
    targets: &Targets,
    rng: &mut ChaCha8Rng,
) -> anyhow::Result<Vec<Value>> {
    let http = reqwest::Client::new();
    let count = faults.len();
    let mut ran = Vec::new();
    for (i, (fault, due)) in faults
        .into_iter()
        .zip(progress.fault_due.clone())
        .enumerate()
    {
        while progress.started.load(Ordering::SeqCst) <= due
            && !progress.over.load(Ordering::SeqCst)
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let at = progress.finished.load(Ordering::SeqCst);
        progress.faults_begun.store(i + 1, Ordering::SeqCst);
        let down = Duration::from_millis(rng.random_range(200..=1500));
        let started = Instant::now();
        match fault {
            Fault::RestartPostgres(mode) => {
                let cluster = targets.cluster.clone();
                tokio::task::spawn_blocking(move || cluster.stop(mode)).await??;
                tokio::time::sleep(down).await;
                let cluster = targets.cluster.clone();
                tokio::task::spawn_blocking(move || cluster.start()).await??;
            }
            Fault::Kill(owner) => {
                lock(&targets.services).kill(only(owner))?;
                tokio::time::sleep(down).await;
                let url = {
                    let mut services = lock(&targets.services);
                    services.spawn(only(owner))?;
                    services.url(only(owner))
                };
                wait_healthy(&http, &url)
                    .await
                    .with_context(|| format!("{} did not come back", fault.describe()))?;
            }
        }
        let back = started.elapsed();
        eprintln!(
            "chaos: fault {}/{count} after {at}/{total} tables answered: {} (down {} ms, back after {} ms)",
            i + 1,
            fault.describe(),
            down.as_millis(),
            back.as_millis()
        );
        ran.push(json!({
            "fault": fault.describe(),
            "tables_answered_before": at,
            "down_ms": down.as_millis(),
            "back_after_ms": back.as_millis(),
        }));
    }
    Ok(ran)
}

pub fn lock(services: &Mutex<Processes>) -> std::sync::MutexGuard<'_, Processes> {
    services.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_schedule_has_every_fault_asked_for_with_both_shutdown_modes() {
        let faults = schedule(3, 2, &mut ChaCha8Rng::seed_from_u64(1));
        assert_eq!(faults.len(), 3 + 4 * 2);
        let restarts = |mode| {
            faults
                .iter()
                .filter(|f| **f == Fault::RestartPostgres(mode))
                .count()
        };
        assert_eq!(
            (restarts(StopMode::Immediate), restarts(StopMode::Fast)),
            (2, 1)
        );
        for owner in Owner::ALL {
            assert_eq!(
                faults.iter().filter(|f| **f == Fault::Kill(owner)).count(),
                2
            );
        }
    }
}
