//! A short run of the fault harness: 1,000 results posted while PostgreSQL restarts once and
//! each service is SIGKILLed once. Every result acknowledged is stored once, and the feed, the
//! standings, the webhooks and the outboxes agree (RELIABILITY.md).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test: a failed step fails it"
)]

use serde_json::Value;
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn a_thousand_results_survive_a_postgres_restart_and_a_kill_of_each_service() {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_catan-bench"))
        .args([
            "chaos",
            "--results",
            "1000",
            "--pg-restarts",
            "1",
            "--kills",
            "1",
        ])
        .output()
        .expect("the harness runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stderr:\n{stderr}"));
    assert!(
        output.status.success(),
        "the harness found violations: {}\nstderr:\n{stderr}",
        report["violations"]
    );
    let count = |name: &str| {
        report[name]
            .as_u64()
            .unwrap_or_else(|| panic!("{name} in {report}"))
    };
    assert_eq!(count("acknowledged"), 1000);
    assert_eq!(count("stored"), 1000);
    for violation in [
        "lost",
        "duplicated",
        "stored_unacknowledged",
        "feed_gaps",
        "feed_extra",
        "standings_mismatches",
        "outbox_left",
    ] {
        assert_eq!(count(violation), 0, "{violation} in {report}");
    }
    assert_eq!(count("feed_read"), 1000);
    assert_eq!(count("webhooks_expected"), 1000);
    assert_eq!(count("webhooks_received"), 1000);
    assert_eq!(count("faults_run"), 1 + 4, "one restart and four kills");
    let transient: u64 = ["503", "transport", "timeout"]
        .iter()
        .filter_map(|k| report["answers"][k].as_u64())
        .sum();
    assert!(
        transient > 0,
        "the faults were felt by the clients: {}",
        report["answers"]
    );
    // It cleaned up: its folder is gone and its PostgreSQL no longer listens.
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("chaos: PostgreSQL on port "))
        .expect("the harness says where its cluster ran");
    let (port, rest) = line.split_once(" in ").unwrap();
    let dir = rest.split("; ").next().unwrap();
    assert!(!std::path::Path::new(dir).exists(), "{dir} is left");
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).is_err(),
        "PostgreSQL still listens on {port}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(300),
        "took {:?}",
        started.elapsed()
    );
}
