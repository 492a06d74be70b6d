//! Sends the due webhook deliveries: signed, with a timeout, each try recorded, retried with
//! exponential backoff up to the configured number of tries; one that failed its last is a dead
//! letter the admin may replay. Replicas share the work: a due delivery is claimed with
//! `FOR UPDATE SKIP LOCKED` and leased while it is being sent.

use crate::schema::registration::{
    webhook_attempts, webhook_deliveries, webhook_messages, webhooks,
};
use catan_api::{WebhookEventType, WebhookMessage};
use catan_kit::ApiError;
use catan_kit::db::{self, PgPool};
use catan_kit::metrics::{DeliveryOutcome, WebhookDeliveries};
use catan_kit::webhooks::{
    VettedUrl, WebhookSettings, pg_interval, secret_key, signature, truncate, vet_url,
};
use chrono::{DateTime, Utc};
use diesel::dsl::{case_when, now};
use diesel::prelude::*;
use diesel::sql_types::{Bool, Interval, Nullable, Text, Timestamptz};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Notify;
use uuid::Uuid;

/// How many deliveries one pass claims and sends at once.
const BATCH: i64 = 20;

/// A claimed delivery, with its subscription's URL and secret and its message.
#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_deliveries)]
struct DueDelivery {
    id: Uuid,
    attempts: i32,
    #[diesel(select_expression = webhooks::url)]
    url: String,
    #[diesel(select_expression = webhooks::secret)]
    secret: String,
    message_id: Uuid,
    #[diesel(select_expression = webhook_messages::event_type)]
    event_type: String,
    #[diesel(select_expression = webhook_messages::event_id)]
    event_id: Uuid,
    #[diesel(select_expression = webhook_messages::payload)]
    payload: serde_json::Value,
    #[diesel(select_expression = webhook_messages::occurred_at)]
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

/// How deliveries are sent: bounded in time, never following redirects, and through no proxy.
fn builder(settings: &WebhookSettings) -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .timeout(settings.timeout)
        .connect_timeout(settings.timeout.min(Duration::from_secs(5)))
        // A redirect could lead to a private address: receivers answer where they were asked.
        .redirect(reqwest::redirect::Policy::none())
        // A proxy would resolve the name again, past the addresses vetted.
        .no_proxy()
}

/// The HTTP client deliveries to an address (not a name) are sent with (see [`builder`]).
pub fn client(settings: &WebhookSettings) -> reqwest::Result<reqwest::Client> {
    builder(settings).build()
}

/// The client for one try at `vetted`: to a name, one that connects only to the addresses the
/// name was vetted at this try, so a name resolving elsewhere since (DNS rebinding) is not
/// followed; to an address, the shared `http`.
fn client_for(
    http: &reqwest::Client,
    settings: &WebhookSettings,
    vetted: &VettedUrl,
) -> reqwest::Result<reqwest::Client> {
    match &vetted.resolved {
        Some((host, addresses)) => builder(settings).resolve_to_addrs(host, addresses).build(),
        None => Ok(http.clone()),
    }
}

