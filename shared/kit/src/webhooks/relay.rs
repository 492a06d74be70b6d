//! The outbox relay: hands a producing service's outbox to registration's inbox, with backoff.

use super::{INBOX_PATH, InboxBatch, OutboxEvent, WebhookSettings, pg_interval, truncate};
use crate::ApiError;
use crate::db::PgPool;
use crate::schema::outbox;
use crate::settings::ExposeSecret;
use catan_api::WebhookEventType;
use chrono::{DateTime, Utc};
use diesel::dsl::{IntervalDsl, now};
use diesel::prelude::*;
use diesel::sql_types::Timestamptz;
use std::time::Duration;
use uuid::Uuid;

#[derive(Queryable, Selectable)]
#[diesel(table_name = outbox)]
struct OutboxRow {
    id: Uuid,
    event_type: String,
    event_id: Uuid,
    payload: serde_json::Value,
    occurred_at: DateTime<Utc>,
    attempts: i32,
}

/// How many outbox rows one relay call carries.
const RELAY_BATCH: i64 = 100;
/// A claimed row is due again after this if its relay never finished (a crash mid-call).
const RELAY_LEASE_SECONDS: i32 = 30;
/// The longest wait between relay tries of one row.
const RELAY_MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Claims the due outbox rows: other replicas skip them until the lease runs out.
fn claim_outbox(conn: &mut PgConnection) -> Result<Vec<OutboxRow>, ApiError> {
    let due: Vec<Uuid> = outbox::table
        .filter(outbox::next_attempt_at.le(now))
        .order((outbox::occurred_at, outbox::id))
        .limit(RELAY_BATCH)
        .select(outbox::id)
        .for_update()
        .skip_locked()
        .load(conn)?;
    Ok(
        diesel::update(outbox::table.filter(outbox::id.eq_any(&due)))
            .set((
                outbox::attempts.eq(outbox::attempts + 1),
                outbox::next_attempt_at
                    .eq(now.into_sql::<Timestamptz>() + RELAY_LEASE_SECONDS.seconds()),
            ))
            .returning(OutboxRow::as_returning())
            .get_results(conn)?,
    )
}

/// Runs the outbox relay of a producing service until the task is aborted.
pub fn spawn_relay(
    pool: PgPool,
    registration_url: &str,
    settings: WebhookSettings,
) -> tokio::task::JoinHandle<()> {
    let inbox = format!("{}{INBOX_PATH}", registration_url.trim_end_matches('/'));
    tokio::spawn(async move {
        let Some(key) = settings.internal_key.clone() else {
            tracing::warn!("CATAN_INTERNAL_KEY is not set: webhook events stay in the outbox");
            return;
        };
        let http = match reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .connect_timeout(Duration::from_secs(2))
            .build()
        {
            Ok(http) => http,
            Err(error) => {
                tracing::error!(%error, "no HTTP client: webhook events stay in the outbox");
                return;
            }
        };
        // A replica that starts tries every waiting event at once rather than after the backoff
        // it had reached while registration was away (registration keeps each event once, by
        // its id, so a row another replica is relaying right now is not delivered twice).
        let due_now = crate::db::run(&pool, |conn| {
            diesel::update(outbox::table.filter(outbox::next_attempt_at.gt(now)))
                .set(outbox::next_attempt_at.eq(now))
                .execute(conn)?;
            Ok(())
        })
        .await;
        if let Err(e) = due_now {
            tracing::warn!(error = %e, "could not reschedule the outbox");
        }
        loop {
            match relay_once(&pool, &http, &inbox, key.expose_secret(), &settings).await {
                // A full batch may mean more are due: go on at once.
                Ok(n) if i64::try_from(n) == Ok(RELAY_BATCH) => continue,
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "outbox relay failed"),
            }
            tokio::time::sleep(settings.poll_interval).await;
        }
    })
}

/// Relays one batch; answers how many rows it claimed.
async fn relay_once(
    pool: &PgPool,
    http: &reqwest::Client,
    inbox: &str,
    key: &str,
    settings: &WebhookSettings,
) -> Result<usize, ApiError> {
    let rows = crate::db::transaction(pool, claim_outbox).await?;
    if rows.is_empty() {
        return Ok(0);
    }
    let claimed = rows.len();
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let most_attempts = rows.iter().map(|r| r.attempts).max().unwrap_or(1);
    let events = rows
        .into_iter()
        .filter_map(|row| {
            let event_type = WebhookEventType::parse(&row.event_type)?;
            Some(OutboxEvent {
                id: row.id,
                event_type,
                event_id: row.event_id,
                occurred_at: row.occurred_at,
                data: row.payload,
            })
        })
        .collect();
    let sent = http
        .post(inbox)
        .bearer_auth(key)
        .json(&InboxBatch { events })
        .send()
        .await
        .map_err(|e| e.to_string())
        .and_then(|r| r.error_for_status().map_err(|e| e.to_string()));
    match sent {
        Ok(_) => {
            crate::db::run(pool, move |conn| {
                diesel::delete(outbox::table.filter(outbox::id.eq_any(&ids))).execute(conn)?;
                Ok(())
            })
            .await?;
        }
        Err(error) => {
            tracing::warn!(%error, rows = claimed, "registration did not take the webhook events; retrying later");
            let wait = (settings.poll_interval
                * 2u32.saturating_pow(most_attempts.clamp(1, 16).unsigned_abs()))
            .min(RELAY_MAX_BACKOFF);
            crate::db::run(pool, move |conn| {
                diesel::update(outbox::table.filter(outbox::id.eq_any(&ids)))
                    .set((
                        outbox::next_attempt_at
                            .eq(now.into_sql::<Timestamptz>() + pg_interval(wait)),
                        outbox::last_error.eq(truncate(&error, 500)),
                    ))
                    .execute(conn)?;
                Ok(())
            })
            .await?;
        }
    }
    Ok(claimed)
}
