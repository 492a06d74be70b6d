//! The results service's calls: sheets, confirmations, disputes and the change feed.

use super::{ApiClient, ClientResult};
use crate::types::*;
use reqwest::Method;
use serde_json::Value;
use uuid::Uuid;

/// The path of `rest` under a table of a round, e.g. `/v1/events/{event_id}/rounds/2/tables/5/result`.
fn table_path(event_id: Uuid, round: u32, table: u32, rest: &str) -> String {
    format!("/v1/events/{event_id}/rounds/{round}/tables/{table}/{rest}")
}

impl ApiClient {
    pub async fn submit_result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
        body: &SubmitResult,
    ) -> ClientResult<TableResult> {
        self.put(&table_path(event_id, round, table, "result"), body)
            .await
    }

    /// Voids a table's result (the director, before the next round is drawn): the result as it
    /// was, marked voided.
    pub async fn void_result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> ClientResult<TableResult> {
        self.call::<(), TableResult>(
            Method::DELETE,
            &table_path(event_id, round, table, "result"),
            None,
        )
        .await
    }

    /// Up to 500 sheets of round `round` at once, each recorded or refused on its own.
    pub async fn submit_results(
        &self,
        event_id: Uuid,
        round: u32,
        body: &SubmitResults,
    ) -> ClientResult<BatchOutcome> {
        self.post(
            &format!("/v1/events/{event_id}/rounds/{round}/results"),
            body,
        )
        .await
    }

    /// A table's result (with its ETag: [`ApiClient::result_with_etag`]).
    pub async fn result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> ClientResult<TableResult> {
        let (result, _etag) = self.result_with_etag(event_id, round, table).await?;
        Ok(result)
    }

    /// A table's board as JSON.
    pub async fn board(&self, event_id: Uuid, round: u32, table: u32) -> ClientResult<Value> {
        self.get(&table_path(event_id, round, table, "board")).await
    }

    /// A table's board as an SVG picture, to show or print.
    pub async fn board_svg(&self, event_id: Uuid, round: u32, table: u32) -> ClientResult<String> {
        self.get_text(
            &table_path(event_id, round, table, "board"),
            "image/svg+xml",
        )
        .await
    }

    /// A table's result and its ETag, for a correction.
    pub async fn result_with_etag(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> ClientResult<(TableResult, String)> {
        let path = table_path(event_id, round, table, "result");
        let (result, etag) = self
            .call_with::<(), TableResult>(Method::GET, &path, None, &[])
            .await?;
        Ok((result, etag.unwrap_or_default()))
    }

    /// The tournament director's correction of a result whose ETag is `if_match`.
    pub async fn correct_result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
        body: &SubmitResult,
        if_match: &str,
    ) -> ClientResult<TableResult> {
        let path = table_path(event_id, round, table, "result");
        let headers = [("If-Match", if_match.to_string())];
        self.call_with(Method::PUT, &path, Some(body), &headers)
            .await
            .map(|(result, _)| result)
    }

    pub async fn result_history(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> ClientResult<ResultList> {
        self.get(&table_path(event_id, round, table, "result/history"))
            .await
    }

    /// The signed-in player confirms a table's current result.
    pub async fn confirm_result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> ClientResult<TableResult> {
        let path = table_path(event_id, round, table, "result/confirm");
        self.post(&path, &serde_json::json!({})).await
    }

    /// The event's director (or the admin) confirms a table's current result for a seated player.
    pub async fn confirm_result_for(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
        player_id: Uuid,
    ) -> ClientResult<TableResult> {
        let path = table_path(event_id, round, table, "result/confirm");
        let body = ConfirmResult {
            player_id: Some(player_id),
        };
        self.post(&path, &body).await
    }

    /// The signed-in player disputes a table's current result.
    pub async fn dispute_result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
        reason: &str,
    ) -> ClientResult<TableResult> {
        let body = DisputeResult {
            reason: reason.to_string(),
        };
        self.post(&table_path(event_id, round, table, "result/dispute"), &body)
            .await
    }

    /// Every recorded result of the round (all pages).
    pub async fn round_results(&self, event_id: Uuid, round: u32) -> ClientResult<ResultList> {
        let path = format!("/v1/events/{event_id}/rounds/{round}/results");
        let items = self
            .all_pages_of(&path, |page: ResultList| page.items)
            .await?;
        Ok(ResultList { items })
    }

    /// The event's results changed after `after` (a page's `next`, or empty for the beginning),
    /// in the order the changes committed (the current version of each table).
    pub async fn result_changes(
        &self,
        event_id: Uuid,
        after: &str,
        limit: u32,
    ) -> ClientResult<ResultChanges> {
        self.get(&format!(
            "/v1/events/{event_id}/results?after={after}&limit={limit}"
        ))
        .await
    }

    /// Every event's results changed after `after` (a page's `next`, or empty for the beginning),
    /// in the order the changes committed.
    pub async fn results_feed(&self, after: &str, limit: u32) -> ClientResult<ResultChanges> {
        self.get(&format!("/v1/feeds/results?after={after}&limit={limit}"))
            .await
    }

    /// Every current result of the event, read from its change feed to the end: until a page is
    /// not full and holds nothing back (changes committed behind a write still in flight are
    /// waited for, a few seconds at most: past that the answer is the event as it was a moment
    /// before that write).
    pub async fn event_results(&self, event_id: Uuid) -> ClientResult<Vec<TableResult>> {
        const PAGE: u32 = 1000;
        const HELD_BACK_WAITS: u32 = 250;
        let mut all: Vec<TableResult> = Vec::new();
        let mut after = String::new();
        let mut waits = 0;
        loop {
            let page = self.result_changes(event_id, &after, PAGE).await?;
            let full = page.items.len() == PAGE as usize;
            all.extend(page.items);
            after = page.next;
            if !full && (!page.held_back || waits == HELD_BACK_WAITS) {
                // A table changed twice while being read appears twice: keep its last version.
                let mut seen = std::collections::HashSet::new();
                let mut current: Vec<TableResult> = all
                    .into_iter()
                    .rev()
                    .filter(|r| seen.insert((r.round, r.table)))
                    .collect();
                current.reverse();
                return Ok(current);
            }
            if !full {
                waits += 1;
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }
    }
}
