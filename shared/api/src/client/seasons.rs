//! The ranking service's season calls, and a player's page.

use super::{ApiClient, ClientResult, Conditional, PAGE};
use crate::types::*;
use reqwest::Method;
use uuid::Uuid;

impl ApiClient {
    /// Creates a season (admin).
    pub async fn create_season(&self, body: &CreateSeason) -> ClientResult<Season> {
        self.post("/v1/seasons", body).await
    }

    pub async fn season(&self, season_id: Uuid) -> ClientResult<Season> {
        self.get(&format!("/v1/seasons/{season_id}")).await
    }

    /// Every season, or a region's, read page by page.
    pub async fn seasons(&self, region_id: Option<Uuid>) -> ClientResult<Vec<Season>> {
        let region = region_id.map_or_else(String::new, |r| format!("&region_id={r}"));
        let mut seasons = Vec::new();
        loop {
            let page: Vec<Season> = self
                .get(&format!(
                    "/v1/seasons?limit={PAGE}&offset={}{region}",
                    seasons.len()
                ))
                .await?;
            let full = page.len() == PAGE;
            seasons.extend(page);
            if !full {
                return Ok(seasons);
            }
        }
    }

    /// Joins an event to a season (admin); joining again changes nothing.
    pub async fn join_season(&self, season_id: Uuid, event_id: Uuid) -> ClientResult<Season> {
        self.call::<(), Season>(
            Method::PUT,
            &format!("/v1/seasons/{season_id}/events/{event_id}"),
            None,
        )
        .await
    }

    /// Takes an event out of a season (admin).
    pub async fn leave_season(&self, season_id: Uuid, event_id: Uuid) -> ClientResult<Season> {
        self.call::<(), Season>(
            Method::DELETE,
            &format!("/v1/seasons/{season_id}/events/{event_id}"),
            None,
        )
        .await
    }

    /// A page of a season's table (`limit` 1 to 1000), of a region's players if given, each row
    /// with its per-event results.
    pub async fn season_standings(
        &self,
        season_id: Uuid,
        region_id: Option<Uuid>,
        limit: u32,
        offset: u32,
    ) -> ClientResult<SeasonStandings> {
        let region = region_id.map_or_else(String::new, |r| format!("&region_id={r}"));
        self.get(&format!(
            "/v1/seasons/{season_id}/standings?results=true&limit={limit}&offset={offset}{region}"
        ))
        .await
    }

    /// A page of a season's table as served by default: without each row's per-event results.
    pub async fn season_standings_summary(
        &self,
        season_id: Uuid,
        limit: u32,
        offset: u32,
    ) -> ClientResult<SeasonStandings> {
        self.get(&format!(
            "/v1/seasons/{season_id}/standings?limit={limit}&offset={offset}"
        ))
        .await
    }

    /// [`Self::season_standings_summary`] of a region's players if given (their whole-season
    /// ranks kept), unless the version whose `ETag` is `etag` is still the current one.
    pub async fn season_standings_summary_unless_unchanged(
        &self,
        season_id: Uuid,
        region_id: Option<Uuid>,
        (limit, offset): (u32, u32),
        etag: Option<&str>,
    ) -> ClientResult<Conditional<SeasonStandings>> {
        let region = region_id.map_or_else(String::new, |r| format!("&region_id={r}"));
        self.get_unless_unchanged(
            &format!("/v1/seasons/{season_id}/standings?limit={limit}&offset={offset}{region}"),
            etag,
        )
        .await
    }

    /// The season's qualified players.
    pub async fn season_qualified(&self, season_id: Uuid) -> ClientResult<Vec<QualifiedPlayer>> {
        self.get(&format!("/v1/seasons/{season_id}/qualified"))
            .await
    }

    /// Declines a player's place (the admin, or the player with his own token).
    pub async fn decline_place(
        &self,
        season_id: Uuid,
        player_id: Uuid,
    ) -> ClientResult<SeasonDecline> {
        self.call::<(), SeasonDecline>(
            Method::DELETE,
            &format!("/v1/seasons/{season_id}/qualified/{player_id}"),
            None,
        )
        .await
    }

    /// A player's page.
    pub async fn player_profile(&self, player_id: Uuid) -> ClientResult<PlayerProfile> {
        self.get(&format!("/v1/players/{player_id}/profile")).await
    }
}
