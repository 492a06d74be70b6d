//! Ranking's copies of what the producers' feeds carry: registration's events, entries and
//! players, and every event's results; each change marks what it touches for computing again,
//! with the producer's transactions it brings (`pending`).

use super::mark_stale;
use crate::pending::Pending;
use crate::ratings;
use crate::schema::ranking::{entries, entry_versions, events, players};
use catan_api::{RegistrationChange, RegistrationChangeKind, TableResult};
use catan_kit::ApiError;
use catan_kit::db::enum_to_text;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

/// Copies registration's changes, and marks the events they touch for a new view, as waiting for
/// `pending` (registration's transactions from the page's on).
pub fn apply_registration(
    conn: &mut PgConnection,
    changes: &[RegistrationChange],
    pending: Pending,
) -> Result<(), ApiError> {
    let mut touched = Vec::new();
    let mut entries_changed = Vec::new();
    for change in changes {
        let at = change.changed_at;
        match (change.kind, &change.event, &change.entry, &change.player) {
            (RegistrationChangeKind::Event, Some(event), _, _) => {
                let body = to_json(event)?;
                let starts_on = event.starts_on;
                let row = (
                    events::body.eq(&body),
                    events::changed_at.eq(at),
                    events::starts_on.eq(starts_on),
                );
                diesel::insert_into(events::table)
                    .values((events::id.eq(event.id), row))
                    .on_conflict(events::id)
                    .do_update()
                    .set(row)
                    .execute(conn)?;
                touched.push(event.id);
                // Its date orders its games among everyone's.
                ratings::mark_stale(conn, event.id, 0, at, pending)?;
                // Its name and days show in the season tables that hold it.
                crate::seasons::store::mark_for_event(conn, event.id, pending)?;
            }
            (RegistrationChangeKind::Entry, _, Some(entry), _) => {
                let body = to_json(entry)?;
                diesel::insert_into(entries::table)
                    .values((
                        entries::id.eq(entry.id),
                        entries::event_id.eq(entry.event_id),
                        entries::body.eq(&body),
                        entries::changed_at.eq(at),
                    ))
                    .on_conflict(entries::id)
                    .do_update()
                    .set((entries::body.eq(&body), entries::changed_at.eq(at)))
                    .execute(conn)?;
                touched.push(entry.event_id);
                entries_changed.push(entry.event_id);
            }
            (RegistrationChangeKind::Player, _, _, Some(player)) => {
                let body = to_json(player)?;
                diesel::insert_into(players::table)
                    .values((
                        players::id.eq(player.id),
                        players::body.eq(&body),
                        players::changed_at.eq(at),
                    ))
                    .on_conflict(players::id)
                    .do_update()
                    .set((players::body.eq(&body), players::changed_at.eq(at)))
                    .execute(conn)?;
                if let Some(survivor) = player.merged_into {
                    // A merge copied again (a replica, a feed read twice) changes nothing.
                    let merged = diesel::sql_query(
                        "INSERT INTO merges (player_id, merged_into) VALUES ($1, $2) \
                         ON CONFLICT (player_id) DO UPDATE SET merged_into = excluded.merged_into \
                         WHERE merges.merged_into <> excluded.merged_into",
                    )
                    .bind::<diesel::sql_types::Uuid, _>(player.id)
                    .bind::<diesel::sql_types::Uuid, _>(survivor)
                    .execute(conn)?;
                    if merged > 0 {
                        ratings::mark_stale(conn, Uuid::nil(), 0, at, pending)?;
                        // Every season's table may list the duplicate.
                        crate::seasons::store::mark_all(conn, pending)?;
                    }
                } else {
                    // A new name or region shows in the season tables that list him.
                    crate::seasons::store::mark_for_player(conn, player.id, pending)?;
                }
            }
            _ => {
                return Err(ApiError::internal(format!(
                    "registration's change of {} carries no {:?}",
                    change.id, change.kind
                )));
            }
        }
    }
    entries_changed.sort_unstable();
    entries_changed.dedup();
    for event_id in entries_changed {
        diesel::insert_into(entry_versions::table)
            .values(entry_versions::event_id.eq(event_id))
            .on_conflict(entry_versions::event_id)
            .do_update()
            .set(
                entry_versions::version.eq(diesel::dsl::sql::<diesel::sql_types::BigInt>(
                    "nextval('entry_versions_version_seq')",
                )),
            )
            .execute(conn)?;
    }
    touched.sort_unstable();
    touched.dedup();
    mark_stale(conn, &touched, pending)
}

