//! The registration service's HTTP surface, one module per resource.

mod api_keys;
pub(crate) mod audit;
mod calendars;
mod checkouts;
pub(crate) mod dead_letters;
mod duplicates;
mod entries;
mod events;
mod feed;
mod inbox;
mod pins;
mod players;
mod regions;
mod tokens;
mod venue_copy;
mod webhooks;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    tokens::register(cfg);
    api_keys::register(cfg);
    audit::register(cfg);
    regions::register(cfg);
    // Before the players': `/v1/players/merge-candidates` is no `/v1/players/{player_id}`.
    duplicates::register(cfg);
    players::register(cfg);
    events::register(cfg);
    checkouts::register(cfg);
    calendars::register(cfg);
    entries::register(cfg);
    pins::register(cfg);
    feed::register(cfg);
    webhooks::register(cfg);
    dead_letters::register(cfg);
    inbox::register(cfg);
    venue_copy::register(cfg);
}
