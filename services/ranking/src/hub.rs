//! The live standings of watched events, for the standings stream.
//!
//! One poller per event and replica (`catan_kit::live`) reads the stored standings every
//! `CATAN_STANDINGS_POLL_MS` (default 1000) while anyone watches, and every watcher gets each new
//! version. The follower keeps what is stored up to date, whatever changed the standings (a
//! result, a correction, a drop in registration).

use actix_web::web::Bytes;
use catan_kit::live::{Hub, Live};
use std::sync::Arc;
use uuid::Uuid;

/// An event's stored standings, as JSON.
#[derive(Debug, Clone)]
pub(crate) struct StandingsJson(pub Arc<String>);

impl Live for StandingsJson {
    type Key = Arc<String>;

    fn key(&self) -> Arc<String> {
        self.0.clone()
    }

    fn event(&self) -> Bytes {
        Bytes::from(format!("event: standings\ndata: {}\n\n", self.0))
    }
}

/// The events being watched, each with its poller's latest standings.
pub(crate) type StandingsHub = Hub<Uuid, StandingsJson>;
