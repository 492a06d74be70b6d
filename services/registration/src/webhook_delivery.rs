//! Sends the due webhook deliveries: signed, with a timeout, each try recorded, retried with
//! exponential backoff up to the configured number of tries. Replicas share the work: a due
//! delivery is claimed with `FOR UPDATE SKIP LOCKED` and leased while it is being sent.

use catan_api::{WebhookEventType, WebhookMessage};
use catan_kit::ApiError;
use catan_kit::db::{self, PgPool};
use catan_kit::webhooks::{self, WebhookSettings, pg_interval, truncate};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{
    BigInt, Integer, Interval, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid,
};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Notify;
use uuid::Uuid;

/// How many deliveries one pass claims and sends at once.
const BATCH: i64 = 20;

#[derive(QueryableByName)]
struct DueDelivery {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Text)]
    url: String,
    #[diesel(sql_type = Text)]
    secret: String,
    #[diesel(sql_type = SqlUuid)]
    message_id: Uuid,
    #[diesel(sql_type = Text)]
    event_type: String,
    #[diesel(sql_type = SqlUuid)]
    event_id: Uuid,
    #[diesel(sql_type = Jsonb)]
    payload: serde_json::Value,
    #[diesel(sql_type = Timestamptz)]
    occurred_at: DateTime<Utc>,
}

/// What one try came to.
struct Outcome {
    status_code: Option<u16>,
    error: Option<String>,
    elapsed: Duration,
}

impl Outcome {
    fn delivered(&self) -> bool {
        self.error.is_none()
    }
}

/// The HTTP client deliveries are sent with: bounded in time, and never following redirects.
pub fn client(settings: &WebhookSettings) -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(settings.timeout)
        .connect_timeout(settings.timeout.min(Duration::from_secs(5)))
        // A redirect could lead to a private address: receivers answer where they were asked.
        .redirect(reqwest::redirect::Policy::none())
        .build()
}

/// Runs the deliverer with `http` (see [`client`]) until the task is aborted; `due` wakes it when
/// new deliveries arrive.
pub fn spawn(
    pool: PgPool,
    settings: WebhookSettings,
    http: reqwest::Client,
    due: Arc<Notify>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            match deliver_due(&pool, &http, &settings).await {
                // A full batch: more may be due at once.
                Ok(n) if i64::try_from(n).is_ok_and(|n| n == BATCH) => continue,
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e.chain(), "webhook delivery pass failed"),
            }
            tokio::select! {
                _ = due.notified() => {}
                _ = tokio::time::sleep(settings.poll_interval) => {}
            }
        }
    })
}

/// Claims the due deliveries, leasing them for longer than a try can take.
fn claim(conn: &mut PgConnection, lease: Duration) -> Result<Vec<DueDelivery>, ApiError> {
    Ok(diesel::sql_query(
        "WITH due AS ( \
             SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now() \
             ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED) \
         UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = now() + $2 \
         FROM due, webhooks w, webhook_messages m \
         WHERE d.id = due.id AND w.id = d.webhook_id AND m.id = d.message_id \
         RETURNING d.id, d.attempts, w.url, w.secret, m.id AS message_id, m.event_type, m.event_id, m.payload, m.occurred_at",
    )
    .bind::<BigInt, _>(BATCH)
    .bind::<Interval, _>(pg_interval(lease))
    .load(conn)?)
}

async fn deliver_due(
    pool: &PgPool,
    http: &reqwest::Client,
    settings: &WebhookSettings,
) -> Result<usize, ApiError> {
    let lease = settings.timeout * 2 + Duration::from_secs(30);
    let due = db::transaction(pool, move |conn| claim(conn, lease)).await?;
    let claimed = due.len();
    let tries = due.into_iter().map(|delivery| async move {
        let outcome = send(http, settings, &delivery).await;
        record(pool, settings, &delivery, outcome).await
    });
    for result in futures_util::future::join_all(tries).await {
        result?;
    }
    Ok(claimed)
}

