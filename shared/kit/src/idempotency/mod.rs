//! Exactly-once writes: `Idempotency-Key` on POST and PUT.
//!
//! A retry with the same key and body gets the first response (same status and body) and writes
//! nothing more; the same key with another body is 422; a retry while the first is still running
//! is 409. Keys are scoped to the API key that sent them and kept for 24 hours. The key, the
//! request's hash, the response and the write itself commit in one transaction, so a crash can
//! never leave a write without its key or a key without its write. Every service purges the
//! records older than that ([`spawn_purge`]). The write's audit record (see [`crate::audit`])
//! commits in the same transaction.

use crate::ApiError;
use crate::audit::AuditEntry;
use crate::auth::{Principal, Role};
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpRequest, HttpResponse, dev::Payload, web};
use catan_api::Producer;
use diesel::prelude::*;
use futures_util::future::LocalBoxFuture;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::future::{Ready, ready};
use uuid::Uuid;

mod purge;
mod reply;

pub use purge::{PURGE_BATCH, PURGE_EVERY, purge_all_expired, purge_expired, spawn_purge};
pub use reply::Reply;
use reply::{join_etag, remembered};

pub const HEADER: &str = "Idempotency-Key";
/// How long a key is remembered.
pub const RETENTION_HOURS: i32 = 24;

/// The `Idempotency-Key` header, when the request has one: 1 to 255 visible ASCII characters.
#[derive(Debug, Clone)]
pub struct IdempotencyKey(pub Option<String>);

impl FromRequest for IdempotencyKey {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(match req.headers().get(HEADER) {
            None => Ok(IdempotencyKey(None)),
            Some(value) => match value.to_str() {
                Ok(key)
                    if (1..=255).contains(&key.len())
                        && key.bytes().all(|b| b.is_ascii_graphic()) =>
                {
                    Ok(IdempotencyKey(Some(key.to_string())))
                }
                _ => Err(ApiError::field(
                    HEADER,
                    crate::problem::ErrorCode::InvalidIdempotencyKey,
                    "Idempotency-Key must be 1 to 255 visible ASCII characters",
                )),
            },
        })
    }
}

/// One request's claim on its key.
#[derive(Debug, Clone)]
pub struct Claim {
    api_key_id: Uuid,
    key: String,
    request_hash: Vec<u8>,
}

impl Claim {
    /// The API key the request came with, which its `Idempotency-Key` belongs to.
    pub fn api_key_id(&self) -> Uuid {
        self.api_key_id
    }

    /// The `Idempotency-Key`.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The request's fingerprint, which a retry must match.
    pub fn request_hash(&self) -> &[u8] {
        &self.request_hash
    }

    /// `reply` as the key's record keeps it (`response`), for a write that records its key in
    /// its own statement.
    pub fn stored(reply: &Reply) -> serde_json::Value {
        join_etag(reply)
    }
    /// The claim of a request by `principal` whose method, path and preconditions are
    /// `request_line` and whose body fingerprint is `body`, if it carries a key.
    fn of(
        principal: &Principal,
        key: &IdempotencyKey,
        request_line: &str,
        body: &[u8],
    ) -> Option<Claim> {
        let key = key.0.clone()?;
        let request_hash = Sha256::new()
            .chain_update(request_line.as_bytes())
            .chain_update([0])
            .chain_update(body)
            .finalize()
            .to_vec();
        Some(Claim {
            api_key_id: principal.key_id(),
            key,
            request_hash,
        })
    }
}

/// Why a write with a claim did not commit.
enum Aborted {
    /// Another request with the same key committed first: this one's write is rolled back.
    TakenFirst,
    /// The write itself was refused (or failed).
    Refused(ApiError),
}

impl From<diesel::result::Error> for Aborted {
    fn from(e: diesel::result::Error) -> Self {
        Aborted::Refused(e.into())
    }
}

