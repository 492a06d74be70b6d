//! Results service: each table's results sheet, validated against the table's seats and the
//! game's rules, recorded with every version kept, and read by the other services as a change feed.

mod drawn_rounds;
mod first_sheets;
mod routes;
mod schema;
mod sheet;
mod store;
mod submission;
mod timing;
mod venue_import;
mod webhook_events;

use catan_kit::server::RunningServer;
use catan_kit::{Service, Settings};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};
use std::net::TcpListener;

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/results");
pub const SERVICE: Service = Service::new("results", || MIGRATIONS, routes::register).with_outbox();

/// What the handlers read: the pool and the other services.
pub(crate) type State = catan_kit::service::ServiceState;

pub async fn start(settings: Settings, listener: TcpListener) -> anyhow::Result<RunningServer> {
    let rounds = actix_web::web::Data::new(drawn_rounds::DrawnRounds::default());
    let (first_sheets, writer) = first_sheets::FirstSheets::new();
    let first_sheets = actix_web::web::Data::new(first_sheets);
    let internal_key = settings.webhooks.internal_key.clone();
    let (server, state) = SERVICE
        .start_with_state(settings, listener, move |cfg| {
            cfg.app_data(rounds.clone()).app_data(first_sheets.clone());
            catan_kit::checkouts::internal_routes(cfg, internal_key.clone());
        })
        .await?;
    writer.start(state.pool.clone());
    Ok(server)
}
