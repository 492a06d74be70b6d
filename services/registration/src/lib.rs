//! Registration service: regions, players (one identity across events), events, entries, drops
//! and exclusions, API keys, and the access tokens every service accepts.

mod access;
mod admin_key;
mod checkout_peers;
mod keys;
mod routes;
mod schema;
mod store;
mod validate;
mod validate_copy;
mod webhook_delivery;

use actix_web::web;
use catan_kit::auth::Verifier;
use catan_kit::db::PgPool;
use catan_kit::server::RunningServer;
use catan_kit::settings::{ExposeSecret, WebhookSettings};
use catan_kit::{Service, Settings};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/registration");
pub const SERVICE: Service = Service::new("registration", || MIGRATIONS, routes::register);

pub(crate) struct State {
    pub pool: PgPool,
    pub keys: Arc<keys::KeyRing>,
    pub token_ttl: Duration,
    /// The key PIN digests are made with.
    pub pin_key: catan_kit::pin_key::PinKey,
    pub webhooks: WebhookSettings,
    /// Wakes the webhook deliverer when new deliveries are stored.
    pub deliveries_due: Arc<tokio::sync::Notify>,
    /// Ranking, which owns the seasons an event search may name.
    pub ranking: catan_api::ApiClient,
    /// Pairing, asked which rounds were drawn when an entry is reinstated.
    pub pairing: catan_api::ApiClient,
    /// The services with an outbox, asked for their dead letters.
    pub outboxes: Vec<routes::dead_letters::OutboxPeer>,
    /// The other services, asked for their audit records.
    pub audit_peers: Vec<routes::audit::AuditPeer>,
    /// Pairing and results, told of checkouts to venues; `None` without the internal key.
    pub checkout_peers: Option<Vec<catan_api::ApiClient>>,
    /// `CATAN_PUBLIC_URL`: where the links of the calendar feeds lead; unset, the request's.
    pub public_url: Option<catan_kit::settings::PublicUrl>,
}

/// Connects, migrates, makes sure the signing key and the admin key exist, and serves on `listener`.
pub async fn start(settings: Settings, listener: TcpListener) -> anyhow::Result<RunningServer> {
    let pool = SERVICE.database(&settings).await?;
    let purge = catan_kit::idempotency::spawn_purge(pool.clone());
    let keys = open_keys(&pool, &settings).await?;
    let pin_key = open_pin_key(&pool, &settings).await?;
    let ring = keys.clone();
    let revoked_pool = pool.clone();
    let token_ttl = settings.tokens.ttl;
    let verifier = web::Data::new(
        Verifier::local(move || ring.published_now().map_err(|e| e.to_string())).with_revoked(
            move || {
                let since = chrono::Utc::now()
                    - chrono::Duration::from_std(token_ttl).unwrap_or(chrono::Duration::hours(1))
                    - chrono::Duration::minutes(5);
                let mut conn = revoked_pool.get().map_err(|e| e.to_string())?;
                store::api_keys::revoked_since(&mut conn, since).map_err(|e| e.to_string())
            },
        ),
    );
    let http = webhook_delivery::client(&settings.webhooks)?;
    let deliveries_due = Arc::new(tokio::sync::Notify::new());
    let state = web::Data::new(State {
        pool: pool.clone(),
        keys,
        token_ttl: settings.tokens.ttl,
        pin_key,
        webhooks: settings.webhooks.clone(),
        deliveries_due: deliveries_due.clone(),
        ranking: catan_api::ApiClient::new(&settings.peers.ranking),
        pairing: catan_api::ApiClient::new(&settings.peers.pairing),
        outboxes: routes::dead_letters::outbox_peers(&settings),
        audit_peers: routes::audit::audit_peers(&settings),
        checkout_peers: checkout_peers::of(&settings),
        public_url: settings.public_url.clone(),
    });
    let server = SERVICE.serve(listener, &settings, &pool, move |cfg| {
        cfg.app_data(state.clone()).app_data(verifier.clone());
    })?;
    let counted = match server.metrics() {
        Some(metrics) => Some(metrics.webhook_deliveries()?),
        None => None,
    };
    let deliverer = webhook_delivery::spawn(
        pool,
        settings.webhooks.clone(),
        http,
        deliveries_due,
        counted,
    );
    Ok(server.with_background(deliverer).with_background(purge))
}

/// The key PIN digests are made with: `CATAN_PIN_KEY`, or the one kept in the database.
async fn open_pin_key(
    pool: &PgPool,
    settings: &Settings,
) -> anyhow::Result<catan_kit::pin_key::PinKey> {
    let pool = pool.clone();
    let configured = settings.tokens.pin_key.clone();
    tokio::task::spawn_blocking(move || keys::open_pin_key(&mut *pool.get()?, configured.as_ref()))
        .await?
}

/// The token signing keys (a first one made if there is none), after making sure an admin key
/// exists: `CATAN_ADMIN_KEY`, or one generated and printed once.
async fn open_keys(pool: &PgPool, settings: &Settings) -> anyhow::Result<Arc<keys::KeyRing>> {
    let pool = pool.clone();
    let token_ttl = settings.tokens.ttl;
    let admin_key = settings.tokens.admin_key.clone();
    tokio::task::spawn_blocking(move || {
        if let Some(configured) = &admin_key {
            catan_kit::settings::check_admin_key(configured.expose_secret())?;
            for id in admin_key::revoke_replaced(&mut *pool.get()?, configured.expose_secret())? {
                tracing::info!(key_id = %id, "the admin key configured before is revoked");
            }
        }
        let keys = keys::KeyRing::open(pool.clone(), token_ttl)?;
        keys::ensure_admin_key(
            &mut *pool.get()?,
            admin_key.as_ref().map(|key| key.expose_secret()),
        )?;
        Ok(Arc::new(keys))
    })
    .await?
}