/// Runs `work` (the write) in one transaction with the claim's record and the audit record
/// (`audit`, completed with the reply): a remembered request is answered from memory without
/// running `work` again. The reply of a `producer` ranking follows carries its position.
///
/// The key is recorded last, by the statement before the commit: no lock is taken up front, so
/// a write with a key costs one statement more than one without. Two requests racing with one
/// key both run their write; the second's insert of the key waits on the first's (the primary
/// key), finds it committed, and the second rolls its own write back and answers the first's
/// reply. A refused write checks the same way whether a racing request with its key won.
async fn write_once<F>(
    pool: &crate::db::PgPool,
    producer: Option<Producer>,
    claim: Option<Claim>,
    audit: AuditEntry,
    work: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnOnce(&mut PgConnection) -> Result<Reply, ApiError> + Send + 'static,
{
    let Some(claim) = claim else {
        let reply = crate::db::transaction(pool, move |conn| {
            let reply = work(conn)?;
            let txid = reply.audited(audit).record(conn, reply.status)?;
            Ok(reply.written_in(producer, txid))
        })
        .await?;
        return Ok(reply.into_response(false));
    };
    let record = claim.clone();
    let outcome = crate::db::run(pool, move |conn| {
        Ok(conn.transaction(|tx| {
            let reply = work(tx).map_err(Aborted::Refused)?;
            let txid = reply.audited(audit).record(tx, reply.status)?;
            let reply = reply.written_in(producer, txid);
            match record_key(tx, &record, &reply) {
                Ok(true) => Ok(reply),
                Ok(false) => Err(Aborted::TakenFirst),
                Err(e) => Err(Aborted::Refused(e)),
            }
        }))
    })
    .await?;
    match outcome {
        Ok(reply) => Ok(reply.into_response(false)),
        Err(Aborted::TakenFirst) => replay_remembered(pool, producer, claim, None).await,
        Err(Aborted::Refused(refused)) => {
            replay_remembered(pool, producer, claim, Some(refused)).await
        }
    }
}

/// Records the claim's key with `reply`, or takes over a key whose record has expired: whether
/// it did (false: a live record of the key, committed by another request, stands).
fn record_key(conn: &mut PgConnection, claim: &Claim, reply: &Reply) -> Result<bool, ApiError> {
    let recorded = crate::prepared::PreparedSql::new(RECORD_KEY)
        .bind::<diesel::sql_types::Uuid, _>(claim.api_key_id)
        .bind::<diesel::sql_types::Text, _>(claim.key.clone())
        .bind::<diesel::sql_types::Binary, _>(claim.request_hash.clone())
        .bind::<diesel::sql_types::Integer, _>(i32::from(reply.kept_status().as_u16()))
        .bind::<diesel::sql_types::Jsonb, _>(join_etag(reply))
        .bind::<diesel::sql_types::Integer, _>(RETENTION_HOURS)
        .execute(conn)?;
    Ok(recorded == 1)
}

/// [`record_key`]'s statement: a new key, or an expired one taken over; nothing while a live
/// record of the key stands (or, committed meanwhile, the first request's).
const RECORD_KEY: &str = "\
INSERT INTO idempotency_keys (api_key_id, key, request_hash, status, response, created_at)
VALUES ($1, $2, $3, $4, $5, now())
ON CONFLICT (api_key_id, key) DO UPDATE
    SET request_hash = excluded.request_hash, status = excluded.status,
        response = excluded.response, created_at = excluded.created_at
    WHERE idempotency_keys.created_at < now() - make_interval(hours => $6)";

/// The answer for a claim whose write did not commit: the remembered reply of the request that
/// used its key first, if one did; else `refused` (the write's own refusal).
async fn replay_remembered(
    pool: &crate::db::PgPool,
    producer: Option<Producer>,
    claim: Claim,
    refused: Option<ApiError>,
) -> Result<HttpResponse, ApiError> {
    let found = crate::db::run(pool, move |conn| remembered(conn, &claim, producer)).await;
    match (found, refused) {
        (Ok(Some(reply)), _) => Ok(reply.into_response(true)),
        // A key used for another request says more than what this one's write found.
        (Err(reused), _) => Err(reused),
        (Ok(None), Some(refused)) => Err(refused),
        (Ok(None), None) => Err(ApiError::Conflict(
            "a request with this Idempotency-Key is still in progress; retry later".into(),
        )),
    }
}

/// What a write's body contributes to its request's fingerprint.
pub trait Fingerprint {
    fn fingerprint(&self) -> Vec<u8>;
}

impl<T: Serialize> Fingerprint for web::Json<T> {
    fn fingerprint(&self) -> Vec<u8> {
        serde_json::to_vec(&**self).unwrap_or_default()
    }
}

/// A write without a body.
impl Fingerprint for () {
    fn fingerprint(&self) -> Vec<u8> {
        Vec::new()
    }
}

/// An authenticated write, safe to retry: the caller, its `Idempotency-Key`, the body `B`
/// (`web::Json<T>`, or `()` for none), and the service's pool.
///
/// The request's fingerprint is its method, its path, its `If-Match` (a precondition is part of
/// the request) and its body. A request whose key was used before is answered before the handler
/// runs: with the first answer when the fingerprint is the same (even if the reads the handler
/// would make now come out differently), 422 when it is not. [`IdempotentWrite::write`] then
/// commits the write and the key's record in one transaction (a request racing another with its
/// key gets the first's answer there).
///
/// `REPLAY_FIRST = false` ([`KeyFoundByTheWrite`]) skips the look-up before the handler, for a
/// write whose handler decides only from what never changes, so that a retry reaches the write
/// as the first request did, and the write finds the key.
pub struct IdempotentWrite<B, const REPLAY_FIRST: bool = true> {
    principal: Principal,
    body: B,
    claim: Option<Claim>,
    audit: AuditEntry,
    pool: web::Data<crate::db::PgPool>,
    producer: Option<Producer>,
}

/// An [`IdempotentWrite`] whose key is found by the write, not looked up before the handler: for
/// a handler that checks the request only against what never changes (a results sheet against
/// its drawn round), so that a retry passes the same checks and its write finds the first answer.
/// It saves each write a round trip to the database.
pub type KeyFoundByTheWrite<B> = IdempotentWrite<B, false>;

impl<B, const REPLAY_FIRST: bool> IdempotentWrite<B, REPLAY_FIRST> {
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    pub fn body(&self) -> &B {
        &self.body
    }

    /// The caller may act on `event_id` in one of `roles` (admins on every event).
    pub fn require_event(&self, event_id: Uuid, roles: &[Role]) -> Result<(), ApiError> {
        self.principal.require_event(event_id, roles)
    }

    /// The caller is an admin.
    pub fn require_admin(&self) -> Result<(), ApiError> {
        self.principal.require_admin()
    }

    /// Keeps `note` under `name` in the write's audit record (see [`AuditEntry::noting`]).
    pub fn note_in_audit(&mut self, name: &str, note: serde_json::Value) {
        self.audit = self.audit.clone().noting(name, note);
    }

    /// Runs `work` in one transaction with the key's record and the change's audit record, and
    /// answers with its reply.
    pub async fn write<F>(self, work: F) -> Result<HttpResponse, ApiError>
    where
        F: FnOnce(&mut PgConnection) -> Result<Reply, ApiError> + Send + 'static,
    {
        write_once(&self.pool, self.producer, self.claim, self.audit, work).await
    }

    /// The producer ranking follows that this service is, if it is one: what a reply written
    /// outside [`IdempotentWrite::write`] answers its position as.
    pub fn producer(&self) -> Option<Producer> {
        self.producer
    }

    /// Tries `first`, a write that records the request's key (the claim, if it has one) and its
    /// audit record itself, when it can: its reply when it wrote, `None` when it wrote nothing.
    /// Then, if it did not, [`IdempotentWrite::write`] with `rest`. The common case (a table's
    /// first sheet) costs one statement instead of a transaction of four, and `first` may commit
    /// it together with other requests' (see the results service's `first_sheets`).
    pub async fn write_first_or<Fut, G>(
        self,
        first: impl FnOnce(Option<Claim>, AuditEntry) -> Fut,
        rest: G,
    ) -> Result<HttpResponse, ApiError>
    where
        Fut: std::future::Future<Output = Result<Option<Reply>, ApiError>>,
        G: FnOnce(&mut PgConnection) -> Result<Reply, ApiError> + Send + 'static,
    {
        match first(self.claim.clone(), self.audit.clone()).await? {
            Some(reply) => Ok(reply.into_response(false)),
            None => write_once(&self.pool, self.producer, self.claim, self.audit, rest).await,
        }
    }
}

/// The producer ranking's read model follows that a service is (app data of every service the
/// kit serves): its writes answer their `Catan-Position`.
#[derive(Debug, Clone, Copy)]
pub struct ReadModelProducer(pub Option<Producer>);

/// The answer remembered for a retried request: it ends the request before its handler runs.
#[derive(Debug)]
struct Replayed(Reply);

impl std::fmt::Display for Replayed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "replayed the answer remembered for this Idempotency-Key")
    }
}

