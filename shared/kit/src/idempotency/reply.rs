//! A write's answer as a retry with its key gets it back: the reply, how its key keeps it, and
//! how it is read back.

use super::{Claim, HEADER, RETENTION_HOURS};
use crate::ApiError;
use crate::audit::AuditEntry;
use crate::schema::idempotency_keys;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use catan_api::{POSITION_HEADER, Position, Producer};
use diesel::dsl::{IntervalDsl, now};
use diesel::prelude::*;
use diesel::sql_types::Timestamptz;
use serde::Serialize;
use uuid::Uuid;

/// A response as remembered for replays.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: StatusCode,
    pub body: serde_json::Value,
    pub etag: Option<String>,
    /// When set, the reply is not kept: a retry with its key is refused with 409 and this
    /// detail (for a reply that shows a secret once).
    pub kept_as_refusal: Option<String>,
    /// The events the change concerns beyond those its path and body name (for the audit).
    pub concerns_events: Vec<Uuid>,
    /// The service ranking follows that wrote it and the writing transaction: the write's
    /// place in the read model's feeds, answered as `Catan-Position`.
    pub written: Option<(Producer, u64)>,
}

impl Reply {
    pub fn new(status: StatusCode, body: &impl Serialize) -> Result<Reply, ApiError> {
        Ok(Reply {
            status,
            body: serde_json::to_value(body).map_err(ApiError::internal)?,
            etag: None,
            kept_as_refusal: None,
            concerns_events: Vec::new(),
            written: None,
        })
    }

    /// The same reply, answering the position of a write of `producer` in transaction `txid`.
    pub fn written_in(mut self, producer: Option<Producer>, txid: u64) -> Reply {
        self.written = producer.map(|p| (p, txid));
        self
    }

    /// The same reply, whose change concerns `event` (one its path and answer do not name as
    /// such: the event it created).
    pub fn concerning_event(mut self, event: Uuid) -> Reply {
        self.concerns_events.push(event);
        self
    }

    /// The audit record of the change `entry` answered with this reply.
    pub(super) fn audited(&self, entry: AuditEntry) -> AuditEntry {
        entry
            .answered(&self.body)
            .concerning_events(self.concerns_events.iter().copied())
    }

    /// A reply shown once: its key keeps only the refusal `detail` (409) for retries.
    pub fn shown_once(mut self, detail: impl Into<String>) -> Reply {
        self.kept_as_refusal = Some(detail.into());
        self
    }

    /// The status its key keeps.
    pub(super) fn kept_status(&self) -> StatusCode {
        match self.kept_as_refusal {
            Some(_) => StatusCode::CONFLICT,
            None => self.status,
        }
    }

    pub fn with_etag(mut self, etag: String) -> Reply {
        self.etag = Some(etag);
        self
    }

    pub fn into_response(self, replayed: bool) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        if let Some(etag) = self.etag {
            response.insert_header((actix_web::http::header::ETAG, etag));
        }
        if replayed {
            response.insert_header(("Idempotency-Replayed", "true"));
        }
        if let Some((producer, txid)) = self.written {
            let position = Position::of(producer, txid);
            response.insert_header((POSITION_HEADER, position.to_string()));
        }
        response.json(self.body)
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = idempotency_keys)]
struct Remembered {
    request_hash: Vec<u8>,
    status: i32,
    response: serde_json::Value,
}

/// The remembered reply to `claim`'s key, with the position of its write when the service is
/// `producer`; 422 if the key was used for another request.
pub(super) fn remembered(
    conn: &mut PgConnection,
    claim: &Claim,
    producer: Option<Producer>,
) -> Result<Option<Reply>, ApiError> {
    let found: Option<Remembered> = idempotency_keys::table
        .find((claim.api_key_id, &claim.key))
        .filter(
            idempotency_keys::created_at
                .ge(now.into_sql::<Timestamptz>() - RETENTION_HOURS.hours()),
        )
        .select(Remembered::as_select())
        .first(conn)
        .optional()?;
    let Some(found) = found else {
        return Ok(None);
    };
    if found.request_hash != claim.request_hash {
        return Err(ApiError::field(
            HEADER,
            crate::problem::ErrorCode::KeyReused,
            "this Idempotency-Key was used for a different request",
        ));
    }
    if let Some(detail) = found.response.get("refused").and_then(|d| d.as_str()) {
        // Said with its code, so that a client tells "shown once" from other conflicts.
        return Err(ApiError::Contradicts {
            detail: detail.to_string(),
            errors: vec![crate::problem::FieldError {
                field: HEADER.into(),
                code: crate::problem::ErrorCode::ShownOnce,
                message: detail.to_string(),
            }],
        });
    }
    let kept = Kept::of(found.response);
    let status = u16::try_from(found.status)
        .ok()
        .and_then(|status| StatusCode::from_u16(status).ok())
        .ok_or_else(|| ApiError::internal(format!("stored status {}", found.status)))?;
    let reply = Reply {
        status,
        body: kept.body,
        etag: kept.etag,
        kept_as_refusal: None,
        concerns_events: Vec::new(),
        written: None,
    };
    Ok(Some(match kept.txid {
        Some(txid) => reply.written_in(producer, txid),
        None => reply,
    }))
}

/// The remembered response keeps its ETag and its write's transaction beside the body (or only
/// the refusal of a reply shown once).
pub(super) fn join_etag(reply: &Reply) -> serde_json::Value {
    if let Some(detail) = &reply.kept_as_refusal {
        return serde_json::json!({ "refused": detail });
    }
    let txid = reply.written.map(|(_, txid)| txid);
    serde_json::json!({ "body": reply.body, "etag": reply.etag, "txid": txid })
}

/// A remembered response, as [`join_etag`] kept it.
struct Kept {
    body: serde_json::Value,
    etag: Option<String>,
    /// The write's transaction (a reply written in one statement has it set by that statement).
    txid: Option<u64>,
}

impl Kept {
    fn of(stored: serde_json::Value) -> Kept {
        Kept {
            etag: stored
                .get("etag")
                .and_then(|e| e.as_str())
                .map(str::to_owned),
            txid: stored.get("txid").and_then(serde_json::Value::as_u64),
            body: stored.get("body").cloned().unwrap_or_default(),
        }
    }
}
