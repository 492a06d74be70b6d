//! The common service kit: settings, problem+json errors, auth, database, telemetry, idempotent
//! writes, and the skeleton every service's HTTP server is built on.

pub mod audit;
pub mod auth;
pub mod batch;
pub mod checkouts;
pub mod client;
pub mod conditional;
pub mod cors;
pub mod db;
pub mod feed;
pub mod headers;
pub mod idempotency;
pub mod live;
pub mod local_app;
pub mod metrics;
pub mod optional_body;
pub mod pagination;
pub mod path;
pub mod peer;
pub mod pin_key;
pub mod player_token;
pub mod prepared;
pub mod problem;
pub mod ratelimit;
mod schema;
pub mod server;
pub mod service;
pub mod settings;
pub mod telemetry;
pub mod venue_signature;
pub mod venue_signed;
pub mod webhooks;

/// mimalloc for every process built on the kit: a request allocates and frees many small objects
/// (JSON, headers, rows), for which glibc's malloc cost a tenth of the suite's CPU under load.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Turns transparent huge pages off for this process (and the processes it starts); call it
/// first thing in `main`. After a quiet spell the allocator gives its memory back to the kernel,
/// and in the burst that follows (every table posting at the end of a round) each first touch of
/// a huge page had the kernel zero 2 MiB on the request's path: 7 % of the suite's CPU while
/// results poured in. Small pages are zeroed only as they are used.
pub fn no_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    if let Err(e) = nix::sys::prctl::set_thp_disable(true) {
        tracing::debug!(error = %e, "transparent huge pages stay on");
    }
}

pub use idempotency::IdempotentWrite;
pub use problem::ApiError;
pub use service::Service;
pub use settings::Settings;
