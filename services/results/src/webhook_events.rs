//! The webhook events the results service announces, written to its outbox in the transaction of
//! the change (see `catan_kit::webhooks`).

use catan_api::{Stage, TableResult, WebhookEventType};
use catan_kit::ApiError;
use catan_kit::webhooks::enqueue;
use diesel::PgConnection;

/// A result recorded or corrected: `result.posted` with the result, and `standings.updated` when
/// its stage counts in the standings (qualifying and Swiss rounds).
pub(crate) fn result_posted(conn: &mut PgConnection, result: &TableResult) -> Result<(), ApiError> {
    enqueue(
        conn,
        WebhookEventType::ResultPosted,
        result.event_id,
        result,
    )?;
    if matches!(result.stage, Stage::Qualifying | Stage::Swiss) {
        let changed = serde_json::json!({
            "event_id": result.event_id,
            "round": result.round,
            "table": result.table,
            "version": result.version,
        });
        enqueue(
            conn,
            WebhookEventType::StandingsUpdated,
            result.event_id,
            &changed,
        )?;
    }
    Ok(())
}
