//! The ranking service's calls: standings and placements.

use super::{ApiClient, ClientError};
use crate::types::*;
use uuid::Uuid;

impl ApiClient {
    pub async fn standings(&self, event_id: Uuid) -> Result<Standings, ClientError> {
        self.get(&format!("/v1/events/{event_id}/standings")).await
    }

    pub async fn partner_standings(&self, event_id: Uuid) -> Result<PartnerStandings, ClientError> {
        self.get(&format!("/v1/events/{event_id}/standings")).await
    }

    /// The standings of an event of either format.
    pub async fn any_standings(&self, event_id: Uuid) -> Result<AnyStandings, ClientError> {
        self.get(&format!("/v1/events/{event_id}/standings")).await
    }

    pub async fn placements(&self, event_id: Uuid) -> Result<Placements, ClientError> {
        self.get(&format!("/v1/events/{event_id}/placements")).await
    }
}
