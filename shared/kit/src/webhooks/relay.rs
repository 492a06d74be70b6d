//! The outbox relay: hands a producing service's outbox to registration's inbox, with backoff.

use super::batches::{Answer, batches, refuses_the_body, send_halving};
use super::{
    INBOX_BODY_LIMIT_BYTES, INBOX_PATH, OutboxEvent, WebhookSettings, pg_interval, truncate,
};
use crate::ApiError;
use crate::db::PgPool;
use crate::schema::outbox;
use crate::settings::ExposeSecret;
use catan_api::WebhookEventType;
use chrono::{DateTime, Utc};
use diesel::dsl::{IntervalDsl, case_when, now};
use diesel::prelude::*;
use diesel::sql_types::{Bool, Timestamptz};
use std::ops::Range;
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

/// How many outbox rows one relay pass claims.
const RELAY_BATCH: i64 = 100;
/// The most bytes of serialized events one call to the inbox carries: well under the inbox's own
/// limit ([`INBOX_BODY_LIMIT_BYTES`]), so that only an event larger than that is refused.
pub const RELAY_BATCH_BYTES: usize = 1024 * 1024;
/// A claimed row is due again after this if its relay never finished (a crash mid-call).
const RELAY_LEASE_SECONDS: i32 = 30;
/// The longest wait between relay tries of one row.
const RELAY_MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Claims the due outbox rows: other replicas skip them until the lease runs out. The claim
/// commits without waiting for the disk: lost in a crash, it only makes its rows due at once
/// rather than after the lease, and registration takes a row relayed again once (by its id). The
/// removal of what registration took waits for the disk, and with it every claim before it: a
/// lost removal would keep its rows from being relayed until their lease ran out.
fn claim_outbox(conn: &mut PgConnection) -> Result<Vec<OutboxRow>, ApiError> {
    crate::db::commit_without_flush(conn)?;
    let due: Vec<Uuid> = outbox::table
        .filter(outbox::dead_at.is_null())
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
            let waiting = outbox::next_attempt_at
                .gt(now)
                .and(outbox::dead_at.is_null());
            diesel::update(outbox::table.filter(waiting))
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

/// Relays the due events, in calls of at most [`RELAY_BATCH_BYTES`]; answers how many rows it
/// claimed. An event registration refuses for its size (or its content) fails alone; an event
/// that has failed `relay_max_attempts` times is a dead letter, no longer tried.
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
    let mut failures: Vec<(&OutboxRow, String)> = Vec::new();
    let mut sendable: Vec<(&OutboxRow, Vec<u8>)> = Vec::new();
    for row in &rows {
        match encode(row) {
            // Not sent at all: the inbox would refuse it, perhaps before reading it whole.
            Ok(body) if body.len() > INBOX_BODY_LIMIT_BYTES => {
                let why = format!(
                    "the event is {} bytes, more than registration takes ({INBOX_BODY_LIMIT_BYTES})",
                    body.len()
                );
                failures.push((row, why));
            }
            Ok(body) => sendable.push((row, body)),
            Err(why) => failures.push((row, why)),
        }
    }
    let sizes: Vec<usize> = sendable.iter().map(|(_, body)| body.len()).collect();
    let cut = batches(&sizes, sizes.len(), RELAY_BATCH_BYTES);
    let events = &sendable;
    let outcome = send_halving(sendable.len(), cut, |batch: Range<usize>| {
        post(http, inbox, key, &events[batch])
    })
    .await;
    let mut taken = Vec::new();
    for ((row, _), failed) in sendable.iter().zip(outcome) {
        match failed {
            None => taken.push(row.id),
            Some(why) => failures.push((row, why)),
        }
    }
    record(pool, settings, taken, &failures).await?;
    Ok(claimed)
}

