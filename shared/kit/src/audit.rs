//! The audit trail: each change a caller makes is recorded in the service's `audit_log` in the
//! transaction of the change, so a change without its record cannot exist. [`IdempotentWrite`]
//! records every write it commits; the few writes made without it record theirs with
//! [`AuditEntry::record`].
//!
//! Only changes are recorded: a refused call changes nothing, and recording refusals would let
//! any caller fill the trail. A record holds who (the key and its role), what (the method, the
//! route's pattern, the path's ids and the ids of what the answer created or concerns), when,
//! and the answer's status; never a body, so no secret, PIN or token. A handler may add a note
//! the trail must keep (the director's reason for a results sheet sent before the time was up,
//! issue 32): text the caller wrote to be kept, never a secret.
//!
//! [`IdempotentWrite`]: crate::IdempotentWrite

use crate::ApiError;
use crate::auth::{Principal, Role};
use crate::schema::audit_log;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use catan_api::{AuditRecord, AuditSearch, INTERNAL_AUDIT_PATH};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use secrecy::SecretString;
use serde_json::{Map, Value};
use std::collections::HashSet;
use uuid::Uuid;

/// A change about to be recorded: the caller, the call, and the ids it is about.
#[derive(Debug, Clone)]
pub struct AuditEntry {
    key_id: Uuid,
    role: Role,
    method: String,
    route: String,
    targets: Map<String, Value>,
    event_ids: Vec<Uuid>,
    region_ids: Vec<Uuid>,
}

impl AuditEntry {
    /// The call `request` by `principal`: its method, its route's pattern, its path's parameters
    /// (`event_id` also as the event it concerns).
    pub fn of(request: &HttpRequest, principal: &Principal) -> AuditEntry {
        let targets: Map<String, Value> = request
            .match_info()
            .iter()
            .map(|(name, value)| (name.to_owned(), Value::from(value)))
            .collect();
        let event_ids = request
            .match_info()
            .get("event_id")
            .and_then(|id| id.parse().ok())
            .into_iter()
            .collect();
        AuditEntry {
            key_id: principal.key_id(),
            role: principal.role(),
            method: request.method().to_string(),
            route: request
                .match_pattern()
                .unwrap_or_else(|| request.path().to_owned()),
            targets,
            event_ids,
            region_ids: Vec::new(),
        }
    }

    /// The same entry, concerning `events` too.
    pub fn concerning_events(mut self, events: impl IntoIterator<Item = Uuid>) -> AuditEntry {
        add(&mut self.event_ids, events);
        self
    }

    /// The same entry with `note` kept under `name` among its targets.
    pub fn noting(mut self, name: &str, note: Value) -> AuditEntry {
        self.targets.insert(name.to_owned(), note);
        self
    }

    /// The same entry, concerning `regions` too.
    pub fn concerning_regions(mut self, regions: impl IntoIterator<Item = Uuid>) -> AuditEntry {
        add(&mut self.region_ids, regions);
        self
    }

    /// The same entry with what `answer` names: its `id` (what the call created or changed) as
    /// a target, its `event_id`/`event_ids` and `region_id`/`region_ids` as what it concerns.
    /// Nothing else of the answer is kept.
    pub fn answered(mut self, answer: &Value) -> AuditEntry {
        let ids = |name: &str| -> Vec<Uuid> {
            match answer.get(name) {
                Some(Value::String(id)) => id.parse().ok().into_iter().collect(),
                Some(Value::Array(ids)) => ids
                    .iter()
                    .filter_map(|id| id.as_str()?.parse().ok())
                    .collect(),
                _ => Vec::new(),
            }
        };
        if let Some(id) = ids("id").first() {
            self.targets
                .insert("id".into(), Value::from(id.to_string()));
        }
        let events = [ids("event_id"), ids("event_ids")].concat();
        let regions = [ids("region_id"), ids("region_ids")].concat();
        self.concerning_events(events).concerning_regions(regions)
    }

    pub fn key_id(&self) -> Uuid {
        self.key_id
    }

    pub fn role(&self) -> Role {
        self.role
    }

    pub fn method(&self) -> &str {
        &self.method
    }

    pub fn route(&self) -> &str {
        &self.route
    }

    pub fn targets(&self) -> Value {
        Value::Object(self.targets.clone())
    }

    pub fn event_ids(&self) -> &[Uuid] {
        &self.event_ids
    }

    pub fn region_ids(&self) -> &[Uuid] {
        &self.region_ids
    }

