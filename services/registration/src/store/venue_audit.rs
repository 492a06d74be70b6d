//! The audit records a venue's publish brought (issue 34), kept as the venue recorded them: each
//! once by its id, so that publishing again adds none; and read with the suite's own records by
//! `GET /v1/audit`, under the same search.

use crate::schema::registration::venue_audit_log;
use catan_api::{AuditRecord, AuditSearch};
use catan_kit::ApiError;
use catan_kit::auth::Role;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde_json::Value;
use std::collections::HashSet;
use uuid::Uuid;

fn optional(ids: &[Uuid]) -> Vec<Option<Uuid>> {
    ids.iter().copied().map(Some).collect()
}

/// How many of `records` the suite lacks (by id, each id once): what storing them would add.
pub fn count_new(conn: &mut PgConnection, records: &[AuditRecord]) -> Result<u32, ApiError> {
    let ids: HashSet<Uuid> = records.iter().map(|r| r.id).collect();
    let wanted: Vec<Uuid> = ids.iter().copied().collect();
    let have: i64 = venue_audit_log::table
        .filter(venue_audit_log::id.eq_any(&wanted))
        .count()
        .get_result(conn)?;
    let new = ids
        .len()
        .saturating_sub(usize::try_from(have).unwrap_or(usize::MAX));
    Ok(u32::try_from(new).unwrap_or(u32::MAX))
}

/// Stores the records the suite lacks, made at `venue`, as they were: how many it added.
pub fn insert(
    conn: &mut PgConnection,
    venue: &str,
    records: &[AuditRecord],
) -> Result<u32, ApiError> {
    let mut added = 0usize;
    for record in records {
        let targets = serde_json::to_value(&record.targets).map_err(ApiError::internal)?;
        added += diesel::insert_into(venue_audit_log::table)
            .values((
                venue_audit_log::id.eq(record.id),
                venue_audit_log::at.eq(record.at),
                venue_audit_log::service.eq(&record.service),
                venue_audit_log::venue.eq(venue),
                venue_audit_log::key_id.eq(record.key_id),
                venue_audit_log::role.eq(record.role.as_str()),
                venue_audit_log::method.eq(&record.method),
                venue_audit_log::route.eq(&record.route),
                venue_audit_log::targets.eq(targets),
                venue_audit_log::event_ids.eq(optional(&record.event_ids)),
                venue_audit_log::region_ids.eq(optional(&record.region_ids)),
                venue_audit_log::status.eq(i32::from(record.status)),
            ))
            .on_conflict(venue_audit_log::id)
            .do_nothing()
            .execute(conn)?;
    }
    Ok(u32::try_from(added).unwrap_or(u32::MAX))
}

/// A stored record, as read back.
type Stored = (
    Uuid,
    DateTime<Utc>,
    String,
    String,
    Uuid,
    String,
    String,
    String,
    Value,
    Vec<Option<Uuid>>,
    Vec<Option<Uuid>>,
    i32,
);

/// The venues' records that `search` finds, the oldest first, as the suite's own are found.
pub fn search(conn: &mut PgConnection, search: &AuditSearch) -> QueryResult<Vec<AuditRecord>> {
    let mut query = venue_audit_log::table.into_boxed();
    if let Some(scope) = &search.scope {
        query = query.filter(
            venue_audit_log::event_ids
                .overlaps_with(optional(&scope.event_ids))
                .or(venue_audit_log::region_ids.overlaps_with(optional(&scope.region_ids))),
        );
    }
    if let Some(event) = search.event_id {
        query = query.filter(venue_audit_log::event_ids.contains(vec![Some(event)]));
    }
    if let Some(key) = search.key_id {
        query = query.filter(venue_audit_log::key_id.eq(key));
    }
    if let Some(from) = search.from {
        query = query.filter(venue_audit_log::at.ge(from));
    }
    if let Some(to) = search.to {
        query = query.filter(venue_audit_log::at.lt(to));
    }
    let rows: Vec<Stored> = query
        .order((venue_audit_log::at.asc(), venue_audit_log::id.asc()))
        .limit(search.limit)
        .select((
            venue_audit_log::id,
            venue_audit_log::at,
            venue_audit_log::service,
            venue_audit_log::venue,
            venue_audit_log::key_id,
            venue_audit_log::role,
            venue_audit_log::method,
            venue_audit_log::route,
            venue_audit_log::targets,
            venue_audit_log::event_ids,
            venue_audit_log::region_ids,
            venue_audit_log::status,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(
            |(
                id,
                at,
                service,
                venue,
                key_id,
                role,
                method,
                route,
                targets,
                events,
                regions,
                status,
            )| {
                Some(AuditRecord {
                    id,
                    at,
                    service,
                    key_id,
                    role: Role::parse(&role)?,
                    method,
                    route,
                    targets: serde_json::from_value(targets).unwrap_or_default(),
                    event_ids: events.into_iter().flatten().collect(),
                    region_ids: regions.into_iter().flatten().collect(),
                    status: u16::try_from(status).ok()?,
                    venue: Some(venue),
                })
            },
        )
        .collect())
}
