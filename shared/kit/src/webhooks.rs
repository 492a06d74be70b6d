//! Webhooks: the outbox every producing service writes in its own transactions, the relay that
//! hands the outbox to registration, and what registration needs to sign and send deliveries.
//!
//! Design: subscriptions and their secrets live in registration only. A producing service
//! (pairing, results) calls [`enqueue`] inside the transaction of its change, so the event exists
//! exactly when the change does. Its [`spawn_relay`] task claims due outbox rows with
//! `FOR UPDATE SKIP LOCKED` (replicas share the work), posts them to registration's internal
//! inbox (`POST /internal/webhook-events`, authenticated by `CATAN_INTERNAL_KEY`, not routed by
//! the gateway), and deletes them once registration has stored them; a failure reschedules them
//! with backoff, so events survive restarts of either side. Registration fans each event out to
//! the matching subscriptions and alone signs and delivers them, with bounded retries.

use crate::ApiError;
use crate::db::PgPool;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use catan_api::WebhookEventType;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Integer, Interval, Jsonb, Text, Timestamptz, Uuid as SqlUuid};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::net::IpAddr;
use std::time::Duration;
use uuid::Uuid;

/// The path of registration's internal inbox.
pub const INBOX_PATH: &str = "/internal/webhook-events";

/// Webhook settings, from the environment.
#[derive(Debug, Clone)]
pub struct WebhookSettings {
    /// `CATAN_WEBHOOKS_ALLOW_PRIVATE`: accept URLs on loopback and private networks (tests,
    /// on-premises receivers). Off by default: such URLs would reach our own network.
    pub allow_private: bool,
    /// `CATAN_INTERNAL_KEY`: authenticates the services' calls to registration's inbox. Without
    /// it, events wait in the outboxes.
    pub internal_key: Option<String>,
    /// `CATAN_WEBHOOKS_MAX_ATTEMPTS`: tries per delivery (default 8).
    pub max_attempts: u32,
    /// `CATAN_WEBHOOKS_FIRST_RETRY_MS`: the wait after the first failed try, doubled after each
    /// (default 30 s: 8 tries span about an hour).
    pub first_retry: Duration,
    /// `CATAN_WEBHOOKS_TIMEOUT_MS`: how long a receiver may take to answer (default 10 s).
    pub timeout: Duration,
    /// `CATAN_WEBHOOKS_POLL_MS`: how often the outbox and the deliveries are checked (default 500).
    pub poll_interval: Duration,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        WebhookSettings {
            allow_private: false,
            internal_key: None,
            max_attempts: 8,
            first_retry: Duration::from_secs(30),
            timeout: Duration::from_secs(10),
            poll_interval: Duration::from_millis(500),
        }
    }
}

impl WebhookSettings {
    pub fn from_env() -> Result<Self, String> {
        use crate::config::env_parse;
        let defaults = WebhookSettings::default();
        let millis = |name: &str, default: Duration| -> Result<Duration, String> {
            env_parse(name, default.as_millis() as u64).map(Duration::from_millis)
        };
        Ok(WebhookSettings {
            allow_private: env_parse("CATAN_WEBHOOKS_ALLOW_PRIVATE", false)?,
            internal_key: std::env::var("CATAN_INTERNAL_KEY")
                .ok()
                .filter(|k| !k.trim().is_empty()),
            max_attempts: env_parse("CATAN_WEBHOOKS_MAX_ATTEMPTS", defaults.max_attempts)?.max(1),
            first_retry: millis("CATAN_WEBHOOKS_FIRST_RETRY_MS", defaults.first_retry)?,
            timeout: millis("CATAN_WEBHOOKS_TIMEOUT_MS", defaults.timeout)?,
            poll_interval: millis("CATAN_WEBHOOKS_POLL_MS", defaults.poll_interval)?,
        })
    }

    /// The wait after the `attempts`-th failed try: the first retry doubled each time.
    pub fn backoff(&self, attempts: u32) -> Duration {
        self.first_retry
            .saturating_mul(1u32 << attempts.saturating_sub(1).min(20))
    }
}

// ---------------------------------------------------------------- the outbox

/// An event as it travels from a service's outbox to registration's inbox.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutboxEvent {
    pub id: Uuid,
    pub event_type: WebhookEventType,
    pub event_id: Uuid,
    pub occurred_at: DateTime<Utc>,
    pub data: serde_json::Value,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InboxBatch {
    pub events: Vec<OutboxEvent>,
}

