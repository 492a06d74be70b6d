//! Publishing an event's results from a venue (issue 34): the venue's suite reads them whole,
//! and the federation takes them in.

use super::{ApiClient, ClientResult};
use crate::types::*;
use uuid::Uuid;

impl ApiClient {
    /// Every table's results of the event with their whole history (the event's staff or the
    /// admin): the part `venue publish` sends.
    pub async fn venue_results(&self, event_id: Uuid) -> ClientResult<VenueResults> {
        self.get(&format!("/v1/events/{event_id}/venue-copy/results"))
            .await
    }

    /// Takes a venue's results into this suite (the admin, or with the venue's
    /// `Catan-Venue-Signature` of the body's JSON sent through [`ApiClient::with_headers`]):
    /// what it lacks is added, the same part again changes nothing, and a part that differs is
    /// refused (409) listing every difference. `dry_run` checks everything and writes nothing.
    pub async fn take_in_venue_results(
        &self,
        results: &VenueResults,
        dry_run: bool,
    ) -> ClientResult<VenueResultsTaken> {
        let query = if dry_run { "?dry_run=true" } else { "" };
        self.put(
            &format!("/v1/events/{}/venue-copy/results{query}", results.event_id),
            results,
        )
        .await
    }
}