/// Removes the events registration took from the outbox, and reschedules the others with their
/// backoff, or keeps them as dead letters when they are out of tries.
async fn record(
    pool: &PgPool,
    settings: &WebhookSettings,
    taken: Vec<Uuid>,
    failures: &[(&OutboxRow, String)],
) -> Result<(), ApiError> {
    let failed: Vec<Failure> = failures
        .iter()
        .map(|(row, why)| Failure {
            id: row.id,
            wait: relay_backoff(settings.poll_interval, row.attempts),
            dead: is_dead(row.attempts, settings),
            error: truncate(why, 500),
        })
        .collect();
    if let Some((_, error)) = failures.first() {
        let dead = failed.iter().filter(|f| f.dead).count();
        tracing::warn!(%error, failed = failed.len(), dead, "registration did not take webhook events; retrying later");
    }
    crate::db::transaction(pool, move |conn| {
        diesel::delete(outbox::table.filter(outbox::id.eq_any(&taken))).execute(conn)?;
        for failure in failed {
            record_failure(conn, failure)?;
        }
        Ok(())
    })
    .await
}

/// A row's event as it travels, serialized.
fn encode(row: &OutboxRow) -> Result<Vec<u8>, String> {
    let event_type = WebhookEventType::parse(&row.event_type)
        .ok_or_else(|| format!("unknown event type {}", row.event_type))?;
    serde_json::to_vec(&OutboxEvent {
        id: row.id,
        event_type,
        event_id: row.event_id,
        occurred_at: row.occurred_at,
        data: row.payload.clone(),
    })
    .map_err(|e| e.to_string())
}

/// One call to the inbox with these serialized events as its batch.
async fn post(
    http: &reqwest::Client,
    inbox: &str,
    key: &str,
    events: &[(&OutboxRow, Vec<u8>)],
) -> Answer {
    let mut body = Vec::with_capacity(events.iter().map(|(_, e)| e.len() + 1).sum::<usize>() + 16);
    body.extend_from_slice(b"{\"events\":[");
    for (i, (_, event)) in events.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(event);
    }
    body.extend_from_slice(b"]}");
    let sent = http
        .post(inbox)
        .bearer_auth(key)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await;
    match sent {
        Ok(response) if response.status().is_success() => Answer::Taken,
        Ok(response) => {
            let status = response.status();
            let why = format!("registration answered {status}");
            if refuses_the_body(status.as_u16()) {
                Answer::RefusedBody(why)
            } else {
                Answer::Failed(why)
            }
        }
        Err(e) => Answer::Failed(e.to_string()),
    }
}

/// Whether a row that failed its `attempts`-th relay is a dead letter now.
fn is_dead(attempts: i32, settings: &WebhookSettings) -> bool {
    u32::try_from(attempts).is_ok_and(|tries| tries >= settings.relay_max_attempts)
}

/// The wait after a row's `attempts`-th failed relay: the poll interval doubled each time, at
/// most [`RELAY_MAX_BACKOFF`].
fn relay_backoff(poll: Duration, attempts: i32) -> Duration {
    (poll * 2u32.saturating_pow(attempts.clamp(1, 16).unsigned_abs())).min(RELAY_MAX_BACKOFF)
}

/// A row the relay did not hand over this time.
struct Failure {
    id: Uuid,
    wait: Duration,
    dead: bool,
    error: String,
}

fn record_failure(conn: &mut PgConnection, failure: Failure) -> Result<(), ApiError> {
    if failure.dead {
        tracing::error!(event = %failure.id, error = %failure.error, "webhook event is a dead letter: no more relays until it is replayed");
    }
    diesel::update(outbox::table.filter(outbox::id.eq(failure.id)))
        .set((
            outbox::next_attempt_at.eq(now.into_sql::<Timestamptz>() + pg_interval(failure.wait)),
            outbox::last_error.eq(failure.error),
            outbox::dead_at.eq(case_when(
                failure.dead.into_sql::<Bool>(),
                now.into_sql::<Timestamptz>(),
            )),
        ))
        .execute(conn)?;
    Ok(())
}
