//! The skeleton every service is built on: its name (which is also its database schema), its
//! migrations and its routes. From these it derives the service's OpenAPI document, opens and
//! migrates its database, and serves it; [`run_alone`] is a service binary's whole `main`.

use crate::db::{self, DbError, PgPool};
use crate::server::{self, RunningServer};
use crate::settings::Settings;
use actix_web::{App, web};
use diesel_migrations::EmbeddedMigrations;
use std::future::Future;
use std::net::TcpListener;
use utoipa_actix_web::AppExt;
use utoipa_actix_web::service_config::ServiceConfig;

/// A service: what it is called, what its schema holds and what it serves. Each service declares
/// one as a `const`, so every use is a fresh value.
pub struct Service {
    /// The service's name and its PostgreSQL schema.
    pub name: &'static str,
    pub migrations: EmbeddedMigrations,
    /// Registers every handler, with its OpenAPI, in one place.
    pub routes: fn(&mut ServiceConfig),
}

impl Service {
    /// The service's OpenAPI document, from its routes.
    pub fn openapi(self) -> utoipa::openapi::OpenApi {
        App::new()
            .into_utoipa_app()
            .configure(self.routes)
            .split_for_parts()
            .1
    }

    /// The pool over the service's schema, migrated.
    pub async fn database(self, settings: &Settings) -> Result<PgPool, DbError> {
        db::open(&settings.database, self.name, self.migrations).await
    }

    /// Serves the routes on `listener`, with `pool` (which idempotent writes use) and the app data
    /// `data` registers (the service's state, the token verifier).
    pub fn serve<F>(
        self,
        listener: TcpListener,
        settings: &Settings,
        pool: &PgPool,
        data: F,
    ) -> std::io::Result<RunningServer>
    where
        F: Fn(&mut ServiceConfig) + Send + Clone + 'static,
    {
        let routes = self.routes;
        let pool = web::Data::new(pool.clone());
        server::serve(listener, self.name, settings, move |cfg| {
            cfg.app_data(pool.clone());
            data(cfg);
            routes(cfg);
        })
    }
}

/// A service binary's `main`: logs, settings from the environment, a listener on `HOST:PORT`
/// (`default_port` when `PORT` is unset), then `start` until a signal stops the server.
pub async fn run_alone<F, Fut>(default_port: u16, start: F) -> anyhow::Result<()>
where
    F: FnOnce(Settings, TcpListener) -> Fut,
    Fut: Future<Output = anyhow::Result<RunningServer>>,
{
    crate::telemetry::init();
    let settings = Settings::from_env()?;
    let addr = format!(
        "{}:{}",
        settings.http.host,
        settings.http.port.unwrap_or(default_port)
    );
    let listener = server::bind(&addr)?;
    start(settings, listener).await?.wait().await?;
    Ok(())
}
