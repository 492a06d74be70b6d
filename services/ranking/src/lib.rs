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

use catan_api::ApiClient;
use catan_kit::auth::Verifier;
use catan_kit::db::PgPool;
use catan_kit::server::RunningServer;
use catan_kit::{Service, Settings};
use diesel_migrations::embed_migrations;
use std::net::TcpListener;

pub const SERVICE: Service = Service {
    name: "ranking",
    migrations: embed_migrations!("../../migrations/ranking"),
    routes: routes::register,
};

pub(crate) struct State {
    pub pool: PgPool,
    pub registration: ApiClient,
    pub pairing: ApiClient,
    pub results: ApiClient,
}

pub async fn start(settings: Settings, listener: TcpListener) -> anyhow::Result<RunningServer> {
    let pool = SERVICE.database(&settings).await?;
    let verifier = Verifier::of_registration(&settings.peers.registration).await;
    let state = actix_web::web::Data::new(State {
        pool: pool.clone(),
        registration: ApiClient::new(&settings.peers.registration),
        pairing: ApiClient::new(&settings.peers.pairing),
        results: ApiClient::new(&settings.peers.results),
    });
    let (hub, close_streams) = hub::StandingsHub::new(settings.standings_poll);
    let hub = actix_web::web::Data::new(hub);
    Ok(SERVICE
        .serve(listener, &settings, &pool, move |cfg| {
            cfg.app_data(state.clone())
                .app_data(verifier.clone())
                .app_data(hub.clone());
        })?
        .with_background(close_streams))
}
