//! Ranking service: the federation's read model. A follower copies the producers' change feeds
//! (registration's events, entries and players; every event's results) into ranking's own tables
//! and computes each touched event's standings and placements once, and each touched season's
//! table and qualified players; reads serve what is stored and call no other service, so they
//! stay fast and keep answering when a producer is down.

mod follow;
mod hub;
mod pending;
mod players;
mod profile;
mod progress;
mod ratings;
mod routes;
mod schema;
mod seasons;
mod served_cache;
mod store;
mod surge;

use catan_kit::server::RunningServer;
use catan_kit::{Service, Settings};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};
use std::net::TcpListener;

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/ranking");
pub const SERVICE: Service = Service::new("ranking", || MIGRATIONS, routes::register).with_outbox();

/// What the handlers read: the pool and the other services.
pub(crate) type State = catan_kit::service::ServiceState;

pub async fn start(settings: Settings, listener: TcpListener) -> anyhow::Result<RunningServer> {
    let (hub, close_streams) = hub::StandingsHub::new(settings.standings_poll);
    let hub = actix_web::web::Data::new(hub);
    let views = actix_web::web::Data::new(served_cache::ServedCache::default());
    let progress = actix_web::web::Data::new(progress::Progress::new(settings.consistency_wait));
    let follow_interval = settings.follow_interval;
    let handlers_progress = progress.clone();
    let (server, state) = SERVICE
        .start_with_state(settings, listener, move |cfg| {
            cfg.app_data(hub.clone())
                .app_data(views.clone())
                .app_data(handlers_progress.clone());
        })
        .await?;
    if let Some(metrics) = server.metrics() {
        follow::watch_lag(metrics, state.pool.clone())?;
    }
    let seasons_due = std::sync::Arc::new(tokio::sync::Notify::new());
    let surge = std::sync::Arc::new(std::sync::Mutex::new(surge::Surge::default()));
    let follower = tokio::spawn(follow::follow(
        state.clone(),
        follow_interval,
        seasons_due.clone(),
        surge.clone(),
        progress.clone(),
    ));
    let seasons = tokio::spawn(follow::refresh_seasons(
        state.clone(),
        follow_interval,
        seasons_due,
        progress.clone(),
    ));
    let ratings = tokio::spawn(follow::replay_ratings(
        state,
        follow_interval,
        surge,
        progress,
    ));
    Ok(server
        .with_background(close_streams)
        .with_background(follower)
        .with_background(seasons)
        .with_background(ratings))
}
