//! Ranking service: standings with exact tie-breaks and the final placements, computed from its
//! own copy of the results, which it brings up to date from the results service's change feed on
//! every read: a result posted while ranking was down is read when it is back.

mod feed;
mod routes;
mod schema;
mod stream;

use actix_web::{App, web};
use catan_api::ApiClient;
use catan_kit::auth::Verifier;
use catan_kit::config::PeerUrls;
use catan_kit::db::{self, PgPool};
use catan_kit::server::{self, RunningServer};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};
use std::net::TcpListener;
use utoipa_actix_web::AppExt;

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/ranking");
pub const SCHEMA: &str = "ranking";

#[derive(Debug, Clone)]
pub struct Config {
    pub database_url: String,
    pub peers: PeerUrls,
}

impl Config {
    pub fn from_env() -> Self {
        Config {
            database_url: catan_kit::config::env_or(
                "DATABASE_URL",
                catan_kit::config::DEFAULT_DATABASE_URL,
            ),
            peers: PeerUrls::from_env(),
        }
    }
}

pub(crate) struct State {
    pub pool: PgPool,
    pub registration: ApiClient,
    pub pairing: ApiClient,
    pub results: ApiClient,
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
        pairing: ApiClient::new(&config.peers.pairing),
        results: ApiClient::new(&config.peers.results),
    });
    let (hub, close_streams) = stream::StandingsHub::from_env().map_err(anyhow::Error::msg)?;
    let hub = web::Data::new(hub);
    Ok(server::serve(listener, "ranking", move |cfg| {
        cfg.app_data(state.clone())
            .app_data(verifier.clone())
            .app_data(hub.clone());
        api(cfg);
    })?
    .with_background(close_streams))
}
