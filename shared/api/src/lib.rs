//! The public v1 contract: request and response types, and a typed client that the services use
//! to call one another, so the contract between services is checked by the compiler.
//!
//! Compiles without the database or the web framework's server side.

pub mod audit;
pub mod client;
pub mod consistency;
pub mod dead_letters;
pub mod openapi;
pub mod problem;
pub mod request_id;
pub mod standings;
pub mod types;
pub mod webhooks;

pub use audit::*;
pub use client::{ApiClient, ClientError, ClientResult, Conditional, RetryPolicy};
pub use consistency::{POSITION_HEADER, POSITION_QUERY, Position, Producer};
pub use dead_letters::*;
pub use problem::{ErrorCode, FieldError, Problem};
pub use types::*;
pub use webhooks::*;
