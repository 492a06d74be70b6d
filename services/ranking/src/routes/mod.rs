//! The ranking service's HTTP surface, one module per resource: standings and placements,
//! readable by anyone.

mod placements;
mod standings;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    standings::register(cfg);
    placements::register(cfg);
}

/// Says in a `Warning` header when ranking's copy of the results may be behind.
fn with_freshness(
    mut response: actix_web::HttpResponseBuilder,
    up_to_date: bool,
) -> actix_web::HttpResponseBuilder {
    if !up_to_date {
        // The copy could not be brought up to date: say so rather than fail the read.
        response.insert_header((
            "Warning",
            "110 - \"results service unreachable; this may be out of date\"",
        ));
    }
    response
}
