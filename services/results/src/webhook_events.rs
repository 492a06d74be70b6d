//! The webhook events the results service announces, written to its outbox in the transaction of
//! the change (see `catan_kit::webhooks`).

use catan_api::{ResultStatus, Stage, TableResult, WebhookEventType};
use catan_kit::ApiError;
use catan_kit::webhooks::enqueue;
use diesel::PgConnection;

/// A webhook event a change announces: its type and its `data`.
pub(crate) struct Announcement {
    pub event_type: WebhookEventType,
    pub data: serde_json::Value,
}

impl Announcement {
    fn of(event_type: WebhookEventType, data: &impl serde::Serialize) -> Result<Self, ApiError> {
        Ok(Announcement {
            event_type,
            data: serde_json::to_value(data).map_err(ApiError::internal)?,
        })
    }
}

/// A result recorded or corrected: `result.posted` with the result, and `standings.updated` when
/// its stage counts in the standings (qualifying and Swiss rounds).
pub(crate) fn of_posted(result: &TableResult) -> Result<Vec<Announcement>, ApiError> {
    let mut announced = vec![Announcement::of(WebhookEventType::ResultPosted, result)?];
    announced.extend(standings_updated(result)?);
    Ok(announced)
}

/// A player confirmed a result: `result.confirmed` with the result (its status says whether
/// every player has); and `standings.updated` once it is fully confirmed, since events that count
/// only confirmed results see it count from then on.
pub(crate) fn of_confirmed(result: &TableResult) -> Result<Vec<Announcement>, ApiError> {
    let mut announced = vec![Announcement::of(WebhookEventType::ResultConfirmed, result)?];
    if result.status == ResultStatus::Confirmed {
        announced.extend(standings_updated(result)?);
    }
    Ok(announced)
}

/// A player disputed a result: `result.disputed` with the result and its disputes.
pub(crate) fn of_disputed(result: &TableResult) -> Result<Vec<Announcement>, ApiError> {
    Ok(vec![Announcement::of(
        WebhookEventType::ResultDisputed,
        result,
    )?])
}

fn standings_updated(result: &TableResult) -> Result<Option<Announcement>, ApiError> {
    if !matches!(result.stage, Stage::Qualifying | Stage::Swiss) {
        return Ok(None);
    }
    let changed = serde_json::json!({
        "event_id": result.event_id,
        "round": result.round,
        "table": result.table,
        "version": result.version,
    });
    Announcement::of(WebhookEventType::StandingsUpdated, &changed).map(Some)
}

/// Writes `announced` to the outbox, for event `result`'s event, in the caller's transaction.
pub(crate) fn enqueue_all(
    conn: &mut PgConnection,
    result: &TableResult,
    announced: Vec<Announcement>,
) -> Result<(), ApiError> {
    for announcement in announced {
        enqueue(
            conn,
            announcement.event_type,
            result.event_id,
            &announcement.data,
        )?;
    }
    Ok(())
}
