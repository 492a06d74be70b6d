//! The audit trail: every change a caller made, who made it, and how it was answered.
//!
//! Each service records the changes made through it in its own `audit_log`, in the transaction of
//! the change. Registration answers `GET /v1/audit` for all of them: it reads the other services'
//! records through their internal route (authenticated by `CATAN_INTERNAL_KEY`, never routed by
//! the gateway) and merges them in the order they were made.

use crate::client::{ApiClient, ClientResult};
use crate::types::Role;
use chrono::{DateTime, Utc};
use reqwest::Method;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// The path of a service's audit records.
pub const INTERNAL_AUDIT_PATH: &str = "/internal/audit";

/// One change: who, what, when, and the answer's status. Never a body: no secret, PIN or token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "id": "00000000-0000-4000-8000-0000000000a1", "at": "2027-03-06T10:15:00.123456Z",
    "service": "registration", "key_id": "00000000-0000-4000-8000-0000000000b1",
    "role": "organiser", "method": "POST", "route": "/v1/events/{event_id}/entries",
    "targets": {"event_id": "00000000-0000-4000-8000-0000000000e1", "id": "00000000-0000-4000-8000-0000000000n1"},
    "event_ids": ["00000000-0000-4000-8000-0000000000e1"], "region_ids": [], "status": 201}))]
pub struct AuditRecord {
    pub id: Uuid,
    /// When the change was made (the order of the trail).
    pub at: DateTime<Utc>,
    /// The service that made it.
    #[schema(example = "registration")]
    pub service: String,
    /// The API key that made it (for a player's token, the player).
    pub key_id: Uuid,
    pub role: Role,
    pub method: String,
    /// The route's pattern, as in the OpenAPI document.
    pub route: String,
    /// The ids the change was about: the route's path parameters by name, and as `id` the id of
    /// what it created.
    pub targets: BTreeMap<String, String>,
    /// The events it concerns.
    pub event_ids: Vec<Uuid>,
    /// The regions it concerns (beyond those of its events).
    pub region_ids: Vec<Uuid>,
    /// The answer's status.
    pub status: u16,
    /// The venue the change was made at, for a record a venue's publish brought (issue 34):
    /// `service` is then the venue's service that made it. Absent for the suite's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
}

/// What `GET /v1/audit` is filtered by; every filter narrows what the caller may see.
#[derive(Debug, Clone, Default, Serialize, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// Changes of this region: of its events, or naming it.
    #[param(nullable = false)]
    pub region_id: Option<Uuid>,
    /// Changes of this event.
    #[param(nullable = false)]
    pub event_id: Option<Uuid>,
    /// Changes made with this key.
    #[param(nullable = false)]
    pub key_id: Option<Uuid>,
    /// Changes made at or after this instant.
    #[param(nullable = false)]
    pub from: Option<DateTime<Utc>>,
    /// Changes made before this instant.
    #[param(nullable = false)]
    pub to: Option<DateTime<Utc>>,
}

/// Which records a search may return: those concerning one of `event_ids` or one of
/// `region_ids`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditScope {
    pub event_ids: Vec<Uuid>,
    pub region_ids: Vec<Uuid>,
}

/// A service's search of its own records, the oldest first (registration asks it).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AuditSearch {
    /// `None`: every record.
    pub scope: Option<AuditScope>,
    pub event_id: Option<Uuid>,
    pub key_id: Option<Uuid>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    /// The first this many records.
    pub limit: i64,
}

impl ApiClient {
    /// A page of the audit trail the caller may see, the oldest change first.
    pub async fn audit(
        &self,
        query: &AuditQuery,
        limit: u32,
        offset: u32,
    ) -> ClientResult<Vec<AuditRecord>> {
        let mut path = format!("/v1/audit?limit={limit}&offset={offset}");
        let ids = [
            ("region_id", query.region_id),
            ("event_id", query.event_id),
            ("key_id", query.key_id),
        ];
        for (name, id) in ids {
            if let Some(id) = id {
                path.push_str(&format!("&{name}={id}"));
            }
        }
        for (name, at) in [("from", query.from), ("to", query.to)] {
            if let Some(at) = at {
                let at = at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
                path.push_str(&format!("&{name}={}", at.replace('+', "%2B")));
            }
        }
        self.call::<(), _>(Method::GET, &path, None).await
    }

    /// A service's records that `search` finds, the oldest first (a client holding the
    /// internal key).
    pub async fn internal_audit(&self, search: &AuditSearch) -> ClientResult<Vec<AuditRecord>> {
        self.call(Method::POST, INTERNAL_AUDIT_PATH, Some(search))
            .await
    }
}
