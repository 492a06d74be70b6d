//! Ranking's tables: its copies of what the producers' feeds carry, the events whose views are to
//! be computed again, and the views as served.

use crate::ratings;
use crate::schema::ranking::{
    entries, entry_versions, event_views, events, feeds, known_results, players, stale_views,
};
use catan_api::{Entry, Event, RegistrationChange, RegistrationChangeKind, TableResult};
use catan_kit::ApiError;
use catan_kit::db::enum_to_text;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use uuid::Uuid;

/// The feeds ranking follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    Registration,
    Results,
}

impl Feed {
    pub const ALL: [Feed; 2] = [Feed::Registration, Feed::Results];

    pub fn name(self) -> &'static str {
        match self {
            Feed::Registration => "registration",
            Feed::Results => "results",
        }
    }
}

/// Where to read `feed` on from.
pub fn next_of(conn: &mut PgConnection, feed: Feed) -> Result<String, ApiError> {
    Ok(feeds::table
        .find(feed.name())
        .select(feeds::next)
        .first(conn)?)
}

/// Moves `feed`'s cursor from `from` to `to`; false when another replica moved it meanwhile (its
/// copy of the same page then stands, and this one is rolled back).
pub fn advance(
    conn: &mut PgConnection,
    feed: Feed,
    from: &str,
    to: &str,
) -> Result<bool, ApiError> {
    let moved = diesel::update(feeds::table.find(feed.name()).filter(feeds::next.eq(from)))
        .set(feeds::next.eq(to))
        .execute(conn)?;
    Ok(moved == 1)
}

/// Records how the last read of `feed` went: caught up with it at `caught_up_at`, or failing.
pub fn record_read(
    conn: &mut PgConnection,
    feed: Feed,
    outcome: Result<DateTime<Utc>, String>,
) -> Result<(), ApiError> {
    let row = feeds::table.find(feed.name());
    match outcome {
        Ok(at) => diesel::update(row)
            .set((
                feeds::caught_up_at.eq(at),
                feeds::failing_since.eq(None::<DateTime<Utc>>),
                feeds::last_error.eq(None::<String>),
            ))
            .execute(conn)?,
        Err(error) => diesel::update(row)
            .set((
                feeds::failing_since.eq(diesel::dsl::sql::<
                    diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>,
                >("coalesce(failing_since, now())")),
                feeds::last_error.eq(error),
            ))
            .execute(conn)?,
    };
    Ok(())
}

/// Every feed's state.
pub fn feed_states(conn: &mut PgConnection) -> Result<Vec<catan_api::FeedState>, ApiError> {
    type Row = (String, Option<DateTime<Utc>>, Option<DateTime<Utc>>);
    let rows: Vec<Row> = feeds::table
        .order(feeds::name)
        .select((feeds::name, feeds::caught_up_at, feeds::failing_since))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(name, caught_up_at, failing_since)| catan_api::FeedState {
            name,
            caught_up_at,
            failing_since,
        })
        .collect())
}

fn mark_stale(conn: &mut PgConnection, event_ids: &[Uuid]) -> Result<(), ApiError> {
    for event_id in event_ids {
        diesel::insert_into(stale_views::table)
            .values(stale_views::event_id.eq(event_id))
            .on_conflict(stale_views::event_id)
            .do_update()
            .set(
                stale_views::marked.eq(diesel::dsl::sql::<diesel::sql_types::BigInt>(
                    "nextval('stale_views_marked_seq')",
                )),
            )
            .execute(conn)?;
    }
    Ok(())
}

/// Copies registration's changes, and marks the events they touch for a new view.
pub fn apply_registration(
    conn: &mut PgConnection,
    changes: &[RegistrationChange],
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
                ratings::mark_stale(conn, event.id, 0, at)?;
                // Its name and days show in the season tables that hold it.
                crate::seasons::store::mark_for_event(conn, event.id)?;
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
                        ratings::mark_stale(conn, Uuid::nil(), 0, at)?;
                        // Every season's table may list the duplicate.
                        crate::seasons::store::mark_all(conn)?;
                    }
                } else {
                    // A new name or region shows in the season tables that list him.
                    crate::seasons::store::mark_for_player(conn, player.id)?;
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
    mark_stale(conn, &touched)
}

