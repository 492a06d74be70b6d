//! The calls of `catan-suite venue pull` (issue 34) besides the checkout: the region's players,
//! and taking a venue's copy of an event into a suite.

use super::{ApiClient, ClientResult, PAGE};
use crate::types::*;
use uuid::Uuid;

impl ApiClient {
    /// Every player of the region (merged ones left out: their survivors are there), all pages.
    pub async fn region_players(&self, region_id: Uuid) -> ClientResult<Vec<Player>> {
        let mut players = Vec::new();
        loop {
            let page: Vec<Player> = self
                .get(&format!(
                    "/v1/players?region_id={region_id}&limit={PAGE}&offset={}",
                    players.len()
                ))
                .await?;
            let full = page.len() == PAGE;
            players.extend(page);
            if !full {
                return Ok(players);
            }
        }
    }

    /// Takes `copy` into this suite under its ids (the admin, or a client whose headers carry
    /// the checkout's signature of its body): identical records change nothing, and a copy that
    /// differs is refused (409) listing every difference; with `dry_run`, only checks it.
    pub async fn take_in_venue_copy(
        &self,
        copy: &VenueCopy,
        dry_run: bool,
    ) -> ClientResult<VenueCopyTaken> {
        let query = if dry_run { "?dry_run=true" } else { "" };
        self.put(
            &format!("/v1/events/{}/venue-copy{query}", copy.event.id),
            copy,
        )
        .await
    }
}
