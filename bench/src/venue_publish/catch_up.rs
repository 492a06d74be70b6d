//! The federation's read model catching up on a publish, and what a suite shows of the event:
//! its standings, placements and season table, compared between the venue and the federation.

use crate::harness::round1;
use anyhow::bail;
use catan_api::{ApiClient, ClientError, Position};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// How long the federation may take to show the published event.
const DEADLINE: Duration = Duration::from_secs(120);
/// Between two polls.
const POLL: Duration = Duration::from_millis(20);

/// What a suite shows of the event, without the instants it was computed at.
pub async fn shown(client: &ApiClient, event_id: Uuid, season_id: Uuid) -> anyhow::Result<Value> {
    Ok(json!({
        "standings": standings(client, event_id).await?,
        "placements": placements(client, event_id).await?,
        "season": season(client, season_id).await?,
    }))
}

async fn standings(client: &ApiClient, event_id: Uuid) -> Result<Value, ClientError> {
    let s = client.standings(event_id).await?;
    Ok(json!([s.after_round, s.results_counted, s.rows]))
}

async fn placements(client: &ApiClient, event_id: Uuid) -> Result<Value, ClientError> {
    let p = client.placements(event_id).await?;
    Ok(json!([p.complete, p.rows]))
}

/// Every row of the season's table, page by page.
async fn season(client: &ApiClient, season_id: Uuid) -> Result<Value, ClientError> {
    const PAGE: u32 = 1000;
    let mut rows = Vec::new();
    loop {
        let offset = u32::try_from(rows.len()).unwrap_or(u32::MAX);
        let page = client
            .season_standings(season_id, None, PAGE, offset)
            .await?;
        let full = page.rows.len() == PAGE as usize;
        rows.extend(page.rows);
        if !full {
            return Ok(json!(rows));
        }
    }
}

/// Milliseconds from `since` until `read` answers `expected`, polled; an error past the
/// deadline.
async fn until_shown<F, Fut>(
    what: &str,
    since: Instant,
    expected: &Value,
    read: F,
) -> anyhow::Result<f64>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<Value, ClientError>>,
{
    loop {
        match read().await {
            Ok(value) if value == *expected => {
                return Ok(round1(since.elapsed().as_secs_f64() * 1000.0));
            }
            // A read model still taking the event in may answer 404 (no view yet) or 503.
            Ok(_) | Err(ClientError::Problem { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        if since.elapsed() > DEADLINE {
            bail!("the federation's {what} did not equal the venue's in {DEADLINE:?}");
        }
        tokio::time::sleep(POLL).await;
    }
}

/// From the publish's end (`ended`): how long until a read of the federation's standings that
/// carries the applies' `position` answers them whole (retried while it answers 503 or
/// without every result), and until the standings, the placements and the season table polled
/// without a position equal what the venue showed (`venue`, from [`shown`]).
pub async fn measure(
    federation: &ApiClient,
    position: Position,
    ended: Instant,
    event_id: Uuid,
    season_id: Uuid,
    venue: &Value,
) -> anyhow::Result<Value> {
    let positioned = federation.with_position(position);
    let counted = &venue["standings"][1];
    let reads = std::cell::Cell::new(0u32);
    let token_read = async {
        loop {
            reads.set(reads.get() + 1);
            match positioned.standings(event_id).await {
                Ok(s) if json!(s.results_counted) == *counted => {
                    return anyhow::Ok(round1(ended.elapsed().as_secs_f64() * 1000.0));
                }
                Ok(_) | Err(ClientError::Problem { .. }) => {}
                Err(e) => return Err(e.into()),
            }
            if ended.elapsed() > DEADLINE {
                bail!("a read with the publish's position never counted every result");
            }
        }
    };
    let (token_read, standings_ms, placements_ms, season_ms) = tokio::try_join!(
        token_read,
        until_shown("standings", ended, &venue["standings"], || standings(
            federation, event_id
        )),
        until_shown("placements", ended, &venue["placements"], || placements(
            federation, event_id
        )),
        until_shown("season table", ended, &venue["season"], || season(
            federation, season_id
        )),
    )?;
    Ok(json!({
        "positioned_read_ms": token_read,
        "positioned_reads": reads.get(),
        "standings_polled_ms": standings_ms,
        "placements_polled_ms": placements_ms,
        "season_polled_ms": season_ms,
    }))
}