/// Records that `event_type` happened in event `event_id`, with `data` as the webhook's `data`.
/// Call it inside the transaction of the change: the event is sent if and only if it commits.
pub fn enqueue(
    conn: &mut PgConnection,
    event_type: WebhookEventType,
    event_id: Uuid,
    data: &impl Serialize,
) -> Result<(), ApiError> {
    let data = serde_json::to_value(data).map_err(ApiError::internal)?;
    diesel::sql_query(
        "INSERT INTO outbox (id, event_type, event_id, payload) VALUES ($1, $2, $3, $4)",
    )
    .bind::<SqlUuid, _>(Uuid::new_v4())
    .bind::<Text, _>(event_type.as_str())
    .bind::<SqlUuid, _>(event_id)
    .bind::<Jsonb, _>(data)
    .execute(conn)?;
    Ok(())
}

#[derive(QueryableByName)]
struct OutboxRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    event_type: String,
    #[diesel(sql_type = SqlUuid)]
    event_id: Uuid,
    #[diesel(sql_type = Jsonb)]
    payload: serde_json::Value,
    #[diesel(sql_type = Timestamptz)]
    occurred_at: DateTime<Utc>,
    #[diesel(sql_type = Integer)]
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
    Ok(diesel::sql_query(
        "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $1) \
         WHERE id IN (SELECT id FROM outbox WHERE next_attempt_at <= now() ORDER BY occurred_at, id \
                      LIMIT $2 FOR UPDATE SKIP LOCKED) \
         RETURNING id, event_type, event_id, payload, occurred_at, attempts",
    )
    .bind::<Integer, _>(RELAY_LEASE_SECONDS)
    .bind::<diesel::sql_types::BigInt, _>(RELAY_BATCH)
    .load(conn)?)
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
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .connect_timeout(Duration::from_secs(2))
            .build()
            .expect("http client");
        // A replica that starts tries every waiting event at once rather than after the backoff
        // it had reached while registration was away (registration keeps each event once, by
        // its id, so a row another replica is relaying right now is not delivered twice).
        let due_now = crate::db::run(&pool, |conn| {
            diesel::sql_query(
                "UPDATE outbox SET next_attempt_at = now() WHERE next_attempt_at > now()",
            )
            .execute(conn)?;
            Ok(())
        })
        .await;
        if let Err(e) = due_now {
            tracing::warn!(error = %e, "could not reschedule the outbox");
        }
        loop {
            match relay_once(&pool, &http, &inbox, &key, &settings).await {
                // A full batch may mean more are due: go on at once.
                Ok(n) if n as i64 == RELAY_BATCH => continue,
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
                diesel::sql_query("DELETE FROM outbox WHERE id = ANY($1)")
                    .bind::<Array<SqlUuid>, _>(&ids)
                    .execute(conn)?;
                Ok(())
            })
            .await?;
        }
        Err(error) => {
            tracing::warn!(%error, rows = claimed, "registration did not take the webhook events; retrying later");
            let wait = (settings.poll_interval
                * 2u32.saturating_pow(most_attempts.clamp(1, 16) as u32))
            .min(RELAY_MAX_BACKOFF);
            crate::db::run(pool, move |conn| {
                diesel::sql_query(
                    "UPDATE outbox SET next_attempt_at = now() + $2, last_error = $3 WHERE id = ANY($1)",
                )
                .bind::<Array<SqlUuid>, _>(&ids)
                .bind::<Interval, _>(pg_interval(wait))
                .bind::<Text, _>(truncate(&error, 500))
                .execute(conn)?;
                Ok(())
            })
            .await?;
        }
    }
    Ok(claimed)
}

/// A duration as a Postgres interval.
pub fn pg_interval(d: Duration) -> diesel::pg::data_types::PgInterval {
    diesel::pg::data_types::PgInterval::from_microseconds(d.as_micros().min(i64::MAX as u128) as i64)
}

