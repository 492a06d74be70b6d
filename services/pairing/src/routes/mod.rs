//! The pairing service's HTTP surface, one module per resource.

mod boards;
mod clock;
mod clock_stream;
mod keep_apart;
mod round_changes;
mod rounds;
mod venue_rounds;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    rounds::register(cfg);
    round_changes::register(cfg);
    boards::register(cfg);
    keep_apart::register(cfg);
    clock::register(cfg);
    clock_stream::register(cfg);
    venue_rounds::register(cfg);
}

pub(crate) use clock::not_drawn;
