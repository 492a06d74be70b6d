//! One request followed across the services' logs: every service logs it under the caller's
//! `x-request-id` (its `correlation_id`), including the calls it makes to the other services,
//! and answers the id back.

use catan_api::DrawRound;
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{seated, spawn_suite_with_event, won_by_first};
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

/// The log lines of this test process, as the services write them.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        log.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn lines_with(&self, needle: &str) -> Vec<String> {
        let log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&log)
            .lines()
            .filter(|line| line.contains(needle))
            .map(str::to_owned)
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_results_sheet_is_logged_under_one_id_by_the_gateway_results_and_pairing() {
    let captured = Captured::default();
    let writer = captured.clone();
    tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("round 1");
    let players = seated(&round.tables[0]);
    let token = ts.token(&fx.director_key).await;
    let sheet = format!("/v1/events/{}/rounds/1/tables/1/result", fx.event.id);
    let answer = ts
        .http(Method::PUT, &sheet)
        .token(&token)
        .header("x-request-id", "sheet-0042")
        .json(&won_by_first(&players, &[10, 7, 5, 4]))
        .send()
        .await;
    assert_eq!(answer.status, StatusCode::CREATED);
    assert_eq!(answer.headers["x-request-id"], "sheet-0042");

    let logged = captured.lines_with("correlation_id=sheet-0042");
    let round_read = format!("/v1/events/{}/rounds/1 ", fx.event.id);
    // The gateway and the results service log the sheet, and pairing the round that results read
    // to check the sheet.
    assert_eq!(
        logged
            .iter()
            .filter(|l| l.contains(&sheet) && l.contains("request"))
            .count(),
        2,
        "{logged:#?}"
    );
    assert!(
        logged
            .iter()
            .any(|l| l.contains(&round_read) || l.contains(&format!("{}}}", round_read.trim()))),
        "{logged:#?}"
    );
    // The draw before it is logged under an id of its own.
    let draw = format!("/v1/events/{}/rounds ", fx.event.id);
    assert!(
        captured
            .lines_with(&draw)
            .iter()
            .all(|l| !l.contains("sheet-0042"))
    );
    assert!(!captured.lines_with(&draw).is_empty());
    ts.shutdown().await;
}
