//! Pairing service: draws an event's rounds (qualifying rounds, then the semi-finals, then the
//! final) with the domain's pairing engine, and stores each with its seed and the engine's figures.

mod draw;
mod routes;
mod schema;
mod store;
mod swiss;

use actix_web::{App, web};
use catan_api::ApiClient;
use catan_kit::auth::Verifier;
use catan_kit::config::PeerUrls;
use catan_kit::db::{self, PgPool};
use catan_kit::server::{self, RunningServer};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};
use std::net::TcpListener;
use utoipa_actix_web::AppExt;

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/pairing");
pub const SCHEMA: &str = "pairing";

#[derive(Debug, Clone)]
pub struct Config {
    pub database_url: String,
    pub peers: PeerUrls,
    /// The outbox relay's settings (`CATAN_INTERNAL_KEY`, `CATAN_WEBHOOKS_POLL_MS`).
    pub webhooks: catan_kit::webhooks::WebhookSettings,
}

impl Config {
    pub fn from_env() -> Self {
        Config {
            database_url: catan_kit::config::env_or(
                "DATABASE_URL",
                catan_kit::config::DEFAULT_DATABASE_URL,
            ),
            peers: PeerUrls::from_env(),
            webhooks: catan_kit::webhooks::WebhookSettings::from_env()
                .unwrap_or_else(|e| panic!("{e}")),
        }
    }
}

pub(crate) struct State {
    pub pool: PgPool,
    pub registration: ApiClient,
    pub results: ApiClient,
    pub ranking: ApiClient,
}

/// Everything the service serves, registered with its OpenAPI in one place.
pub fn api(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    routes::register(cfg);
}

/// The service's OpenAPI document.
pub fn openapi() -> utoipa::openapi::OpenApi {
    App::new()
        .into_utoipa_app()
        .configure(api)
        .split_for_parts()
        .1
}

pub async fn start(config: Config, listener: TcpListener) -> anyhow::Result<RunningServer> {
    let pool = db::open(&config.database_url, SCHEMA, MIGRATIONS).await?;
    let verifier = Verifier::of_registration(&config.peers.registration).await;
    let state = web::Data::new(State {
        pool,
        registration: ApiClient::new(&config.peers.registration),
        results: ApiClient::new(&config.peers.results),
        ranking: ApiClient::new(&config.peers.ranking),
    });
    let relay = catan_kit::webhooks::spawn_relay(
        state.pool.clone(),
        &config.peers.registration,
        config.webhooks,
    );
    Ok(server::serve(listener, "pairing", move |cfg| {
        cfg.app_data(state.clone()).app_data(verifier.clone());
        api(cfg);
    })?
    .with_background(relay))
}
