//! The committed OpenAPI document, as third-party tools from PyPI see it, against a running
//! suite: `tests/python/run.sh` generates a client with openapi-python-client and plays a table
//! with it (pytest), then runs schemathesis with every phase (examples, coverage, fuzzing,
//! stateful) and its checks. Any failure of either fails this test. The script makes its
//! virtualenv (pinned versions from `tests/python/requirements.txt`) under `target/` the first
//! time; it needs python3 with venv and pip, and says so when they are missing.

use catan_e2e::spawn_suite_configured;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// The whole run takes about a minute on two cores; a cold virtualenv adds the downloads.
const TIME_LIMIT: Duration = Duration::from_secs(20 * 60);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn schemathesis_and_a_generated_client_pass_against_the_committed_spec() {
    // Schemathesis sends made-up `Catan-Position`s that no write of this suite reaches: each such
    // read waits out the wait before its documented 503, so the wait is short here.
    let ts = spawn_suite_configured(|settings| {
        settings.consistency_wait = Duration::from_millis(250);
    })
    .await;
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = repo.join("tests/python/run.sh");
    let reports = Path::new(env!("CARGO_TARGET_TMPDIR")).join("schemathesis-report");
    let run = tokio::process::Command::new("bash")
        .arg(&script)
        .current_dir(&repo)
        .env("CATAN_BASE_URL", ts.suite.url())
        .env("CATAN_ADMIN_KEY", &ts.admin_key)
        .env("CATAN_REPORT_DIR", &reports)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(TIME_LIMIT, run)
        .await
        .unwrap_or_else(|_| panic!("{} took more than {TIME_LIMIT:?}", script.display()))
        .unwrap_or_else(|e| panic!("cannot run bash {}: {e}", script.display()));
    ts.shutdown().await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The summary is shown even when the test passes (written past the test harness's capture).
    let summary = stdout
        .find("=== SUMMARY ===")
        .map(|at| &stdout[stdout[..at].rfind('\n').map_or(0, |n| n + 1)..])
        .unwrap_or("(no schemathesis summary)");
    let _ = writeln!(std::io::stderr(), "\n{summary}");
    assert!(
        output.status.success(),
        "tests/python/run.sh failed ({}); reports in {}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status,
        reports.display()
    );
}
