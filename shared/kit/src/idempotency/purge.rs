//! Every service purges the idempotency records older than their retention.

use super::RETENTION_HOURS;
use crate::ApiError;
use diesel::prelude::*;

/// How many expired records one purge statement deletes: short statements that hold few locks.
pub const PURGE_BATCH: i64 = 1000;
/// How often each replica purges expired records (and once at its start).
pub const PURGE_EVERY: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// Deletes at most `batch` records older than [`RETENTION_HOURS`], the oldest first, skipping
/// any another transaction holds (a write taking an expired key over, another replica's purge):
/// how many it deleted.
pub fn purge_expired(conn: &mut PgConnection, batch: i64) -> QueryResult<usize> {
    crate::prepared::PreparedSql::new(PURGE_EXPIRED)
        .bind::<diesel::sql_types::Integer, _>(RETENTION_HOURS)
        .bind::<diesel::sql_types::BigInt, _>(batch)
        .execute(conn)
}

/// [`purge_expired`]'s statement: the expired rows are chosen and locked first, and checked
/// again as they are deleted.
const PURGE_EXPIRED: &str = "\
DELETE FROM idempotency_keys
WHERE (api_key_id, key) IN (
    SELECT api_key_id, key FROM idempotency_keys
    WHERE created_at < now() - make_interval(hours => $1)
    ORDER BY created_at
    LIMIT $2
    FOR UPDATE SKIP LOCKED)
  AND created_at < now() - make_interval(hours => $1)";

/// Purges expired records in batches of [`PURGE_BATCH`] until none is left: how many it deleted.
pub async fn purge_all_expired(pool: &crate::db::PgPool) -> Result<usize, ApiError> {
    let mut purged = 0;
    loop {
        let deleted = crate::db::run(pool, |conn| Ok(purge_expired(conn, PURGE_BATCH)?)).await?;
        purged += deleted;
        if i64::try_from(deleted).map_or(true, |deleted| deleted < PURGE_BATCH) {
            return Ok(purged);
        }
        // Let the writes between the batches go first.
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// The background task every service runs: purges the expired records at once, then every
/// [`PURGE_EVERY`]. A replayed answer may hold data that should not outlive its use (the key's
/// request and response), and the table would otherwise only grow.
pub fn spawn_purge(pool: crate::db::PgPool) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            match purge_all_expired(&pool).await {
                Ok(0) => {}
                Ok(purged) => tracing::info!(purged, "expired idempotency keys purged"),
                Err(e) => tracing::warn!(error = %e, "could not purge expired idempotency keys"),
            }
            tokio::time::sleep(PURGE_EVERY).await;
        }
    })
}