/// Copies results; a newer change of a table replaces an older one, never the reverse, so that
/// replicas copying at once agree. Marks their events for a new view, and the ratings for a
/// replay from each event's first round touched. One statement for the whole page.
pub fn apply_results(conn: &mut PgConnection, results: &[TableResult]) -> Result<(), ApiError> {
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
    ratings::mark_games(conn, &games, &changed_at)?;
    let mut touched = event_ids;
    touched.dedup();
    mark_stale(conn, &touched)
}

/// The SQL of whether a producer cannot be read just now, so that what the read model serves may
/// be behind: every read answers it beside what it reads.
pub const FEED_FAILING: &str = "EXISTS (SELECT 1 FROM feeds WHERE failing_since IS NOT NULL)";

fn feed_failing() -> diesel::expression::SqlLiteral<diesel::sql_types::Bool> {
    diesel::dsl::sql(FEED_FAILING)
}

/// Whether a producer cannot be read just now ([`FEED_FAILING`]).
pub fn behind(conn: &mut PgConnection) -> Result<bool, ApiError> {
    Ok(diesel::select(feed_failing()).get_result(conn)?)
}

/// Up to `limit` events whose views are stale, each with the mark that asked for it.
pub fn stale(conn: &mut PgConnection, limit: i64) -> Result<Vec<(Uuid, i64)>, ApiError> {
    Ok(stale_views::table
        .order(stale_views::marked)
        .limit(limit)
        .select((stale_views::event_id, stale_views::marked))
        .load(conn)?)
}

/// What an event's views are computed from: the event, its entries, every result known, and the
/// last change among them; `None` while registration's feed has not brought the event.
pub struct Inputs {
    pub event: Event,
    pub entries: Vec<Entry>,
    pub results: Vec<TableResult>,
    pub as_of: DateTime<Utc>,
}

/// An event's entries as parsed, in registration's order, and the last change among them.
pub struct EventEntries {
    entries: Vec<Entry>,
    changed_at: Option<DateTime<Utc>>,
}

/// Each event's entries as last read, by their version (`entry_versions`): a large event's
/// thousand entries change rarely, and reading and parsing them again for every new result
/// was the largest part of computing its views.
#[derive(Default)]
pub struct EntriesCache {
    events: Mutex<HashMap<Uuid, (i64, Arc<EventEntries>)>>,
}

impl EntriesCache {
    /// Events whose entries are kept at most; past it the cache starts again empty.
    const EVENTS: usize = 256;

    fn get(&self, event_id: Uuid, version: i64) -> Option<Arc<EventEntries>> {
        let events = self.events.lock().unwrap_or_else(PoisonError::into_inner);
        events
            .get(&event_id)
            .filter(|(kept, _)| *kept == version)
            .map(|(_, entries)| Arc::clone(entries))
    }

    fn put(&self, event_id: Uuid, version: i64, entries: Arc<EventEntries>) {
        let mut events = self.events.lock().unwrap_or_else(PoisonError::into_inner);
        if events.len() >= Self::EVENTS && !events.contains_key(&event_id) {
            events.clear();
        }
        events.insert(event_id, (version, entries));
    }
}

/// An event's entries: kept ones while their version stands, else read (after the version, so
/// that what is kept is never older than the version it is kept for).
fn entries_of(
    conn: &mut PgConnection,
    event_id: Uuid,
    cache: &EntriesCache,
) -> Result<Arc<EventEntries>, ApiError> {
    use diesel::dsl::sql;
    use diesel::sql_types::Text;
    let version: i64 = entry_versions::table
        .find(event_id)
        .select(entry_versions::version)
        .first(conn)
        .optional()?
        .unwrap_or(0);
    if let Some(kept) = cache.get(event_id, version) {
        return Ok(kept);
    }
    let rows: Vec<(String, DateTime<Utc>)> = entries::table
        .filter(entries::event_id.eq(event_id))
        .order(entries::id)
        .select((sql::<Text>("body::text"), entries::changed_at))
        .load(conn)?;
    let changed_at = rows.iter().map(|(_, at)| *at).max();
    // An entry's order is its registration's, as registration lists them.
    let mut entries: Vec<Entry> = rows
        .iter()
        .map(|(body, _)| parse_text(body))
        .collect::<Result<_, _>>()?;
    entries.sort_by_key(|e: &Entry| (e.created_at, e.id));
    let read = Arc::new(EventEntries {
        entries,
        changed_at,
    });
    cache.put(event_id, version, Arc::clone(&read));
    Ok(read)
}

