//! The registration schema: diesel queries and the rows they read, one module per resource.
//! Handlers decide; these read and write.

pub mod api_keys;
pub mod entries;
pub mod events;
pub mod inbox;
pub mod people;
pub mod pins;
pub mod webhooks;
