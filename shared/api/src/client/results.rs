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

    /// The event's results changed after `after_seq`, oldest change first (the current version of each table).
    pub async fn result_changes(
        &self,
        event_id: Uuid,
        after_seq: i64,
        limit: u32,
    ) -> ClientResult<ResultList> {
        self.get(&format!(
            "/v1/events/{event_id}/results?after_seq={after_seq}&limit={limit}"
        ))
        .await
    }

    /// Every event's results changed after `after` (a page's `next`, or empty for the beginning),
    /// in the order the changes committed.
    pub async fn results_feed(&self, after: &str, limit: u32) -> ClientResult<ResultChanges> {
        self.get(&format!("/v1/feeds/results?after={after}&limit={limit}"))
            .await
    }

    /// Every current result of the event, read from its change feed to the end.
    pub async fn event_results(&self, event_id: Uuid) -> ClientResult<Vec<TableResult>> {
        const PAGE: u32 = 1000;
        let mut all: Vec<TableResult> = Vec::new();
        loop {
            let after = all.last().map_or(0, |r| r.seq);
            let page = self.result_changes(event_id, after, PAGE).await?.items;
            let full = page.len() == PAGE as usize;
            all.extend(page);
            if !full {
                return Ok(all);
            }
        }
    }
}
