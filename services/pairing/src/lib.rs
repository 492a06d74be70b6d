//! Pairing service: draws an event's rounds (qualifying rounds, then the semi-finals, then the
//! final) with the domain's pairing engine, and stores each with its seed and the engine's figures.

mod draw;
mod routes;
mod schema;
mod store;
mod swiss;

use catan_api::ApiClient;
use catan_kit::auth::Verifier;
use catan_kit::db::PgPool;
use catan_kit::server::RunningServer;
use catan_kit::{Service, Settings};
use diesel_migrations::embed_migrations;
use std::net::TcpListener;

pub const SERVICE: Service = Service {
    name: "pairing",
    migrations: embed_migrations!("../../migrations/pairing"),
    routes: routes::register,
};

pub(crate) struct State {
    pub pool: PgPool,
    pub registration: ApiClient,
    pub results: ApiClient,
    pub ranking: ApiClient,
}

pub async fn start(settings: Settings, listener: TcpListener) -> anyhow::Result<RunningServer> {
    let pool = SERVICE.database(&settings).await?;
    let verifier = Verifier::of_registration(&settings.peers.registration).await;
    let state = actix_web::web::Data::new(State {
        pool: pool.clone(),
        registration: ApiClient::new(&settings.peers.registration),
        results: ApiClient::new(&settings.peers.results),
        ranking: ApiClient::new(&settings.peers.ranking),
    });
    let relay = catan_kit::webhooks::spawn_relay(
        pool.clone(),
        &settings.peers.registration,
        settings.webhooks.clone(),
    );
    Ok(SERVICE
        .serve(listener, &settings, &pool, move |cfg| {
            cfg.app_data(state.clone()).app_data(verifier.clone());
        })?
        .with_background(relay))
}
