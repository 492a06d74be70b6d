//! The common service kit: configuration, problem+json errors, auth, database, telemetry, and the
//! plumbing every service's HTTP server shares.

pub mod auth;
pub mod config;
pub mod db;
pub mod idempotency;
pub mod pagination;
pub mod peer;
pub mod problem;
pub mod ratelimit;
pub mod server;
pub mod telemetry;
pub mod webhooks;

pub use problem::ApiError;
