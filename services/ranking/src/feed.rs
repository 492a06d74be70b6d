//! Ranking's copy of an event's results, brought up to date from the results service's change feed.

use crate::schema::ranking::{feed_cursors, known_results};
use catan_api::{ApiClient, TableResult};
use catan_kit::ApiError;
use catan_kit::db::{self, PgPool};
use diesel::prelude::*;
use uuid::Uuid;

const PAGE: u32 = 500;

diesel::define_sql_function! {
    /// PostgreSQL's `GREATEST` of two numbers.
    fn greatest(a: diesel::sql_types::BigInt, b: diesel::sql_types::BigInt) -> diesel::sql_types::BigInt;
}

/// Reads the changes after this service's cursor and stores them. When the results service cannot
/// be reached, the copy stays as it is and `false` says the standings may be behind.
pub async fn catch_up(
    pool: &PgPool,
    results: &ApiClient,
    event_id: Uuid,
) -> Result<bool, ApiError> {
    let mut after: i64 = db::run(pool, move |conn| {
        Ok(feed_cursors::table
            .find(event_id)
            .select(feed_cursors::last_seq)
            .first(conn)
            .optional()?
            .unwrap_or(0))
    })
    .await?;
    loop {
        let page = match results.result_changes(event_id, after, PAGE).await {
            Ok(page) => page.items,
            Err(e) => {
                tracing::warn!(%event_id, error = %e, "results feed unavailable; serving the copy as it is");
                return Ok(false);
            }
        };
        let Some(last) = page.last().map(|r| r.seq) else {
            return Ok(true);
        };
        let full_page = u32::try_from(page.len()) == Ok(PAGE);
        db::transaction(pool, move |conn| store_page(conn, event_id, &page, last)).await?;
        after = last;
        if !full_page {
            return Ok(true);
        }
    }
}

/// Stores a page of changes; a newer change of a table replaces an older one, never the reverse,
/// so replicas reading the feed at once agree.
fn store_page(
    conn: &mut PgConnection,
    event_id: Uuid,
    page: &[TableResult],
    last_seq: i64,
) -> Result<(), ApiError> {
    for result in page {
        use diesel::sql_types::{BigInt, Integer, Jsonb, Text, Uuid as SqlUuid};
        // Raw SQL: diesel's upsert cannot put a WHERE on its DO UPDATE here.
        diesel::sql_query(
            "INSERT INTO known_results (event_id, round, table_number, stage, seq, result) VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (event_id, round, table_number) DO UPDATE SET seq = excluded.seq, result = excluded.result \
             WHERE known_results.seq < excluded.seq",
        )
        .bind::<SqlUuid, _>(event_id)
        .bind::<Integer, _>(result.round as i32)
        .bind::<Integer, _>(result.table as i32)
        .bind::<Text, _>(db::enum_to_text(&result.stage))
        .bind::<BigInt, _>(result.seq)
        .bind::<Jsonb, _>(serde_json::to_value(result).map_err(ApiError::internal)?)
        .execute(conn)?;
    }
    diesel::insert_into(feed_cursors::table)
        .values((
            feed_cursors::event_id.eq(event_id),
            feed_cursors::last_seq.eq(last_seq),
        ))
        .on_conflict(feed_cursors::event_id)
        .do_update()
        .set(feed_cursors::last_seq.eq(greatest(
            feed_cursors::last_seq,
            diesel::upsert::excluded(feed_cursors::last_seq),
        )))
        .execute(conn)?;
    Ok(())
}

/// Every result of the event known here.
pub async fn known(pool: &PgPool, event_id: Uuid) -> Result<Vec<TableResult>, ApiError> {
    let rows: Vec<serde_json::Value> = db::run(pool, move |conn| {
        Ok(known_results::table
            .filter(known_results::event_id.eq(event_id))
            .order((known_results::round, known_results::table_number))
            .select(known_results::result)
            .load(conn)?)
    })
    .await?;
    rows.into_iter()
        .map(|v| serde_json::from_value(v).map_err(ApiError::internal))
        .collect()
}