impl actix_web::ResponseError for Replayed {
    fn status_code(&self) -> StatusCode {
        self.0.status
    }

    fn error_response(&self) -> HttpResponse {
        self.0.clone().into_response(true)
    }
}

impl<B, const REPLAY_FIRST: bool> FromRequest for IdempotentWrite<B, REPLAY_FIRST>
where
    B: FromRequest + Fingerprint + 'static,
    B::Error: Into<actix_web::Error>,
{
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let principal = Principal::from_request(req, payload);
        let key = IdempotencyKey::from_request(req, payload);
        let body = B::from_request(req, payload);
        let pool = req.app_data::<web::Data<crate::db::PgPool>>().cloned();
        let producer = req
            .app_data::<web::Data<ReadModelProducer>>()
            .and_then(|p| p.0);
        let if_match = req
            .headers()
            .get(actix_web::http::header::IF_MATCH)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_string());
        let request_line = format!("{} {} {if_match:?}", req.method(), req.path());
        let request = req.clone();
        Box::pin(async move {
            let principal = principal.await?;
            let audit = AuditEntry::of(&request, &principal);
            let key = key.await?;
            let body = body.await.map_err(Into::into)?;
            let pool =
                pool.ok_or_else(|| ApiError::internal("no database pool for idempotent writes"))?;
            let claim = Claim::of(&principal, &key, &request_line, &body.fingerprint());
            if let Some(claim) = claim.clone().filter(|_| REPLAY_FIRST) {
                let found =
                    crate::db::run(&pool, move |conn| remembered(conn, &claim, producer)).await?;
                if let Some(reply) = found {
                    return Err(Replayed(reply).into());
                }
            }
            Ok(IdempotentWrite {
                principal,
                body,
                claim,
                audit,
                pool,
                producer,
            })
        })
    }
}
