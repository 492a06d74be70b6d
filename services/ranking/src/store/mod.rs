//! Ranking's tables: where it is in each producer's feed, the events whose views are to be
//! computed again, its copies of what the feeds carry (`copies`), and the views as served
//! (`views`).

mod copies;
mod views;

pub use copies::{apply_registration, apply_results};
pub use views::{
    EntriesCache, Inputs, Stored, View, Views, inputs_of, store_views, stored, stored_etag,
};

use crate::pending::{Pending, ReadThrough, least_sql, raise_sql};
use crate::schema::ranking::{feeds, stale_views};
use catan_api::Producer;
use catan_kit::ApiError;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Nullable, Uuid as SqlUuid};
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

    pub fn producer(self) -> Producer {
        match self {
            Feed::Registration => Producer::Registration,
            Feed::Results => Producer::Results,
        }
    }
}

/// Where ranking is in a feed: the cursor to read on from, and the last transaction of the
/// producer whose changes are all copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedPlace {
    pub next: String,
    pub read_through: i64,
}

/// Where to read `feed` on from.
pub fn place_in(conn: &mut PgConnection, feed: Feed) -> Result<FeedPlace, ApiError> {
    let (next, read_through) = feeds::table
        .find(feed.name())
        .select((feeds::next, feeds::read_through))
        .first(conn)?;
    Ok(FeedPlace { next, read_through })
}

/// How far every change of each producer is copied.
pub fn read_through(conn: &mut PgConnection) -> Result<ReadThrough, ApiError> {
    let rows: Vec<(String, i64)> = feeds::table
        .select((feeds::name, feeds::read_through))
        .load(conn)?;
    let of = |feed: Feed| {
        rows.iter()
            .find(|(name, _)| name == feed.name())
            .map_or(0, |(_, through)| *through)
    };
    Ok(ReadThrough {
        registration: of(Feed::Registration),
        results: of(Feed::Results),
        ranking: 0,
    })
}

/// Moves `feed`'s cursor from `from` to `to`, with the transactions the page read through; false
/// when another replica moved it meanwhile (its copy of the same page then stands, and this one
/// is rolled back).
pub fn advance(
    conn: &mut PgConnection,
    feed: Feed,
    from: &str,
    to: &str,
    read_through: i64,
) -> Result<bool, ApiError> {
    let moved = diesel::update(feeds::table.find(feed.name()).filter(feeds::next.eq(from)))
        .set((
            feeds::next.eq(to),
            feeds::read_through.eq(diesel::dsl::sql::<BigInt>("greatest(read_through, ")
                .bind::<BigInt, _>(read_through)
                .sql(")")),
        ))
        .execute(conn)?;
    Ok(moved == 1)
}

/// Records that a read of `feed` at the cursor `at` found no new change and read through
/// `read_through`, unless another replica moved the cursor meanwhile: whether it did.
pub fn read_nothing_new(
    conn: &mut PgConnection,
    feed: Feed,
    at: &str,
    read_through: i64,
) -> Result<bool, ApiError> {
    advance(conn, feed, at, at, read_through)
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

/// Marks events for new views, for changes `pending` says from where. One statement.
fn mark_stale(
    conn: &mut PgConnection,
    event_ids: &[Uuid],
    pending: Pending,
) -> Result<(), ApiError> {
    if event_ids.is_empty() {
        return Ok(());
    }
    diesel::sql_query(format!(
        "INSERT INTO stale_views (event_id, pending_registration, pending_results) \
         SELECT DISTINCT unnest($1::uuid[]), $2, $3 \
         ON CONFLICT (event_id) DO UPDATE SET marked = nextval('stale_views_marked_seq'), {}",
        least_sql("stale_views", &["registration", "results"])
    ))
    .bind::<Array<SqlUuid>, _>(event_ids)
    .bind::<Nullable<BigInt>, _>(pending.registration)
    .bind::<Nullable<BigInt>, _>(pending.results)
    .execute(conn)?;
    Ok(())
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

/// An event whose views are stale: the mark that asked for them and what it waits for.
#[derive(Debug, Clone, Copy)]
pub struct StaleEvent {
    pub event_id: Uuid,
    pub marked: i64,
    pub pending: Pending,
}

/// Up to `limit` events whose views are stale, the oldest mark first.
pub fn stale(conn: &mut PgConnection, limit: i64) -> Result<Vec<StaleEvent>, ApiError> {
    let rows: Vec<(Uuid, i64, Option<i64>, Option<i64>)> = stale_views::table
        .order(stale_views::marked)
        .limit(limit)
        .select((
            stale_views::event_id,
            stale_views::marked,
            stale_views::pending_registration,
            stale_views::pending_results,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(event_id, marked, registration, results)| StaleEvent {
            event_id,
            marked,
            pending: Pending {
                registration,
                results,
                ranking: None,
            },
        })
        .collect())
}

/// Clears an event's stale mark, computed from what was copied through `read`, unless a change
/// marked it again meanwhile: then the mark waits only for what came past `read`.
pub fn unmark(
    conn: &mut PgConnection,
    stale: &StaleEvent,
    read: ReadThrough,
) -> Result<(), ApiError> {
    let cleared = diesel::delete(
        stale_views::table
            .find(stale.event_id)
            .filter(stale_views::marked.eq(stale.marked)),
    )
    .execute(conn)?;
    if cleared == 0 {
        diesel::sql_query(format!(
            "UPDATE stale_views SET {} WHERE event_id = $1",
            raise_sql(&["registration", "results"], 2)
        ))
        .bind::<SqlUuid, _>(stale.event_id)
        .bind::<BigInt, _>(read.registration)
        .bind::<BigInt, _>(read.results)
        .execute(conn)?;
    }
    Ok(())
}
