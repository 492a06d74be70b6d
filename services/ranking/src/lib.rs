//! Ranking service: standings with exact tie-breaks and the final placements, computed from its
//! own copy of the results, which it brings up to date from the results service's change feed on
//! every read: a result posted while ranking was down is read when it is back.

mod feed;
mod hub;
mod placements;
mod routes;
mod schema;
mod standings;
mod view;

use catan_kit::server::RunningServer;
use catan_kit::{Service, Settings};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};
use std::net::TcpListener;

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/ranking");
pub const SERVICE: Service = Service::new("ranking", || MIGRATIONS, routes::register);

/// What the handlers read: the pool and the other services.
pub(crate) type State = catan_kit::service::ServiceState;

pub async fn start(settings: Settings, listener: TcpListener) -> anyhow::Result<RunningServer> {
    let (hub, close_streams) = hub::StandingsHub::new(settings.standings_poll);
    let hub = actix_web::web::Data::new(hub);
    let server = SERVICE
        .start(settings, listener, move |cfg| {
            cfg.app_data(hub.clone());
        })
        .await?;
    Ok(server.with_background(close_streams))
}
