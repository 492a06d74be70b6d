//! The pairing service's calls: rounds and keep-apart pairs.

use super::{ApiClient, ClientResult};
use crate::types::*;
use uuid::Uuid;

impl ApiClient {
    pub async fn draw_round(&self, event_id: Uuid, body: &DrawRound) -> ClientResult<Round> {
        self.post(&format!("/v1/events/{event_id}/rounds"), body)
            .await
    }

    /// Draws round `number` again from the players entered now, with a new seed (the
    /// director; only while none of its tables has a result).
    pub async fn redraw_round(
        &self,
        event_id: Uuid,
        number: u32,
        body: &DrawRound,
    ) -> ClientResult<Round> {
        self.post(
            &format!("/v1/events/{event_id}/rounds/{number}/redraw"),
            body,
        )
        .await
    }

    /// Swaps two players between tables of round `number` (the director; only while none of
    /// its tables has a result).
    pub async fn swap_players(
        &self,
        event_id: Uuid,
        number: u32,
        body: &SwapPlayers,
    ) -> ClientResult<Round> {
        self.post(&format!("/v1/events/{event_id}/rounds/{number}/swap"), body)
            .await
    }

    /// Sets the event's keep-apart pairs (the director), replacing the earlier ones.
    pub async fn set_keep_apart(
        &self,
        event_id: Uuid,
        body: &KeepApart,
    ) -> ClientResult<KeepApart> {
        self.put(&format!("/v1/events/{event_id}/keep-apart"), body)
            .await
    }

    /// The event's keep-apart pairs.
    pub async fn keep_apart(&self, event_id: Uuid) -> ClientResult<KeepApart> {
        self.get(&format!("/v1/events/{event_id}/keep-apart")).await
    }

    pub async fn round(&self, event_id: Uuid, number: u32) -> ClientResult<Round> {
        self.get(&format!("/v1/events/{event_id}/rounds/{number}"))
            .await
    }

    /// The round's clock now, with the server's time and the director's actions.
    pub async fn round_clock(
        &self,
        event_id: Uuid,
        number: u32,
    ) -> ClientResult<RoundClockReading> {
        self.get(&format!("/v1/events/{event_id}/rounds/{number}/clock"))
            .await
    }

    /// The round's clock now with table `table` alone.
    pub async fn table_clock(
        &self,
        event_id: Uuid,
        number: u32,
        table: u32,
    ) -> ClientResult<RoundClockReading> {
        self.get(&format!(
            "/v1/events/{event_id}/rounds/{number}/clock?table={table}"
        ))
        .await
    }

    /// An action on the round's clock (the director).
    pub async fn change_clock(
        &self,
        event_id: Uuid,
        number: u32,
        change: &ClockChange,
    ) -> ClientResult<RoundClockReading> {
        self.post(
            &format!("/v1/events/{event_id}/rounds/{number}/clock"),
            change,
        )
        .await
    }

    /// Every round of the event (all pages).
    pub async fn rounds(&self, event_id: Uuid) -> ClientResult<Vec<Round>> {
        self.all_pages(&format!("/v1/events/{event_id}/rounds"))
            .await
    }
}
