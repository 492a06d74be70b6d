//! The registration service's HTTP surface, one module per resource.

mod api_keys;
pub(crate) mod audit;
mod calendars;
pub(crate) mod dead_letters;
mod entries;
mod events;
mod feed;
mod inbox;
mod players;
mod regions;
mod tokens;
mod webhooks;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    tokens::register(cfg);
    api_keys::register(cfg);
    audit::register(cfg);
    regions::register(cfg);
    players::register(cfg);
    events::register(cfg);
    calendars::register(cfg);
    entries::register(cfg);
    feed::register(cfg);
    webhooks::register(cfg);
    dead_letters::register(cfg);
    inbox::register(cfg);
}