/// Copies results; a newer change of a table replaces an older one, never the reverse, so that
/// replicas copying at once agree. Marks their events for a new view, and the ratings for a
/// replay from each event's first round touched, as waiting for `pending` (results'
/// transactions from the page's on). One statement for the whole page.
pub fn apply_results(
    conn: &mut PgConnection,
    results: &[TableResult],
    pending: Pending,
) -> Result<(), ApiError> {
    use diesel::sql_types::{Array, BigInt, Integer, Jsonb, Text, Uuid as SqlUuid};
    use std::collections::BTreeMap;
    // Each table once, in its newest change: one statement may not update a row twice.
    let mut newest: BTreeMap<(Uuid, u32, u32), &TableResult> = BTreeMap::new();
    for result in results {
        let key = (result.event_id, result.round, result.table);
        if newest.get(&key).is_none_or(|kept| kept.seq < result.seq) {
            newest.insert(key, result);
        }
    }
    let newest: Vec<&TableResult> = newest.into_values().collect();
    let number = |n: u32| i32::try_from(n).map_err(ApiError::internal);
    let event_ids: Vec<Uuid> = newest.iter().map(|r| r.event_id).collect();
    let rounds: Vec<i32> = newest
        .iter()
        .map(|r| number(r.round))
        .collect::<Result<_, _>>()?;
    let tables: Vec<i32> = newest
        .iter()
        .map(|r| number(r.table))
        .collect::<Result<_, _>>()?;
    let stages: Vec<String> = newest.iter().map(|r| enum_to_text(&r.stage)).collect();
    let seqs: Vec<i64> = newest.iter().map(|r| r.seq).collect();
    let bodies: Vec<serde_json::Value> = newest
        .iter()
        .map(|r| serde_json::to_value(r).map_err(ApiError::internal))
        .collect::<Result<_, _>>()?;
    // Raw SQL: diesel's upsert cannot put a WHERE on its DO UPDATE here.
    diesel::sql_query(
        "INSERT INTO known_results (event_id, round, table_number, stage, seq, result) \
         SELECT * FROM unnest($1, $2, $3, $4, $5, $6) \
         ON CONFLICT (event_id, round, table_number) DO UPDATE SET seq = excluded.seq, stage = excluded.stage, result = excluded.result \
         WHERE known_results.seq < excluded.seq",
    )
    .bind::<Array<SqlUuid>, _>(&event_ids)
    .bind::<Array<Integer>, _>(&rounds)
    .bind::<Array<Integer>, _>(&tables)
    .bind::<Array<Text>, _>(&stages)
    .bind::<Array<BigInt>, _>(&seqs)
    .bind::<Array<Jsonb>, _>(&bodies)
    .execute(conn)?;
    let games: Vec<(Uuid, i32, i32)> = event_ids
        .iter()
        .zip(&rounds)
        .zip(&tables)
        .map(|((&event, &round), &table)| (event, round, table))
        .collect();
    let changed_at: Vec<DateTime<Utc>> = newest.iter().map(|r| r.recorded_at).collect();
    ratings::mark_games(conn, &games, &changed_at, pending)?;
    let mut touched = event_ids;
    touched.dedup();
    mark_stale(conn, &touched, pending)
}

fn to_json(value: &impl serde::Serialize) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(value).map_err(ApiError::internal)
}
