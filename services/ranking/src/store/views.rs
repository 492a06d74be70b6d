//! An event's views: what they are computed from (ranking's copies), and the views as served.

use crate::pending::ReadThrough;
use crate::schema::ranking::{entries, entry_versions, event_views, events, known_results};
use catan_api::{Entry, Event, TableResult};
use catan_kit::ApiError;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use uuid::Uuid;

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
    /// Whether the placements are complete.
    pub finished: bool,
}

/// Stores an event's views, computed from what was copied through `read` for its stale mark
/// `stale`, and clears the mark unless a change marked it again meanwhile. The seasons that hold
/// the event, when its season input changed, then wait for what the mark waited for.
pub fn store_views(
    conn: &mut PgConnection,
    stale: &super::StaleEvent,
    read: ReadThrough,
    views: &Views,
) -> Result<(), ApiError> {
    let event_id = stale.event_id;
    // Replicas storing the same event's views take turns, so that only one announces its end.
    diesel::sql_query(
        "SELECT pg_advisory_xact_lock(hashtextextended('ranking.views ' || $1::text, 0))",
    )
    .bind::<diesel::sql_types::Uuid, _>(event_id)
    .execute(conn)?;
    let was_finished: bool = event_views::table
        .find(event_id)
        .select(event_views::finished)
        .first(conn)
        .optional()?
        .unwrap_or(false);
    let row = (
        event_views::standings.eq(&views.standings),
        event_views::standings_etag.eq(&views.standings_etag),
        event_views::placements.eq(&views.placements),
        event_views::placements_etag.eq(&views.placements_etag),
        event_views::as_of.eq(views.as_of),
        event_views::finished.eq(views.finished || was_finished),
    );
    diesel::insert_into(event_views::table)
        .values((event_views::event_id.eq(event_id), row))
        .on_conflict(event_views::event_id)
        .do_update()
        .set(row)
        .execute(conn)?;
    if views.finished && !was_finished {
        let placements: serde_json::Value =
            serde_json::from_str(&views.placements).map_err(ApiError::internal)?;
        catan_kit::webhooks::enqueue(
            conn,
            catan_api::WebhookEventType::EventFinished,
            event_id,
            &placements,
        )?;
    }
    crate::seasons::store::store_input(
        conn,
        event_id,
        &views.season_input,
        views.as_of,
        stale.pending,
    )?;
    super::unmark(conn, stale, read)
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
    let behind = super::feed_failing();
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
    let behind = super::feed_failing();
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
