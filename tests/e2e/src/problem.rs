//! Refusals: the status a call was refused with, and the field errors its problem document names.

use crate::{EventFixture, TestSuite};
use catan_api::{ClientError, Problem, SubmitResult};
use std::fmt::Debug;

/// Asserts that a call of the typed client was refused with `status`, and returns the error.
#[track_caller]
pub fn assert_refused<T: Debug>(
    result: Result<T, ClientError>,
    status: u16,
    what: &str,
) -> ClientError {
    let err = result.expect_err(what);
    assert_eq!(err.status(), Some(status), "{what}: {err}");
    err
}

/// The problem document of a refusal; any other error fails the test.
#[track_caller]
pub fn problem_of(err: ClientError) -> Problem {
    let ClientError::Problem { problem } = err else {
        panic!("a problem document, got {err:?}")
    };
    problem
}

/// Whether `problem` names `code` among its field errors, at `field` when one is given.
pub fn names(problem: &Problem, field: Option<&str>, code: &str) -> bool {
    problem
        .errors
        .iter()
        .any(|e| e.code == code && field.is_none_or(|f| e.field == f))
}

/// Asserts that the scorer's `sheet` for `table` of round `round` is refused with a 422 naming
/// `code` (at `field`, when given), and that no result at all is stored.
pub async fn assert_sheet_refused(
    ts: &TestSuite,
    fx: &EventFixture,
    (round, table): (u32, u32),
    sheet: &SubmitResult,
    field: Option<&str>,
    code: &str,
) {
    let refusal = fx
        .scorer
        .submit_result(fx.event.id, round, table, sheet)
        .await;
    let problem = problem_of(refusal.expect_err(code));
    let what = format!("{}/{code}", field.unwrap_or("*"));
    assert_eq!(problem.status, 422, "{what}: {problem:?}");
    assert!(
        names(&problem, field, code),
        "expected {what} in {:?}",
        problem.errors
    );
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM results.results"),
        0,
        "nothing stored after {code}"
    );
}
