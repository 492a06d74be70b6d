//! Pairing service: draws an event's rounds (qualifying rounds, then the semi-finals, then the
//! final) with the domain's pairing engine, and stores each with its seed and the engine's figures.

mod clock;
mod draw;
mod record;
mod routes;
mod schema;
mod store;
mod swiss;
mod venue_store;

use catan_kit::server::RunningServer;
use catan_kit::{Service, Settings};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};
use std::net::TcpListener;

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/pairing");
pub const SERVICE: Service = Service::new("pairing", || MIGRATIONS, routes::register).with_outbox();

/// What the handlers read: the pool and the other services.
pub(crate) type State = catan_kit::service::ServiceState;

pub async fn start(settings: Settings, listener: TcpListener) -> anyhow::Result<RunningServer> {
    let clock_settings = clock::ClockSettings {
        ending_lead: settings.round_ending_notice,
    };
    let handlers_clock = actix_web::web::Data::new(clock_settings);
    let (hub, close_streams) = clock::hub::ClockHub::new(clock::hub::POLL);
    let hub = actix_web::web::Data::new(hub);
    let internal_key = settings.webhooks.internal_key.clone();
    let (server, state) = SERVICE
        .start_with_state(settings, listener, move |cfg| {
            cfg.app_data(handlers_clock.clone()).app_data(hub.clone());
            catan_kit::checkouts::internal_routes(cfg, internal_key.clone());
        })
        .await?;
    let notices = tokio::spawn(clock::notices::tick(state, clock_settings.ending_lead));
    Ok(server
        .with_background(close_streams)
        .with_background(notices))
}
