//! The demo a newcomer runs (`catan-suite demo`, as a process): one line per step and no service
//! logs, every placement of its 37 players, in a suite of its own or in the one already running,
//! whose dashboard then shows the event, its placements and the ratings. And `catan-suite up`,
//! which says where it is, its admin key and where its logs go, then keeps quiet under traffic.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

#[path = "common/launcher.rs"]
mod launcher;

use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{drop_database, server_url, spawn_suite};
use launcher::Launcher;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// `catan-suite demo` with `args` and `env`, run to its end.
fn demo(args: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_catan-e2e-suite"))
        .arg("demo")
        .args(args)
        .env_remove("RUST_LOG")
        .envs(env.iter().copied())
        .output()
        .expect("the demo runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    );
    assert!(status.success(), "{status}\n{stdout}\n{stderr}");
    (stdout, stderr)
}

/// The places listed under "Final placements", in order.
fn placements(report: &str) -> Vec<u32> {
    report
        .split("Final placements\n")
        .nth(1)
        .expect("a placements section")
        .lines()
        .skip(1)
        .map_while(|line| line.split_whitespace().next()?.parse().ok())
        .collect()
}

/// The steps the demo says, one line each, in order.
fn assert_steps(report: &str) {
    let steps = [
        "Event \"Demo open (37 players)\" created",
        "37 players registered and entered",
        "Round 1 (qualifying) drawn: 10 tables",
        "Round 1: 10 results posted",
        "Round 3: 10 results posted",
        "Round 4 (semi-finals) drawn: 4 tables",
        "Round 5 (final) drawn: 1 table",
        "Round 5: 1 result posted",
        "Standings and placements read: 37 players placed",
    ];
    let mut from = 0;
    for step in steps {
        let at = report[from..]
            .find(step)
            .unwrap_or_else(|| panic!("{step:?} is not said, in order:\n{report}"));
        from += at + step.len();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_in_a_suite_of_its_own_says_each_step_and_lists_all_37_placements() {
    let database = format!("catan_demo_test_{}", uuid::Uuid::new_v4().simple());
    let name = database.clone();
    let (stdout, stderr) = tokio::task::spawn_blocking(move || {
        demo(
            &[],
            &[
                ("DATABASE_URL", &server_url()),
                ("CATAN_DEMO_DATABASE", &name),
            ],
        )
    })
    .await
    .expect("the demo ran");
    assert_steps(&stdout);
    assert_eq!(
        placements(&stdout),
        (1..=37).collect::<Vec<_>>(),
        "{stdout}"
    );
    // Its own report only: no service's log line.
    for log in ["INFO", "WARN", "request"] {
        assert!(
            !stdout.contains(log) && !stderr.contains(log),
            "{log}:\n{stdout}\n{stderr}"
        );
    }
    drop_database(&catan_kit::db::replace_database(&server_url(), &database)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_demo_plays_into_the_running_suite_whose_dashboard_then_shows_it() {
    let ts = spawn_suite().await;
    let url = ts.suite.url();
    let key = ts.admin_key.clone();
    let (stdout, _) =
        tokio::task::spawn_blocking(move || demo(&["--into", &url, "--admin-key", &key], &[]))
            .await
            .expect("the demo ran");
    assert_steps(&stdout);
    assert_eq!(placements(&stdout), (1..=37).collect::<Vec<_>>());
    let link = stdout
        .lines()
        .find_map(|line| line.strip_prefix("On the dashboard: "))
        .expect("a link to the dashboard");
    let path = link
        .strip_prefix(ts.suite.url().as_str())
        .expect("a link into the suite");
    let page = ts.http(Method::GET, path).send().await;
    assert_eq!(page.status, StatusCode::OK);
    let placed = page
        .text
        .split("id=\"placements-h\"")
        .nth(1)
        .expect("a placements section");
    assert_eq!(
        placed.matches("Player ").count(),
        37,
        "every player placed on the event's page"
    );
    let position = path.split("?position=").nth(1).expect("a position");
    let ratings = ts
        .http(Method::GET, &format!("/ratings?position={position}"))
        .send()
        .await;
    assert_eq!(ratings.status, StatusCode::OK);
    assert!(
        ratings.text.matches("Player ").count() >= 37,
        "every player rated"
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn up_says_where_it_is_and_its_admin_key_once_then_keeps_quiet_under_traffic() {
    let database_url = tokio::task::spawn_blocking(catan_e2e::fresh_database)
        .await
        .unwrap()
        .expect("a fresh test database");
    let suite = Launcher::run(&["up", "--port", "0"], &database_url, &[]);
    let url = suite
        .printed(120, "the gateway's URL", |line| {
            line.strip_prefix("Catan tournament API on ")
                .and_then(|rest| rest.split_whitespace().next())
                .map(str::to_owned)
        })
        .await;
    let key = suite
        .printed(1, "the admin key", |line| {
            line.split("(shown once, store it now): ")
                .nth(1)
                .map(|key| key.trim().to_owned())
        })
        .await;
    suite
        .printed(1, "where the logs go", |line| {
            line.contains("Logs: on this terminal, warnings and errors only")
                .then_some(())
        })
        .await;
    // Ten seconds and more of traffic: the demo played into it, and pages read meanwhile (20 a
    // second: within what one address may ask without a token).
    let (into, admin_key) = (url.clone(), key.clone());
    let played = tokio::task::spawn_blocking(move || {
        demo(&["--into", &into, "--admin-key", &admin_key], &[])
    });
    let started = Instant::now();
    let reader = reqwest::Client::new();
    let mut reads = 0;
    while started.elapsed() < Duration::from_secs(10) {
        for path in ["/", "/v1/events", "/ratings", "/no-such-page"] {
            let answer = reader.get(format!("{url}{path}")).send().await.unwrap();
            assert!(
                answer.status().as_u16() < 500,
                "{path}: {}",
                answer.status()
            );
            reads += 1;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let (stdout, _) = played.await.expect("the demo ran");
    assert_steps(&stdout);
    let printed = suite.lines();
    assert!(reads > 100, "{reads} reads");
    assert!(
        printed.len() < 20,
        "{} lines after {reads} reads and a demo:\n{}",
        printed.len(),
        printed.join("\n")
    );
    assert_eq!(
        printed.iter().filter(|line| line.contains(&key)).count(),
        1,
        "the admin key, once"
    );
    suite.stop();
    drop_database(&database_url).await;
}
