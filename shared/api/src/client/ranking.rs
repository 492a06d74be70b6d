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

    /// The ratings leaderboard's first page, of a region or of everyone.
    pub async fn ratings_leaderboard(
        &self,
        region_id: Option<Uuid>,
        min_games: Option<u32>,
    ) -> ClientResult<RatingsLeaderboard> {
        let mut query = vec![];
        if let Some(region) = region_id {
            query.push(format!("region_id={region}"));
        }
        if let Some(min) = min_games {
            query.push(format!("min_games={min}"));
        }
        self.get(&format!("/v1/ratings?{}", query.join("&"))).await
    }

    /// A player's rating history.
    pub async fn player_ratings(&self, player_id: Uuid) -> ClientResult<PlayerRatings> {
        self.get(&format!("/v1/players/{player_id}/ratings")).await
    }

    /// Each player's chance of winning a table of them.
    pub async fn predict(&self, player_ids: &[Uuid]) -> ClientResult<Prediction> {
        let body = PredictionRequest {
            player_ids: player_ids.to_vec(),
        };
        self.post("/v1/predictions", &body).await
    }

    /// The games two players shared.
    pub async fn head_to_head(
        &self,
        player_id: Uuid,
        opponent_id: Uuid,
    ) -> ClientResult<HeadToHead> {
        self.get(&format!(
            "/v1/players/{player_id}/head-to-head/{opponent_id}"
        ))
        .await
    }
}
