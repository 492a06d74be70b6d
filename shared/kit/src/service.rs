//! The skeleton every service is built on: its name (which is also its database schema), its
//! migrations and its routes. From these it derives the service's OpenAPI document, opens and
//! migrates its database, and serves it; [`run_alone`] is a service binary's whole `main`.

use crate::auth::Verifier;
use crate::db::{self, DbError, PgPool};
use crate::server::{self, RunningServer};
use crate::settings::PeerUrls;
use crate::settings::Settings;
use crate::webhooks::{internal_routes, spawn_relay};
use actix_web::{App, web};
use catan_api::ApiClient;
use diesel_migrations::EmbeddedMigrations;
use std::future::Future;
use std::net::TcpListener;
use utoipa_actix_web::AppExt;
use utoipa_actix_web::service_config::ServiceConfig;

/// A service: what it is called, what its schema holds and what it serves.
#[derive(Clone, Copy)]
pub struct Service {
    /// The service's name and its PostgreSQL schema.
    pub name: &'static str,
    /// Its migrations (a function: embedded migrations cannot be copied).
    pub migrations: fn() -> EmbeddedMigrations,
    /// Registers every handler, with its OpenAPI, in one place.
    pub routes: fn(&mut ServiceConfig),
    /// Whether it announces webhook events through its outbox (see [`crate::webhooks`]): then it
    /// relays the outbox and serves its dead letters on internal routes.
    pub relays_outbox: bool,
}

impl Service {
    /// A service named `name` (also its schema), with its migrations and routes.
    pub const fn new(
        name: &'static str,
        migrations: fn() -> EmbeddedMigrations,
        routes: fn(&mut ServiceConfig),
    ) -> Service {
        Service {
            name,
            migrations,
            routes,
            relays_outbox: false,
        }
    }

    /// The same service, announcing webhook events through its outbox.
    pub const fn with_outbox(self) -> Service {
        Service {
            relays_outbox: true,
            ..self
        }
    }
}

/// The other services, each through a typed client with a timeout and retries on every call.
#[derive(Debug, Clone)]
pub struct Peers {
    pub registration: ApiClient,
    pub pairing: ApiClient,
    pub results: ApiClient,
    pub ranking: ApiClient,
}

impl Peers {
    pub fn of(urls: &PeerUrls) -> Peers {
        Peers {
            registration: ApiClient::new(&urls.registration),
            pairing: ApiClient::new(&urls.pairing),
            results: ApiClient::new(&urls.results),
            ranking: ApiClient::new(&urls.ranking),
        }
    }
}

/// What a handler of a service started by [`Service::start`] reads as `web::Data<ServiceState>`.
pub struct ServiceState {
    pub pool: PgPool,
    pub peers: Peers,
}

impl Service {
    /// The service's OpenAPI document, from its routes.
    pub fn openapi(&self) -> utoipa::openapi::OpenApi {
        App::new()
            .into_utoipa_app()
            .configure(self.routes)
            .split_for_parts()
            .1
    }

    /// The pool over the service's schema, migrated.
    pub async fn database(&self, settings: &Settings) -> Result<PgPool, DbError> {
        db::open(&settings.database, self.name, (self.migrations)()).await
    }

    /// Serves the routes on `listener`, with `pool` (which idempotent writes use) and the app data
    /// `data` registers (the service's state, the token verifier).
    pub fn serve<F>(
        &self,
        listener: TcpListener,
        settings: &Settings,
        pool: &PgPool,
        data: F,
    ) -> std::io::Result<RunningServer>
    where
        F: Fn(&mut ServiceConfig) + Send + Clone + 'static,
    {
        let routes = self.routes;
        let db_pool = pool;
        let pool = web::Data::new(pool.clone());
        let producer = web::Data::new(crate::idempotency::ReadModelProducer(
            catan_api::Producer::of_service(self.name),
        ));
        // A service with an outbox serves its dead relay events to registration.
        let outbox = self
            .relays_outbox
            .then(|| (self.name, settings.webhooks.internal_key.clone()));
        let server = server::serve(listener, self.name, settings, move |cfg| {
            cfg.app_data(pool.clone()).app_data(producer.clone());
            data(cfg);
            routes(cfg);
            if let Some((service, internal_key)) = &outbox {
                internal_routes(cfg, service, internal_key.clone());
            }
        })?;
        if let Some(metrics) = server.metrics() {
            metrics
                .watch_pool(db_pool.clone())
                .map_err(std::io::Error::other)?;
            if self.relays_outbox {
                metrics
                    .watch_outbox(db_pool.clone())
                    .map_err(std::io::Error::other)?;
            }
        }
        Ok(server)
    }
}

impl Service {
    /// Starts a service whose tokens registration signs: opens its database, relays its outbox
    /// if it has one, and serves its routes with a [`ServiceState`], the token verifier and the
    /// app data `data` adds.
    pub async fn start<F>(
        &self,
        settings: Settings,
        listener: TcpListener,
        data: F,
    ) -> anyhow::Result<RunningServer>
    where
        F: Fn(&mut ServiceConfig) + Send + Clone + 'static,
    {
        Ok(self.start_with_state(settings, listener, data).await?.0)
    }

    /// [`Service::start`], also handing back the handlers' state for the service's own
    /// background work.
    pub async fn start_with_state<F>(
        &self,
        settings: Settings,
        listener: TcpListener,
        data: F,
    ) -> anyhow::Result<(RunningServer, web::Data<ServiceState>)>
    where
        F: Fn(&mut ServiceConfig) + Send + Clone + 'static,
    {
        let pool = self.database(&settings).await?;
        let verifier = Verifier::of_registration(&settings.peers.registration).await;
        let state = web::Data::new(ServiceState {
            pool: pool.clone(),
            peers: Peers::of(&settings.peers),
        });
        let handlers_state = state.clone();
        let server = self
            .serve(listener, &settings, &pool, move |cfg| {
                cfg.app_data(handlers_state.clone())
                    .app_data(verifier.clone());
                data(cfg);
            })?
            .with_background(crate::idempotency::spawn_purge(pool.clone()));
        let server = if self.relays_outbox {
            let registration = &settings.peers.registration;
            server.with_background(spawn_relay(pool, registration, settings.webhooks))
        } else {
            server
        };
        Ok((server, state))
    }
}

/// A service binary's `main`: logs, settings from the environment, a listener on `HOST:PORT`
/// (`default_port` when `PORT` is unset), then `start` until a signal stops the server.
pub async fn run_alone<F, Fut>(default_port: u16, start: F) -> anyhow::Result<()>
where
    F: FnOnce(Settings, TcpListener) -> Fut,
    Fut: Future<Output = anyhow::Result<RunningServer>>,
{
    crate::no_transparent_huge_pages();
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
