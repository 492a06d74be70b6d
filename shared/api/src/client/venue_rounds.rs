//! Publishing an event's rounds from a venue (issue 34): the venue's suite reads them whole, and
//! the federation takes them in.

use super::{ApiClient, ClientResult};
use crate::types::*;
use uuid::Uuid;

impl ApiClient {
    /// Every round of the event as pairing keeps it, with its seeds, participants' numbers,
    /// keep-apart pairs and clock logs (the event's staff or the admin): the part `venue publish`
    /// sends.
    pub async fn venue_rounds(&self, event_id: Uuid) -> ClientResult<VenueRounds> {
        self.get(&format!("/v1/events/{event_id}/venue-copy/rounds"))
            .await
    }

    /// Takes a venue's rounds into this suite (the admin, or with the venue's
    /// `Catan-Venue-Signature` of the body's JSON sent through [`ApiClient::with_headers`]):
    /// rounds it lacks are added as if drawn here, the same part again changes nothing, and a
    /// part that differs is refused (409) listing every difference. `dry_run` checks everything
    /// and writes nothing.
    pub async fn take_in_venue_rounds(
        &self,
        rounds: &VenueRounds,
        dry_run: bool,
    ) -> ClientResult<VenueRoundsTaken> {
        let query = if dry_run { "?dry_run=true" } else { "" };
        self.put(
            &format!("/v1/events/{}/venue-copy/rounds{query}", rounds.event_id),
            rounds,
        )
        .await
    }
}
