//! Postgres access: one pool per service, each service in its own schema.
//!
//! Every connection of a service has `search_path` set to that service's schema, so its tables
//! (and diesel's migration table) live there and services cannot see each other's tables.

use crate::settings::DatabaseSettings;
use diesel::pg::PgConnection;
use diesel::prelude::*;
use diesel::r2d2::{ConnectionManager, CustomizeConnection, Pool, PooledConnection};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use std::time::Duration;

pub type PgPool = Pool<ConnectionManager<PgConnection>>;
pub type PgConn = PooledConnection<ConnectionManager<PgConnection>>;

/// The migrations the kit owns (the idempotency keys and the webhook outbox), applied to every
/// service's schema before the service's own.
pub const KIT_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("the database is unavailable")]
    Unavailable(#[source] crate::problem::BoxError),
    #[error("database error")]
    Query(#[from] diesel::result::Error),
    #[error("a migration failed")]
    Migration(#[source] crate::problem::BoxError),
}

#[derive(Debug)]
struct SessionSettings {
    schema: String,
    statement_timeout_ms: u64,
}

impl CustomizeConnection<PgConnection, diesel::r2d2::Error> for SessionSettings {
    fn on_acquire(&self, conn: &mut PgConnection) -> Result<(), diesel::r2d2::Error> {
        use diesel::connection::SimpleConnection;
        // The application name tells the service's sessions apart in `pg_stat_activity`.
        conn.batch_execute(&format!(
            "SET search_path TO {0}; SET statement_timeout = {1}; SET application_name = '{0}'",
            self.schema, self.statement_timeout_ms
        ))
        .map_err(diesel::r2d2::Error::QueryError)
    }
}

/// Connects to `database_url` with every session inside `schema`, creating the schema if needed.
pub fn connect(database_url: &str, schema: &str, max_size: u32) -> Result<PgPool, DbError> {
    if !schema.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
        return Err(DbError::Unavailable(
            format!("{schema:?} is not a plain schema name").into(),
        ));
    }
    let mut bootstrap =
        PgConnection::establish(database_url).map_err(|e| DbError::Unavailable(e.into()))?;
    diesel::sql_query(format!("CREATE SCHEMA IF NOT EXISTS {schema}"))
        .execute(&mut bootstrap)
        .or_else(|e| match e {
            // Two replicas starting at once may race on CREATE SCHEMA.
            diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::UniqueViolation,
                _,
            ) => Ok(0),
            other => Err(other),
        })?;
    Pool::builder()
        .max_size(max_size)
        // Connections open as load needs them: a replica at rest holds one, not `max_size`.
        .min_idle(Some(1))
        .idle_timeout(Some(Duration::from_secs(300)))
        .connection_timeout(Duration::from_secs(5))
        .connection_customizer(Box::new(SessionSettings {
            schema: schema.to_string(),
            statement_timeout_ms: 10_000,
        }))
        .build(ConnectionManager::new(database_url))
        .map_err(|e| DbError::Unavailable(e.into()))
}

/// Applies the kit's and then the service's pending migrations to the pool's schema, holding an
/// advisory lock so that replicas starting together migrate once.
pub fn migrate(pool: &PgPool, migrations: EmbeddedMigrations) -> Result<(), DbError> {
    let mut conn = pool.get().map_err(|e| DbError::Unavailable(e.into()))?;
    diesel::sql_query("SELECT pg_advisory_lock(7411)").execute(&mut conn)?;
    let outcome = [KIT_MIGRATIONS, migrations]
        .into_iter()
        .try_for_each(|set| conn.run_pending_migrations(set).map(|_| ()))
        .map_err(DbError::Migration);
    diesel::sql_query("SELECT pg_advisory_unlock(7411)").execute(&mut conn)?;
    outcome
}

/// A service's pool over its schema, migrated: what every service does first at start-up.
/// Pools grow to `settings.pool_size` connections as load needs them.
pub async fn open(
    settings: &DatabaseSettings,
    schema: &'static str,
    migrations: EmbeddedMigrations,
) -> Result<PgPool, DbError> {
    let url = settings.url().to_owned();
    let size = settings.pool_size;
    tokio::task::spawn_blocking(move || {
        let pool = connect(&url, schema, size)?;
        migrate(&pool, migrations)?;
        Ok(pool)
    })
    .await
    .map_err(|e| DbError::Unavailable(e.into()))?
}

/// Holds this service's lock on `event_id` until the transaction ends, serialising its writes of
/// one event: two directors drawing at once get one round, not two. The key includes the schema,
/// so services sharing a database do not wait on each other.
pub fn lock_event(conn: &mut PgConnection, event_id: uuid::Uuid) -> Result<(), crate::ApiError> {
    diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || $1, 0))")
        .bind::<diesel::sql_types::Text, _>(event_id.to_string())
        .execute(conn)?;
    Ok(())
}

/// Runs blocking diesel work off the async executor.
pub async fn run<T, F>(pool: &PgPool, work: F) -> Result<T, crate::ApiError>
where
    F: FnOnce(&mut PgConnection) -> Result<T, crate::ApiError> + Send + 'static,
    T: Send + 'static,
{
    let pool = pool.clone();
    actix_web::web::block(move || {
        let mut conn = pool
            .get()
            .map_err(|e| crate::ApiError::from(DbError::Unavailable(e.into())))?;
        work(&mut conn)
    })
    .await
    .map_err(crate::ApiError::internal)?
}

