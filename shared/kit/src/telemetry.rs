//! Logs through `tracing`: `RUST_LOG` filters (default `info`), `LOG_FORMAT=json` for machines.

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber once; later calls (tests start many services) do nothing.
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    let _ = if std::env::var("LOG_FORMAT").is_ok_and(|f| f == "json") {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}
