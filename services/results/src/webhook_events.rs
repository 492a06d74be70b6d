//! The webhook events the results service announces, written to its outbox in the transaction of
//! the change (see `catan_kit::webhooks`).

use catan_api::{ResultStatus, Stage, TableResult, WebhookEventType};
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
    standings_updated(conn, result)
}

/// A player confirmed a result: `result.confirmed` with the result (its status says whether
/// every player has); and `standings.updated` once it is fully confirmed, since events that count
/// only confirmed results see it count from then on.
pub(crate) fn result_confirmed(
    conn: &mut PgConnection,
    result: &TableResult,
) -> Result<(), ApiError> {
    enqueue(
        conn,
        WebhookEventType::ResultConfirmed,
        result.event_id,
        result,
    )?;
    if result.status == ResultStatus::Confirmed {
        standings_updated(conn, result)?;
    }
    Ok(())
}

/// A player disputed a result: `result.disputed` with the result and its disputes.
pub(crate) fn result_disputed(
    conn: &mut PgConnection,
    result: &TableResult,
) -> Result<(), ApiError> {
    enqueue(
        conn,
        WebhookEventType::ResultDisputed,
        result.event_id,
        result,
    )
}

fn standings_updated(conn: &mut PgConnection, result: &TableResult) -> Result<(), ApiError> {
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
