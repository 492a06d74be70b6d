//! The permission matrix (issue 14): every operation of the spec answers each role as the matrix
//! of docs/rules.md says, against a resource of the role's region and one of another; and the
//! players' matrix (issue 31): a player's own writes answer as it says under each event option.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "the test's helpers: a failed step fails the test"
)]

#[path = "matrix/calls.rs"]
mod calls;
#[path = "matrix/players.rs"]
mod players;
#[path = "player_reporting/signed_in.rs"]
mod signed_in;

use calls::{Call, fresh_call, request_for, resources};
use catan_e2e::fixtures::new_organiser_key;
use serde_json::Value;
use std::collections::BTreeMap;

/// What docs/rules.md says an operation answers a role: against region A's resource and B's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Expected {
    /// Allowed: a 2xx to a request that is valid when it is sent.
    Ok,
    Status(u16),
}

const ROLES: [&str; 6] = [
    "admin",
    "organiser",
    "director",
    "scorer",
    "player",
    "anonymous",
];

fn rules() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rules.md"))
        .expect("docs/rules.md")
}

/// A cell of a matrix: `ok` or a status.
pub(crate) fn cell(text: &str) -> Expected {
    match text {
        "ok" => Expected::Ok,
        status => Expected::Status(status.parse().expect("a status")),
    }
}

/// The cells of each row of the table between `<!-- {name}:start -->` and its end in `rules`.
pub(crate) fn marked_rows(rules: &str, name: &str) -> Vec<Vec<String>> {
    let start = rules
        .find(&format!("<!-- {name}:start -->"))
        .expect("the matrix");
    let end = rules
        .find(&format!("<!-- {name}:end -->"))
        .expect("its end");
    rules[start..end]
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            line.trim_matches('|')
                .split('|')
                .map(|cell| cell.trim().to_string())
                .collect()
        })
        .collect()
}

/// The matrix of docs/rules.md: operation (`METHOD /path`) to each role's (A, B) answers.
fn documented_matrix() -> BTreeMap<String, Vec<(Expected, Expected)>> {
    marked_rows(&rules(), "permission-matrix")
        .into_iter()
        .map(|cells| {
            assert_eq!(cells.len(), 1 + ROLES.len(), "{cells:?}");
            let answers = cells[1..]
                .iter()
                .map(|c| match c.split_once('/') {
                    Some((a, b)) => (cell(a), cell(b)),
                    None => (cell(c), cell(c)),
                })
                .collect();
            (cells[0].trim_matches('`').to_string(), answers)
        })
        .collect()
}

/// Every operation of the committed spec, as `METHOD /path`.
fn spec_operations() -> Vec<String> {
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../openapi/openapi.json"
        ))
        .expect("the spec"),
    )
    .expect("JSON");
    let mut operations = Vec::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_some() {
                operations.push(format!("{} {path}", method.to_uppercase()));
            }
        }
    }
    operations
}

#[tokio::test]
async fn every_operation_answers_each_role_as_the_permission_matrix_says() {
    let ts = catan_e2e::spawn_suite_configured(|settings| {
        settings.clients = catan_kit::settings::ClientSettings::unlimited();
        settings.rate_limit.per_second = 1e9;
        settings.rate_limit.burst = 1e9;
        settings.webhooks.allow_private = true;
        // A delivery's one failed try makes it a dead letter, for the replays.
        settings.webhooks.max_attempts = 1;
        settings.webhooks.poll_interval = std::time::Duration::from_millis(50);
    })
    .await;
    let matrix = documented_matrix();
    let operations = spec_operations();
    let mut documented: Vec<&String> = matrix.keys().collect();
    documented.sort();
    let mut specified: Vec<&String> = operations.iter().collect();
    specified.sort();
    assert_eq!(
        documented, specified,
        "docs/rules.md's matrix names every operation of the spec, and no other"
    );

    let (a, b) = (
        resources(&ts, "Matrix A").await,
        resources(&ts, "Matrix B").await,
    );
    let organiser = ts
        .admin
        .create_api_key(&new_organiser_key("Matrix organiser", vec![a.region]))
        .await
        .unwrap()
        .api_key;
    let player_token = ts
        .anonymous
        .player_token(a.event, a.players[0].0, &a.players[0].1)
        .await
        .unwrap()
        .access_token;
    let tokens = [
        Some(ts.admin_token.clone()),
        Some(ts.token(&organiser).await),
        Some(ts.token(&a.director_key).await),
        Some(ts.token(&a.scorer_key).await),
        Some(player_token),
        None,
    ];

    // A call that consumes what it acts on gets it made fresh, and a new one once an allowed
    // call has consumed it: every allowed call is sent a request valid when it is sent, and a
    // refused one the request an allowed one would be sent. The least trusted go first.
    let mut mismatches = Vec::new();
    for operation in &operations {
        let expected = &matrix[operation];
        for (resources, region) in [(&a, "A"), (&b, "B")] {
            let mut call: Option<Call> = None;
            let mut consumed = false;
            for role in (0..ROLES.len()).rev() {
                let wanted = if region == "A" {
                    expected[role].0
                } else {
                    expected[role].1
                };
                if call.is_none() || consumed && wanted == Expected::Ok {
                    call = Some(match fresh_call(&ts, operation, resources).await {
                        Some(call) => call,
                        None => request_for(operation, resources),
                    });
                    consumed = false;
                }
                let call = call.as_ref().unwrap();
                let mut request = ts.http(call.method.clone(), &call.path);
                if let Some(token) = &tokens[role] {
                    request = request.token(token);
                }
                if let Some(body) = &call.body {
                    request = request.json(body);
                }
                let answer = request.response().await;
                let status = answer.status().as_u16();
                consumed |= answer.status().is_success();
                let matches = match wanted {
                    Expected::Ok => answer.status().is_success(),
                    Expected::Status(wanted) => status == wanted,
                };
                if !matches {
                    let detail = answer.text().await.unwrap_or_default();
                    mismatches.push(format!(
                        "{operation} as {} on {region}: {status}, documented {wanted:?}: {detail}",
                        ROLES[role]
                    ));
                }
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "answers that differ from docs/rules.md's matrix:\n{}",
        mismatches.join("\n")
    );
    ts.shutdown().await;
}

#[tokio::test]
async fn every_players_own_write_answers_as_the_players_matrix_says() {
    let ts = catan_e2e::spawn_suite().await;
    let rows = players::documented(&rules());
    let operations: std::collections::BTreeSet<&str> =
        rows.iter().map(|row| row.operation.as_str()).collect();
    assert_eq!(
        operations.len(),
        4,
        "the players' matrix names a sheet, a confirmation, a dispute and a drop: {operations:?}"
    );
    let mut mismatches = Vec::new();
    for row in &rows {
        // Each row on an event of its own, made with the row's option.
        let e = signed_in::signed_in(&ts, &signed_in::classic_with(row.option.clone())).await;
        let (own, another) = players::answers(&ts, &e, &row.operation).await;
        if (own, another) != (row.own, row.another) {
            mismatches.push(format!(
                "{} with {}: {own:?}/{another:?}, documented {:?}/{:?}",
                row.operation, row.option, row.own, row.another
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "answers that differ from docs/rules.md's players' matrix:\n{}",
        mismatches.join("\n")
    );
    ts.shutdown().await;
}
