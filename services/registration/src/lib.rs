//! Registration service: regions, players (one identity across events), events, entries, drops
//! and exclusions, API keys, and the access tokens every service accepts.

mod auth_routes;
mod events_routes;
mod keys;
mod people_routes;
mod schema;
mod webhook_delivery;
mod webhooks_routes;

use actix_web::{App, web};
use catan_kit::auth::Verifier;
use catan_kit::db::{self, PgPool};
use catan_kit::server::{self, RunningServer};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;
use utoipa_actix_web::AppExt;

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/registration");
pub const SCHEMA: &str = "registration";

#[derive(Debug, Clone)]
pub struct Config {
    pub database_url: String,
    /// `CATAN_ADMIN_KEY`: the admin key to start from; generated and printed once when unset.
    pub admin_key: Option<String>,
    pub token_ttl: Duration,
    pub webhooks: catan_kit::webhooks::WebhookSettings,
}

impl Config {
    pub fn from_env() -> Result<Self, String> {
        Ok(Config {
            database_url: catan_kit::config::env_or(
                "DATABASE_URL",
                catan_kit::config::DEFAULT_DATABASE_URL,
            ),
            admin_key: std::env::var("CATAN_ADMIN_KEY")
                .ok()
                .filter(|k| !k.is_empty()),
            token_ttl: Duration::from_secs(catan_kit::config::env_parse(
                "TOKEN_TTL_SECONDS",
                3600,
            )?),
            webhooks: catan_kit::webhooks::WebhookSettings::from_env()?,
        })
    }
}

pub(crate) struct State {
    pub pool: PgPool,
    pub keys: Arc<keys::KeyRing>,
    pub token_ttl: Duration,
    pub webhooks: catan_kit::webhooks::WebhookSettings,
    /// Wakes the webhook deliverer when new deliveries are stored.
    pub deliveries_due: Arc<tokio::sync::Notify>,
}

/// Everything the service serves, registered with its OpenAPI in one place.
pub fn api(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    auth_routes::register(cfg);
    people_routes::register(cfg);
    events_routes::register(cfg);
    webhooks_routes::register(cfg);
}

/// The service's OpenAPI document.
pub fn openapi() -> utoipa::openapi::OpenApi {
    App::new()
        .into_utoipa_app()
        .configure(api)
        .split_for_parts()
        .1
}

/// Connects, migrates, makes sure the signing key and the admin key exist, and serves on `listener`.
pub async fn start(config: Config, listener: TcpListener) -> anyhow::Result<RunningServer> {
    let admin_key = config.admin_key.clone();
    let token_ttl = config.token_ttl;
    let pool = db::open(&config.database_url, SCHEMA, MIGRATIONS).await?;
    let (pool, keys) = tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
        let keys = keys::KeyRing::open(pool.clone(), token_ttl)?;
        keys::ensure_admin_key(&mut *pool.get()?, admin_key.as_deref())?;
        Ok((pool, Arc::new(keys)))
    })
    .await??;
    let ring = keys.clone();
    let verifier = web::Data::new(Verifier::local(move || {
        ring.published_now().map_err(|e| e.to_string())
    }));
    let deliveries_due = Arc::new(tokio::sync::Notify::new());
    let deliverer = webhook_delivery::spawn(
        pool.clone(),
        config.webhooks.clone(),
        deliveries_due.clone(),
    );
    let state = web::Data::new(State {
        pool,
        keys,
        token_ttl,
        webhooks: config.webhooks,
        deliveries_due,
    });
    Ok(server::serve(listener, "registration", move |cfg| {
        cfg.app_data(state.clone()).app_data(verifier.clone());
        api(cfg);
    })?
    .with_background(deliverer))
}
