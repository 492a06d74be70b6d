//! Rounds, their tables and seats.

use super::registration::EventFormat;
use catan_domain::board::BoardMode;
use catan_domain::partner::PartnerSettings;
use catan_domain::results::Stage;
use catan_domain::seating::SeatPosition;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"seed": 424242}))]
pub struct DrawRound {
    /// The seed to draw from (0 to 2^53 - 1); a random one when absent. Stored with the round.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 9007199254740991_i64)]
    pub seed: Option<u64>,
}

/// Pairs of players the director keeps apart (same family or club): never at one table in
/// round 1, later only when no draw avoids it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"pairs": [["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"]]}))]
pub struct KeepApart {
    pub pairs: Vec<[Uuid; 2]>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"position": "N", "entry_id": "00000000-0000-4000-8000-0000000000f1", "player_id": "00000000-0000-4000-8000-000000000001"}))]
pub struct Seat {
    /// N, E, S or W; play order is N, E, S, W.
    pub position: SeatPosition,
    pub entry_id: Uuid,
    pub player_id: Uuid,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Table {
    pub number: u32,
    /// In play order.
    pub seats: Vec<Seat>,
    /// Why this table was formed: the constraints it met or had to break.
    #[schema(value_type = Object)]
    pub explanation: serde_json::Value,
}

/// The pairing engine's figures for the event after this round.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"repeat_meetings": 0, "repeat_cost_squared": 0, "three_player_spread": 1, "keep_apart_broken": 0, "cost": 0}))]
pub struct RoundFigures {
    /// Sum over pairs of players of (meetings − 1), over the whole event so far.
    pub repeat_meetings: u32,
    /// Sum over pairs of (meetings − 1)².
    pub repeat_cost_squared: u32,
    /// Most minus fewest 3-player games among the players.
    pub three_player_spread: u32,
    pub keep_apart_broken: u32,
    /// The objective the engine minimised.
    pub cost: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Round {
    pub event_id: Uuid,
    pub number: u32,
    pub format: EventFormat,
    /// `qualifying`, `semifinal`, `final`, or `swiss` (partner events).
    pub stage: Stage,
    /// The seed the round was drawn from: the same seed and field give the same round.
    pub seed: u64,
    pub drawn_at: DateTime<Utc>,
    pub figures: RoundFigures,
    pub tables: Vec<Table>,
    /// Partner events: the team entries with a bye this round.
    pub byes: Vec<Uuid>,
    /// Which board the tables play (see each table's `board`).
    pub board_mode: BoardMode,
    /// Partner events: the rules the tables play by (target VP, minutes per game, thinking time,
    /// no trading between players).
    pub partner_rules: Option<PartnerSettings>,
}