/// One signed POST.
async fn send(
    http: &reqwest::Client,
    settings: &WebhookSettings,
    delivery: &DueDelivery,
) -> Outcome {
    let started = Instant::now();
    let failed = |error: String| Outcome {
        status_code: None,
        error: Some(truncate(&error, 500)),
        elapsed: started.elapsed(),
    };
    // Checked again at each try: a name may resolve elsewhere now than when it was subscribed.
    if let Err((_, why)) = webhooks::check_url(&delivery.url, settings.allow_private).await {
        return failed(format!("not sent: {why}"));
    }
    let Some(event_type) = WebhookEventType::parse(&delivery.event_type) else {
        return failed(format!("unknown event type {}", delivery.event_type));
    };
    let message = WebhookMessage {
        id: delivery.message_id,
        event_type,
        timestamp: delivery.occurred_at,
        event_id: delivery.event_id,
        data: delivery.payload.clone(),
    };
    let body = match serde_json::to_vec(&message) {
        Ok(body) => body,
        Err(e) => return failed(e.to_string()),
    };
    let key = match webhooks::secret_key(&delivery.secret) {
        Ok(key) => key,
        Err(e) => return failed(format!("unusable secret: {e}")),
    };
    let message_id = delivery.message_id.to_string();
    let timestamp = Utc::now().timestamp();
    let signature = webhooks::signature(&key, &message_id, timestamp, &body);
    let answer = http
        .post(&delivery.url)
        .header("content-type", "application/json")
        .header("user-agent", "catan-webhooks/1")
        .header("webhook-id", &message_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(body)
        .send()
        .await;
    match answer {
        Ok(response) => {
            let status = response.status();
            Outcome {
                status_code: Some(status.as_u16()),
                error: (!status.is_success()).then(|| format!("answered {status}")),
                elapsed: started.elapsed(),
            }
        }
        Err(e) if e.is_timeout() => failed(format!(
            "no answer within {} ms",
            settings.timeout.as_millis()
        )),
        Err(e) => failed(format!("could not send: {e}")),
    }
}

/// Records the try and decides what follows: delivered, another try later, or failed for good.
async fn record(
    pool: &PgPool,
    settings: &WebhookSettings,
    delivery: &DueDelivery,
    outcome: Outcome,
) -> Result<(), ApiError> {
    let id = delivery.id;
    let attempts = delivery.attempts;
    // Never negative: the claim counts the tries up from 0.
    let tries = u32::try_from(attempts).unwrap_or(u32::MAX);
    let exhausted = tries >= settings.max_attempts;
    let retry_in = pg_interval(settings.backoff(tries));
    let delivered = outcome.delivered();
    if delivered {
        tracing::info!(delivery = %id, attempts, "webhook delivered");
    } else {
        tracing::warn!(delivery = %id, attempts, error = ?outcome.error, exhausted, "webhook delivery failed");
    }
    db::transaction(pool, move |conn| {
        diesel::sql_query(
            "INSERT INTO webhook_attempts (delivery_id, number, status_code, error, duration_ms) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT DO NOTHING",
        )
        .bind::<SqlUuid, _>(id)
        .bind::<Integer, _>(attempts)
        .bind::<Nullable<Integer>, _>(outcome.status_code.map(i32::from))
        .bind::<Nullable<Text>, _>(outcome.error.clone())
        .bind::<BigInt, _>(i64::try_from(outcome.elapsed.as_millis()).unwrap_or(i64::MAX))
        .execute(conn)?;
        // Only a pending delivery moves on: one cancelled meanwhile stays cancelled.
        diesel::sql_query(
            "UPDATE webhook_deliveries SET last_status_code = $2, last_error = $3, \
                 status = CASE WHEN $4 THEN 'delivered' WHEN $5 THEN 'failed' ELSE 'pending' END, \
                 delivered_at = CASE WHEN $4 THEN now() END, \
                 next_attempt_at = CASE WHEN $4 OR $5 THEN NULL ELSE now() + $6 END \
             WHERE id = $1 AND status = 'pending'",
        )
        .bind::<SqlUuid, _>(id)
        .bind::<Nullable<Integer>, _>(outcome.status_code.map(i32::from))
        .bind::<Nullable<Text>, _>(outcome.error)
        .bind::<diesel::sql_types::Bool, _>(delivered)
        .bind::<diesel::sql_types::Bool, _>(exhausted)
        .bind::<Interval, _>(retry_in)
        .execute(conn)?;
        Ok(())
    })
    .await
}
