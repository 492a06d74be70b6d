//! The results service's calls: sheets, confirmations, disputes and the change feed.

use super::{ApiClient, ClientError, PAGE};
use crate::types::*;
use reqwest::Method;
use uuid::Uuid;

impl ApiClient {
    pub async fn submit_result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
        body: &SubmitResult,
    ) -> Result<TableResult, ClientError> {
        self.put(
            &format!("/v1/events/{event_id}/rounds/{round}/tables/{table}/result"),
            body,
        )
        .await
    }

    pub async fn result(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> Result<TableResult, ClientError> {
        self.get(&format!(
            "/v1/events/{event_id}/rounds/{round}/tables/{table}/result"
        ))
        .await
    }

    /// A table's board as JSON.
    pub async fn board(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> Result<serde_json::Value, ClientError> {
        self.get(&format!(
            "/v1/events/{event_id}/rounds/{round}/tables/{table}/board"
        ))
        .await
    }

    /// A table's result and its ETag, for a correction.
    pub async fn result_with_etag(
        &self,
        event_id: Uuid,
        round: u32,
        table: u32,
    ) -> Result<(TableResult, String), ClientError> {
        let path = format!("/v1/events/{event_id}/rounds/{round}/tables/{table}/result");
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
    ) -> Result<TableResult, ClientError> {
        let path = format!("/v1/events/{event_id}/rounds/{round}/tables/{table}/result");
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
    ) -> Result<ResultList, ClientError> {
        self.get(&format!(
            "/v1/events/{event_id}/rounds/{round}/tables/{table}/result/history"
        ))
        .await
    }

    /// Every recorded result of the round (all pages).
    pub async fn round_results(
        &self,
        event_id: Uuid,
        round: u32,
    ) -> Result<ResultList, ClientError> {
        let mut items = Vec::new();
        loop {
            let path = format!(
                "/v1/events/{event_id}/rounds/{round}/results?limit={PAGE}&offset={}",
                items.len()
            );
            let page: ResultList = self.get(&path).await?;
            let full = page.items.len() == PAGE;
            items.extend(page.items);
            if !full {
                return Ok(ResultList { items });
            }
        }
    }

    /// The event's results changed after `after_seq`, oldest change first (the current version of each table).
    pub async fn result_changes(
        &self,
        event_id: Uuid,
        after_seq: i64,
        limit: u32,
    ) -> Result<ResultList, ClientError> {
        self.get(&format!(
            "/v1/events/{event_id}/results?after_seq={after_seq}&limit={limit}"
        ))
        .await
    }
}