pub fn inputs_of(
    conn: &mut PgConnection,
    event_id: Uuid,
    cache: &EntriesCache,
) -> Result<Option<Inputs>, ApiError> {
    use diesel::dsl::sql;
    use diesel::sql_types::Text;
    // Bodies are read as JSON text and parsed once, straight into their types.
    let Some((event, event_changed)): Option<(String, DateTime<Utc>)> = events::table
        .find(event_id)
        .select((sql::<Text>("body::text"), events::changed_at))
        .first(conn)
        .optional()?
    else {
        return Ok(None);
    };
    let entries = entries_of(conn, event_id, cache)?;
    let result_rows: Vec<String> = known_results::table
        .filter(known_results::event_id.eq(event_id))
        .select(sql::<Text>("result::text"))
        .load(conn)?;
    let results: Vec<TableResult> = result_rows
        .iter()
        .map(|text| parse_text(text))
        .collect::<Result<_, _>>()?;
    let as_of = entries
        .changed_at
        .into_iter()
        .chain(results.iter().map(|r| r.recorded_at))
        .fold(event_changed, DateTime::max);
    Ok(Some(Inputs {
        event: parse_text(&event)?,
        entries: entries.entries.clone(),
        results,
        as_of,
    }))
}

fn parse_text<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ApiError> {
    serde_json::from_str(text).map_err(ApiError::internal)
}

/// An event's views as served, with their validators.
pub struct Views {
    pub standings: String,
    pub standings_etag: String,
    pub placements: String,
    pub placements_etag: String,
    /// What the seasons need of the event ([`crate::seasons::input::EventInput`]).
    pub season_input: String,
    pub as_of: DateTime<Utc>,
}

/// Stores an event's views, and clears its stale mark unless a change marked it again meanwhile.
pub fn store_views(
    conn: &mut PgConnection,
    event_id: Uuid,
    marked: i64,
    views: &Views,
) -> Result<(), ApiError> {
    let row = (
        event_views::standings.eq(&views.standings),
        event_views::standings_etag.eq(&views.standings_etag),
        event_views::placements.eq(&views.placements),
        event_views::placements_etag.eq(&views.placements_etag),
        event_views::as_of.eq(views.as_of),
    );
    diesel::insert_into(event_views::table)
        .values((event_views::event_id.eq(event_id), row))
        .on_conflict(event_views::event_id)
        .do_update()
        .set(row)
        .execute(conn)?;
    crate::seasons::store::store_input(conn, event_id, &views.season_input, views.as_of)?;
    unmark(conn, event_id, marked)
}

/// Clears an event's stale mark unless a change marked it again meanwhile.
pub fn unmark(conn: &mut PgConnection, event_id: Uuid, marked: i64) -> Result<(), ApiError> {
    diesel::delete(
        stale_views::table
            .find(event_id)
            .filter(stale_views::marked.eq(marked)),
    )
    .execute(conn)?;
    Ok(())
}

/// Which of an event's views to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    Standings,
    Placements,
}

/// A stored view: its body, its validator, and whether a producer cannot be read just now (so
/// that it may be behind).
pub struct Stored {
    pub body: String,
    pub etag: String,
    pub behind: bool,
}

/// One event's stored view, read in one query.
pub fn stored(
    conn: &mut PgConnection,
    event_id: Uuid,
    view: View,
) -> Result<Option<Stored>, ApiError> {
    let behind = feed_failing();
    let row: Option<(String, String, bool)> = match view {
        View::Standings => event_views::table
            .find(event_id)
            .select((event_views::standings, event_views::standings_etag, behind))
            .first(conn)
            .optional()?,
        View::Placements => event_views::table
            .find(event_id)
            .select((
                event_views::placements,
                event_views::placements_etag,
                behind,
            ))
            .first(conn)
            .optional()?,
    };
    Ok(row.map(|(body, etag, behind)| Stored { body, etag, behind }))
}

/// One event's stored view's `ETag`, and whether a producer cannot be read just now: what a read
/// needs to answer `304`, or to serve a body it has cached, without fetching the body.
pub fn stored_etag(
    conn: &mut PgConnection,
    event_id: Uuid,
    view: View,
) -> Result<Option<(String, bool)>, ApiError> {
    let behind = feed_failing();
    let row = event_views::table.find(event_id);
    Ok(match view {
        View::Standings => row
            .select((event_views::standings_etag, behind))
            .first(conn)
            .optional()?,
        View::Placements => row
            .select((event_views::placements_etag, behind))
            .first(conn)
            .optional()?,
    })
}

fn to_json(value: &impl serde::Serialize) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(value).map_err(ApiError::internal)
}