    /// Records the change, answered with `status`, in the caller's transaction (`conn`): the id
    /// of that transaction, which orders the change feeds (a write's `Catan-Position`).
    pub fn record(&self, conn: &mut PgConnection, status: StatusCode) -> QueryResult<u64> {
        let optional = |ids: &[Uuid]| ids.iter().copied().map(Some).collect::<Vec<_>>();
        diesel::insert_into(audit_log::table)
            .values((
                audit_log::id.eq(Uuid::new_v4()),
                audit_log::key_id.eq(self.key_id),
                audit_log::role.eq(self.role.as_str()),
                audit_log::method.eq(&self.method),
                audit_log::route.eq(&self.route),
                audit_log::targets.eq(self.targets()),
                audit_log::event_ids.eq(optional(&self.event_ids)),
                audit_log::region_ids.eq(optional(&self.region_ids)),
                audit_log::status.eq(i32::from(status.as_u16())),
            ))
            .returning(diesel::dsl::sql::<diesel::sql_types::BigInt>(
                crate::feed::WRITING_TRANSACTION,
            ))
            .get_result::<i64>(conn)
            .map(|txid| u64::try_from(txid).unwrap_or_default())
    }
}

fn add(ids: &mut Vec<Uuid>, more: impl IntoIterator<Item = Uuid>) {
    for id in more {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
}

/// A stored record, as read back.
type Stored = (
    Uuid,
    DateTime<Utc>,
    Uuid,
    String,
    String,
    String,
    Value,
    Vec<Option<Uuid>>,
    Vec<Option<Uuid>>,
    i32,
    Option<String>,
    Option<String>,
);

/// The records of this service's schema that `search` finds, the oldest first: its own, which
/// `service` names, and those a venue's publish brought, each with the venue and the service
/// that made it there.
pub fn search(
    conn: &mut PgConnection,
    service: &str,
    search: &AuditSearch,
) -> QueryResult<Vec<AuditRecord>> {
    let optional = |ids: &[Uuid]| ids.iter().copied().map(Some).collect::<Vec<_>>();
    let mut query = audit_log::table.into_boxed();
    if let Some(scope) = &search.scope {
        query = query.filter(
            audit_log::event_ids
                .overlaps_with(optional(&scope.event_ids))
                .or(audit_log::region_ids.overlaps_with(optional(&scope.region_ids))),
        );
    }
    if let Some(event) = search.event_id {
        query = query.filter(audit_log::event_ids.contains(vec![Some(event)]));
    }
    if let Some(key) = search.key_id {
        query = query.filter(audit_log::key_id.eq(key));
    }
    if let Some(from) = search.from {
        query = query.filter(audit_log::at.ge(from));
    }
    if let Some(to) = search.to {
        query = query.filter(audit_log::at.lt(to));
    }
    let rows: Vec<Stored> = query
        .order((audit_log::at.asc(), audit_log::id.asc()))
        .limit(search.limit)
        .select((
            audit_log::id,
            audit_log::at,
            audit_log::key_id,
            audit_log::role,
            audit_log::method,
            audit_log::route,
            audit_log::targets,
            audit_log::event_ids,
            audit_log::region_ids,
            audit_log::status,
            audit_log::venue,
            audit_log::service,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(
            |(
                id,
                at,
                key_id,
                role,
                method,
                route,
                targets,
                events,
                regions,
                status,
                venue,
                made_by,
            )| {
                Some(AuditRecord {
                    id,
                    at,
                    service: made_by.unwrap_or_else(|| service.to_owned()),
                    key_id,
                    role: Role::parse(&role)?,
                    method,
                    route,
                    targets: serde_json::from_value(targets).unwrap_or_default(),
                    event_ids: events.into_iter().flatten().collect(),
                    region_ids: regions.into_iter().flatten().collect(),
                    status: u16::try_from(status).ok()?,
                    venue,
                })
            },
        )
        .collect())
}

/// How many of `records` (each id once) this schema's log lacks: what [`import`] would add.
pub fn count_new(conn: &mut PgConnection, records: &[AuditRecord]) -> QueryResult<u32> {
    let ids: HashSet<Uuid> = records.iter().map(|r| r.id).collect();
    let wanted: Vec<Uuid> = ids.iter().copied().collect();
    let have: i64 = audit_log::table
        .filter(audit_log::id.eq_any(&wanted))
        .count()
        .get_result(conn)?;
    let new = ids
        .len()
        .saturating_sub(usize::try_from(have).unwrap_or(usize::MAX));
    Ok(u32::try_from(new).unwrap_or(u32::MAX))
}

/// Keeps the records a venue's publish brought (issue 34) as the venue made them (their ids,
/// times and services), made at `venue`; each once by its id, so that publishing again adds none.
/// How many it added.
pub fn import(conn: &mut PgConnection, venue: &str, records: &[AuditRecord]) -> QueryResult<u32> {
    let optional = |ids: &[Uuid]| ids.iter().copied().map(Some).collect::<Vec<_>>();
    let mut added = 0usize;
    for record in records {
        let targets = serde_json::to_value(&record.targets)
            .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))?;
        added += diesel::insert_into(audit_log::table)
            .values((
                audit_log::id.eq(record.id),
                audit_log::at.eq(record.at),
                audit_log::key_id.eq(record.key_id),
                audit_log::role.eq(record.role.as_str()),
                audit_log::method.eq(&record.method),
                audit_log::route.eq(&record.route),
                audit_log::targets.eq(targets),
                audit_log::event_ids.eq(optional(&record.event_ids)),
                audit_log::region_ids.eq(optional(&record.region_ids)),
                audit_log::status.eq(i32::from(record.status)),
                audit_log::venue.eq(venue),
                audit_log::service.eq(&record.service),
            ))
            .on_conflict(audit_log::id)
            .do_nothing()
            .execute(conn)?;
    }
    Ok(u32::try_from(added).unwrap_or(u32::MAX))
}

