//! Results service: each table's results sheet, validated against the table's seats and the
//! game's rules, recorded with every version kept, and read by the other services as a change feed.

mod routes;
mod schema;
mod sheet;
mod store;
mod webhook_events;

use catan_api::ApiClient;
use catan_kit::auth::Verifier;
use catan_kit::db::PgPool;
use catan_kit::server::RunningServer;
use catan_kit::{Service, Settings};
use diesel_migrations::embed_migrations;
use std::net::TcpListener;

pub const SERVICE: Service = Service {
    name: "results",
    migrations: embed_migrations!("../../migrations/results"),
    routes: routes::register,
};

pub(crate) struct State {
    pub pool: PgPool,
    pub registration: ApiClient,
    pub pairing: ApiClient,
}

pub async fn start(settings: Settings, listener: TcpListener) -> anyhow::Result<RunningServer> {
    let pool = SERVICE.database(&settings).await?;
    let verifier = Verifier::of_registration(&settings.peers.registration).await;
    let state = actix_web::web::Data::new(State {
        pool: pool.clone(),
        registration: ApiClient::new(&settings.peers.registration),
        pairing: ApiClient::new(&settings.peers.pairing),
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
