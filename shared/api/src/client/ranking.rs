//! The ranking service's calls: standings and placements.

use super::{ApiClient, ClientResult};
use crate::types::*;
use uuid::Uuid;

impl ApiClient {
    pub async fn standings(&self, event_id: Uuid) -> ClientResult<Standings> {
        self.get(&format!("/v1/events/{event_id}/standings")).await
    }

    pub async fn partner_standings(&self, event_id: Uuid) -> ClientResult<PartnerStandings> {
        self.get(&format!("/v1/events/{event_id}/standings")).await
    }

    /// The standings of an event of either format.
    pub async fn any_standings(&self, event_id: Uuid) -> ClientResult<AnyStandings> {
        self.get(&format!("/v1/events/{event_id}/standings")).await
    }

    pub async fn placements(&self, event_id: Uuid) -> ClientResult<Placements> {
        self.get(&format!("/v1/events/{event_id}/placements")).await
    }

    /// How far ranking's read model has read each producer's feed.
    pub async fn read_model_state(&self) -> ClientResult<ReadModelState> {
        self.get("/v1/ranking/feeds").await
    }
}