/// Runs `work` in one transaction: everything it writes commits together or not at all.
pub async fn transaction<T, F>(pool: &PgPool, work: F) -> Result<T, crate::ApiError>
where
    F: FnOnce(&mut PgConnection) -> Result<T, crate::ApiError> + Send + 'static,
    T: Send + 'static,
{
    run(pool, move |conn| conn.transaction(|tx| work(tx))).await
}

/// Lets the current transaction commit without waiting for its WAL to reach the disk. Only for
/// work that is derived and redone when lost: a crash may lose the last such commits, all of
/// them after any one lost, as PostgreSQL replays its WAL in order (the read model's copies and
/// views, whose feed cursors and stale marks commit with them; the outbox relay's claims, whose
/// loss only makes their rows due again at once).
pub fn commit_without_flush(conn: &mut PgConnection) -> Result<(), crate::ApiError> {
    diesel::sql_query("SET LOCAL synchronous_commit = off").execute(conn)?;
    Ok(())
}

impl From<diesel::result::Error> for crate::ApiError {
    fn from(e: diesel::result::Error) -> Self {
        use diesel::result::{DatabaseErrorKind, Error};
        match e {
            Error::NotFound => crate::ApiError::NotFound("not found".into()),
            // The database's own message names its constraint: the caller does not need it.
            Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _) => {
                crate::ApiError::Conflict("it already exists".into())
            }
            Error::DatabaseError(DatabaseErrorKind::SerializationFailure, _) => {
                crate::ApiError::Conflict("a concurrent change won; try again".into())
            }
            // The server went away mid-statement (a restart, a failover): nothing this request
            // wrote committed unless its COMMIT did, which a retry with its Idempotency-Key finds.
            Error::DatabaseError(DatabaseErrorKind::ClosedConnection, _) => {
                crate::ApiError::unavailable("the database is unavailable; retry later", e)
            }
            Error::RollbackErrorOnCommit {
                commit_error,
                rollback_error,
            } if matches!(
                *commit_error,
                Error::DatabaseError(DatabaseErrorKind::ClosedConnection, _)
            ) =>
            {
                crate::ApiError::unavailable(
                    "the database is unavailable; retry later",
                    Error::RollbackErrorOnCommit {
                        commit_error,
                        rollback_error,
                    },
                )
            }
            other => crate::ApiError::internal(other),
        }
    }
}

/// Creates a fresh, empty database named `name` on the server of `admin_url`, returning its URL.
pub fn create_database(
    admin_url: &str,
    name: &str,
    template: Option<&str>,
) -> Result<String, DbError> {
    let mut conn =
        PgConnection::establish(admin_url).map_err(|e| DbError::Unavailable(e.into()))?;
    let template = template
        .map(|t| format!(" TEMPLATE \"{t}\""))
        .unwrap_or_default();
    diesel::sql_query(format!("CREATE DATABASE \"{name}\"{template}")).execute(&mut conn)?;
    Ok(replace_database(admin_url, name))
}

/// The same server URL with another database name.
pub fn replace_database(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url, String::new()),
    };
    let after_scheme = base.find("://").map(|i| i + 3).unwrap_or(0);
    let base = match base[after_scheme..].find('/') {
        Some(slash) => &base[..after_scheme + slash],
        None => base,
    };
    format!("{base}/{database}{query}")
}

/// Whether a database of that name exists.
pub fn database_exists(admin_url: &str, name: &str) -> Result<bool, DbError> {
    #[derive(QueryableByName)]
    struct Found {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        found: bool,
    }
    let mut conn =
        PgConnection::establish(admin_url).map_err(|e| DbError::Unavailable(e.into()))?;
    let row: Found =
        diesel::sql_query("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1) AS found")
            .bind::<diesel::sql_types::Text, _>(name)
            .get_result(&mut conn)?;
    Ok(row.found)
}

/// An enum as stored in a text column: its JSON name (`"semifinal"`, `"time_limit"`).
pub fn enum_to_text<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => text,
        other => panic!("only unit enum variants are stored as text, not {other:?}"),
    }
}

/// The enum a text column holds.
pub fn enum_from_text<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, crate::ApiError> {
    serde_json::from_value(serde_json::Value::String(text.to_string()))
        .map_err(|e| crate::ApiError::internal(format!("stored value {text:?}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::replace_database;
    use actix_web::ResponseError;
    use diesel::result::{DatabaseErrorKind, Error};

    #[test]
    fn a_connection_the_server_closed_is_a_503_and_other_database_errors_stay_500() {
        let closed = || {
            Error::DatabaseError(
                DatabaseErrorKind::ClosedConnection,
                Box::new("server closed the connection unexpectedly".to_string()),
            )
        };
        let status = |e: Error| crate::ApiError::from(e).status_code().as_u16();
        assert_eq!(status(closed()), 503);
        let on_commit = Error::RollbackErrorOnCommit {
            commit_error: Box::new(closed()),
            rollback_error: Box::new(closed()),
        };
        assert_eq!(status(on_commit), 503);
        let unknown = Error::DatabaseError(
            DatabaseErrorKind::Unknown,
            Box::new("division by zero".to_string()),
        );
        assert_eq!(status(unknown), 500);
    }

    #[test]
    fn database_names_are_replaced_in_urls() {
        assert_eq!(
            replace_database("postgres://u@h:5432/postgres", "x"),
            "postgres://u@h:5432/x"
        );
        assert_eq!(
            replace_database("postgres://u@h:5432", "x"),
            "postgres://u@h:5432/x"
        );
        assert_eq!(
            replace_database("postgres://u@h/a?sslmode=disable", "x"),
            "postgres://u@h/x?sslmode=disable"
        );
    }
}