/// The service whose records the internal route serves.
struct AuditSource {
    service: &'static str,
    internal_key: Option<SecretString>,
}

/// The largest search body the internal route takes: a scope names every event of a region.
const SEARCH_BODY_LIMIT_BYTES: usize = 8 * 1024 * 1024;

/// Registers `POST /internal/audit` (with the internal key), the records of the service
/// `service`: how registration reads them. It reads the service's pool (`web::Data<PgPool>`).
pub fn internal_route(
    cfg: &mut web::ServiceConfig,
    service: &'static str,
    internal_key: Option<SecretString>,
) {
    cfg.service(
        web::resource(INTERNAL_AUDIT_PATH)
            .app_data(web::Data::new(AuditSource {
                service,
                internal_key,
            }))
            .app_data(crate::problem::json_config(SEARCH_BODY_LIMIT_BYTES))
            .route(web::post().to(internal_search)),
    );
}

async fn internal_search(
    request: HttpRequest,
    source: web::Data<AuditSource>,
    pool: web::Data<crate::db::PgPool>,
    body: web::Json<AuditSearch>,
) -> Result<web::Json<Vec<AuditRecord>>, ApiError> {
    crate::webhooks::require_internal_key(&request, source.internal_key.as_ref())?;
    let service = source.service;
    let found = crate::db::run(&pool, move |conn| Ok(search(conn, service, &body)?)).await?;
    Ok(web::Json(found))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::claims_for;
    use actix_web::test::TestRequest;
    use std::time::Duration;

    #[actix_web::test]
    async fn an_entry_keeps_the_path_ids_and_the_answers_ids_and_nothing_else() {
        let (event, entry, created) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let app = actix_web::test::init_service(actix_web::App::new().route(
            "/v1/events/{event_id}/entries/{entry_id}/drop",
            web::post().to(|request: HttpRequest| async move {
                let principal = Principal(claims_for(
                    Uuid::nil(),
                    Role::Director,
                    None,
                    Duration::from_secs(60),
                ));
                let entry = AuditEntry::of(&request, &principal);
                web::Json(serde_json::json!({
                    "route": entry.route(), "method": entry.method(), "targets": entry.targets(),
                    "events": entry.event_ids(),
                }))
            }),
        ))
        .await;
        let request = TestRequest::post()
            .uri(&format!("/v1/events/{event}/entries/{entry}/drop"))
            .to_request();
        let seen: Value = actix_web::test::call_and_read_body_json(&app, request).await;
        assert_eq!(
            seen["route"],
            "/v1/events/{event_id}/entries/{entry_id}/drop"
        );
        assert_eq!(seen["method"], "POST");
        assert_eq!(
            seen["targets"],
            serde_json::json!({"event_id": event.to_string(), "entry_id": entry.to_string()})
        );
        assert_eq!(seen["events"], serde_json::json!([event]));

        let request = TestRequest::post().uri("/v1/api-keys").to_http_request();
        let principal = Principal(claims_for(
            Uuid::nil(),
            Role::Admin,
            None,
            Duration::from_secs(60),
        ));
        let answered = AuditEntry::of(&request, &principal).answered(&serde_json::json!({
            "id": created, "api_key": "ck_secret", "event_ids": [event], "region_ids": null,
        }));
        assert_eq!(
            answered.targets(),
            serde_json::json!({"id": created.to_string()})
        );
        assert_eq!(answered.event_ids(), [event]);
        assert!(!answered.targets().to_string().contains("ck_secret"));
    }
}