/// At most `max` characters of `text`.
pub fn truncate(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

// ---------------------------------------------------------------- signing

/// HMAC-SHA256 (RFC 2104) over SHA-256.
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let inner = Sha256::new()
        .chain_update(block.map(|b| b ^ 0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(block.map(|b| b ^ 0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

/// A new subscription secret: `whsec_` and the base64 of 24 random bytes.
pub fn new_secret() -> String {
    format!("whsec_{}", STANDARD.encode(rand::random::<[u8; 24]>()))
}

/// The key a `whsec_` secret stands for.
pub fn secret_key(secret: &str) -> Result<Vec<u8>, String> {
    let encoded = secret
        .strip_prefix("whsec_")
        .ok_or("a webhook secret starts with whsec_")?;
    STANDARD.decode(encoded).map_err(|e| e.to_string())
}

/// The `webhook-signature` header of a delivery (Standard Webhooks): `v1,` and the base64 of
/// HMAC-SHA256 over `{id}.{timestamp}.{body}`.
pub fn signature(key: &[u8], message_id: &str, timestamp: i64, body: &[u8]) -> String {
    let mut signed = format!("{message_id}.{timestamp}.").into_bytes();
    signed.extend_from_slice(body);
    format!("v1,{}", STANDARD.encode(hmac_sha256(key, &signed)))
}

/// Whether `header` (space-separated `v1,<sig>` entries) holds the right signature.
pub fn verify_signature(
    key: &[u8],
    message_id: &str,
    timestamp: i64,
    body: &[u8],
    header: &str,
) -> bool {
    let expected = signature(key, message_id, timestamp, body);
    header
        .split_whitespace()
        .any(|candidate| constant_time_eq(candidate.as_bytes(), expected.as_bytes()))
}

/// Compares secrets without leaking where they differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

// ---------------------------------------------------------------- where deliveries may go

/// Loopback, private, link-local and unspecified addresses: a webhook there would reach into our
/// own network.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_private(IpAddr::V4(v4)),
            None => {
                let first = v6.segments()[0];
                v6.is_loopback()
                    || v6.is_unspecified()
                    || (first & 0xfe00) == 0xfc00
                    || (first & 0xffc0) == 0xfe80
            }
        },
    }
}

/// Why a URL may not receive webhooks: `(code, message)`.
pub type UrlRefusal = (&'static str, String);

/// Checks a webhook URL: http or https, with a host that is not (and does not resolve to) a
/// private address unless `allow_private`.
pub async fn check_url(url: &str, allow_private: bool) -> Result<reqwest::Url, UrlRefusal> {
    let parsed =
        reqwest::Url::parse(url).map_err(|e| ("invalid_url", format!("not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err((
            "unsupported_scheme",
            "only http and https URLs receive webhooks".into(),
        ));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err((
            "credentials_in_url",
            "the URL must not carry credentials".into(),
        ));
    }
    let host = parsed
        .host_str()
        .ok_or(("invalid_url", "the URL has no host".to_string()))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    if allow_private {
        return Ok(parsed);
    }
    if let Ok(ip) = host.parse::<IpAddr>() {
        return match is_private(ip) {
            true => Err((
                "private_address",
                format!(
                    "{ip} is a loopback or private address; webhooks go to public addresses only"
                ),
            )),
            false => Ok(parsed),
        };
    }
    let port = parsed.port_or_known_default().unwrap_or(80);
    let resolved = tokio::time::timeout(
        Duration::from_secs(5),
        tokio::net::lookup_host((host.as_str(), port)),
    )
    .await
    .map_err(|_| {
        (
            "unresolvable_host",
            format!("{host} did not resolve in time"),
        )
    })?
    .map_err(|e| ("unresolvable_host", format!("{host} does not resolve: {e}")))?;
    for address in resolved {
        if is_private(address.ip()) {
            return Err((
                "private_address",
                format!(
                    "{host} resolves to {}, a loopback or private address",
                    address.ip()
                ),
            ));
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let long_key = [0xaa; 131];
        let mac = hmac_sha256(
            &long_key,
            b"Test Using Larger Than Block-Size Key - Hash Key First",
        );
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn signatures_follow_standard_webhooks() {
        // The example of the Standard Webhooks reference libraries.
        let key = secret_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        let sig = signature(&key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body);
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert!(verify_signature(
            &key,
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            body,
            &format!("v1,bm90IGl0 {sig}")
        ));
        assert!(!verify_signature(&key, "msg_other", 1614265330, body, &sig));
    }

    #[test]
    fn private_addresses_are_recognised() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "::1",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_private(private.parse().unwrap()), "{private}");
        }
        for public in ["8.8.8.8", "172.32.0.1", "2606:4700::1111", "192.169.0.1"] {
            assert!(!is_private(public.parse().unwrap()), "{public}");
        }
    }

    #[tokio::test]
    async fn urls_are_checked() {
        assert_eq!(
            check_url("ftp://example.org/x", false).await.unwrap_err().0,
            "unsupported_scheme"
        );
        assert_eq!(
            check_url("http://127.0.0.1:9/x", false)
                .await
                .unwrap_err()
                .0,
            "private_address"
        );
        assert_eq!(
            check_url("http://[::1]/x", false).await.unwrap_err().0,
            "private_address"
        );
        assert_eq!(
            check_url("http://localhost:9/x", false)
                .await
                .unwrap_err()
                .0,
            "private_address"
        );
        assert_eq!(
            check_url("http://u:p@8.8.8.8/", false).await.unwrap_err().0,
            "credentials_in_url"
        );
        assert!(check_url("http://127.0.0.1:9/x", true).await.is_ok());
        assert!(check_url("https://8.8.8.8/hook", false).await.is_ok());
    }

    #[test]
    fn backoff_doubles_from_the_first_retry() {
        let s = WebhookSettings::default();
        assert_eq!(s.backoff(1), Duration::from_secs(30));
        assert_eq!(s.backoff(2), Duration::from_secs(60));
        let total: Duration = (1..s.max_attempts).map(|n| s.backoff(n)).sum();
        // 8 tries over about an hour.
        assert!(total > Duration::from_secs(55 * 60) && total < Duration::from_secs(70 * 60));
    }
}
