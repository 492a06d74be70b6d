//! The results service's HTTP surface, one module per resource.

mod changes;
mod confirmations;
mod feed;
mod round_results;
mod table_results;
mod venue_results;
mod void;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    table_results::register(cfg);
    round_results::register(cfg);
    changes::register(cfg);
    confirmations::register(cfg);
    feed::register(cfg);
    venue_results::register(cfg);
    void::register(cfg);
}