/// Runs the deliverer with `http` (see [`client`]) until the task is aborted; `due` wakes it when
/// new deliveries arrive.
pub fn spawn(
    pool: PgPool,
    settings: WebhookSettings,
    http: reqwest::Client,
    due: Arc<Notify>,
    counted: Option<WebhookDeliveries>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        // Deliveries leased by a replica that stopped mid-try would wait out their lease (a
        // minute or more): a replica that starts makes every pending delivery due at once.
        // Receivers tell a delivery sent twice by its `webhook-id`.
        let due_now = db::run(&pool, |conn| {
            diesel::update(
                webhook_deliveries::table
                    .filter(webhook_deliveries::status.eq("pending"))
                    .filter(webhook_deliveries::next_attempt_at.gt(now)),
            )
            .set(webhook_deliveries::next_attempt_at.eq(now.into_sql::<Timestamptz>().nullable()))
            .execute(conn)?;
            Ok(())
        })
        .await;
        if let Err(e) = due_now {
            tracing::warn!(error = %e.chain(), "could not make the waiting deliveries due");
        }
        loop {
            match deliver_due(&pool, &http, &settings, counted.as_ref()).await {
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

/// Claims the due deliveries, leasing them for longer than a try can take (call it in a
/// transaction: the claimed rows stay locked until it commits).
fn claim(conn: &mut PgConnection, lease: Duration) -> Result<Vec<DueDelivery>, ApiError> {
    let due: Vec<Uuid> = webhook_deliveries::table
        .filter(webhook_deliveries::status.eq("pending"))
        .filter(webhook_deliveries::next_attempt_at.le(now))
        .order(webhook_deliveries::next_attempt_at)
        .limit(BATCH)
        .select(webhook_deliveries::id)
        .for_update()
        .skip_locked()
        .load(conn)?;
    if due.is_empty() {
        return Ok(Vec::new());
    }
    diesel::update(webhook_deliveries::table.filter(webhook_deliveries::id.eq_any(&due)))
        .set((
            webhook_deliveries::attempts.eq(webhook_deliveries::attempts + 1),
            webhook_deliveries::next_attempt_at.eq((now.into_sql::<Timestamptz>()
                + pg_interval(lease).into_sql::<Interval>())
            .nullable()),
        ))
        .execute(conn)?;
    Ok(webhook_deliveries::table
        .inner_join(webhooks::table)
        .inner_join(webhook_messages::table)
        .filter(webhook_deliveries::id.eq_any(&due))
        .select(DueDelivery::as_select())
        .load(conn)?)
}

async fn deliver_due(
    pool: &PgPool,
    http: &reqwest::Client,
    settings: &WebhookSettings,
    counted: Option<&WebhookDeliveries>,
) -> Result<usize, ApiError> {
    let lease = settings.timeout * 2 + Duration::from_secs(30);
    let due = db::transaction(pool, move |conn| claim(conn, lease)).await?;
    let claimed = due.len();
    let tries = due.into_iter().map(|delivery| async move {
        let outcome = send(http, settings, &delivery).await;
        let counted_as = record(pool, settings, &delivery, outcome).await?;
        if let Some(counted) = counted {
            counted.count(counted_as);
        }
        Ok::<_, ApiError>(())
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
    // Checked again at each try, resolving the name once: it may resolve elsewhere now than
    // when it was subscribed, and the try connects to the addresses vetted here.
    let vetted = match vet_url(&delivery.url, settings.allow_private).await {
        Ok(vetted) => vetted,
        Err((_, why)) => return failed(format!("not sent: {why}")),
    };
    let http = match client_for(http, settings, &vetted) {
        Ok(http) => http,
        Err(e) => return failed(format!("no client: {}", e.without_url())),
    };
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
    let key = match secret_key(&delivery.secret) {
        Ok(key) => key,
        Err(e) => return failed(format!("unusable secret: {e}")),
    };
    let message_id = delivery.message_id.to_string();
    let timestamp = Utc::now().timestamp();
    let signature = signature(&key, &message_id, timestamp, &body);
    let answer = http
        .post(vetted.url)
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
        // reqwest names the URL in its error; its path and query often hold a token.
        Err(e) => failed(format!("could not send: {}", e.without_url())),
    }
}

/// A webhook URL as it may be logged: scheme, host and port only, since paths and queries often
/// hold a token.
pub fn logged_origin(url: &str) -> String {
    reqwest::Url::parse(url).map_or_else(
        |_| "(not a URL)".to_string(),
        |url| url.origin().ascii_serialization(),
    )
}

/// Records the try and decides what follows: delivered, another try later, or failed: a dead
/// letter, until the admin replays it.
async fn record(
    pool: &PgPool,
    settings: &WebhookSettings,
    delivery: &DueDelivery,
    outcome: Outcome,
) -> Result<DeliveryOutcome, ApiError> {
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
        tracing::warn!(delivery = %id, to = %logged_origin(&delivery.url), attempts, error = ?outcome.error, exhausted, "webhook delivery failed");
    }
    db::transaction(pool, move |conn| {
        // Numbered after every earlier try: a replay counts `attempts` from 0 again.
        let earlier: i64 = webhook_attempts::table
            .filter(webhook_attempts::delivery_id.eq(id))
            .count()
            .get_result(conn)?;
        let number = i32::try_from(earlier + 1).map_err(ApiError::internal)?;
        diesel::insert_into(webhook_attempts::table)
            .values((
                webhook_attempts::delivery_id.eq(id),
                webhook_attempts::number.eq(number),
                webhook_attempts::status_code.eq(outcome.status_code.map(i32::from)),
                webhook_attempts::error.eq(outcome.error.clone()),
                webhook_attempts::duration_ms
                    .eq(i64::try_from(outcome.elapsed.as_millis()).unwrap_or(i64::MAX)),
            ))
            .on_conflict_do_nothing()
            .execute(conn)?;
        // Only a pending delivery moves on: one cancelled meanwhile stays cancelled.
        let delivered_sql = || delivered.into_sql::<Bool>();
        let exhausted_sql = || exhausted.into_sql::<Bool>();
        diesel::update(
            webhook_deliveries::table
                .filter(webhook_deliveries::id.eq(id))
                .filter(webhook_deliveries::status.eq("pending")),
        )
        .set((
            webhook_deliveries::last_status_code.eq(outcome.status_code.map(i32::from)),
            webhook_deliveries::last_error.eq(outcome.error),
            webhook_deliveries::status.eq(case_when(
                delivered_sql(),
                "delivered".into_sql::<Text>(),
            )
            .when(exhausted_sql(), "failed".into_sql::<Text>())
            .otherwise("pending".into_sql::<Text>())),
            webhook_deliveries::delivered_at
                .eq(case_when(delivered_sql(), now.into_sql::<Timestamptz>())),
            // A dead letter from now on, until the admin replays it.
            webhook_deliveries::dead_at.eq(case_when(
                (!delivered && exhausted).into_sql::<Bool>(),
                now.into_sql::<Timestamptz>(),
            )),
            webhook_deliveries::next_attempt_at.eq(case_when(
                delivered_sql().or(exhausted_sql()),
                None::<DateTime<Utc>>.into_sql::<Nullable<Timestamptz>>(),
            )
            .otherwise(
                (now.into_sql::<Timestamptz>() + retry_in.into_sql::<Interval>()).nullable(),
            )),
        ))
        .execute(conn)?;
        Ok(())
    })
    .await?;
    Ok(match (delivered, exhausted) {
        (true, _) => DeliveryOutcome::Delivered,
        (false, true) => DeliveryOutcome::Failed,
        (false, false) => DeliveryOutcome::Retry,
    })
}
