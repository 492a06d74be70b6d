//! Request and response bodies of the v1 API.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

pub use catan_domain::playoffs::SmallFieldRule;
pub use catan_domain::results::{OutcomeKind, Stage};
pub use catan_domain::seating::SeatPosition;

// ---------------------------------------------------------------- auth and keys

/// What an API key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The federation: everything.
    Admin,
    /// A tournament director: runs the events the key names.
    Director,
    /// A table app: posts results for the events the key names.
    Scorer,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Director => "director",
            Role::Scorer => "scorer",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        [Role::Admin, Role::Director, Role::Scorer]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TokenRequest {
    pub api_key: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TokenResponse {
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// Seconds until the token expires.
    pub expires_in: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CreateApiKey {
    pub name: String,
    pub role: Role,
    /// Required for director and scorer keys: the events the key may act on. Not allowed for admin keys.
    #[serde(default)]
    pub event_ids: Option<Vec<Uuid>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ApiKeyCreated {
    pub id: Uuid,
    pub name: String,
    pub role: Role,
    pub event_ids: Option<Vec<Uuid>>,
    /// The secret, shown once: store it now.
    pub api_key: String,
}

// ---------------------------------------------------------------- registration

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CreateRegion {
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Region {
    pub id: Uuid,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CreatePlayer {
    pub name: String,
    #[serde(default)]
    pub region_id: Option<Uuid>,
}

/// A player: one identity across every event of the federation.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Player {
    pub id: Uuid,
    pub name: String,
    pub region_id: Option<Uuid>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventFormat {
    /// Individual tournament: tables of 4 (and 3), qualifying rounds, semi-finals, final.
    Classic,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CreateEvent {
    pub name: String,
    #[serde(default)]
    pub region_id: Option<Uuid>,
    pub format: EventFormat,
    /// Qualifying rounds before the playoff; 3 when absent (1 to 15).
    #[serde(default)]
    pub qualifying_rounds: Option<i64>,
    /// The playoff of a field smaller than 16: `final_of_top4` (default) or `no_playoff`.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub small_field_playoff: Option<SmallFieldRule>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Event {
    pub id: Uuid,
    pub name: String,
    pub region_id: Option<Uuid>,
    pub format: EventFormat,
    pub qualifying_rounds: u32,
    #[schema(value_type = String)]
    pub small_field_playoff: SmallFieldRule,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntryStatus {
    /// Seated in the next round drawn.
    Active,
    /// Left the event; keeps the games played.
    Dropped,
    /// Excluded by the tournament director; keeps the games played.
    Excluded,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CreateEntry {
    pub player_id: Uuid,
}

/// A player's entry into one event.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Entry {
    pub id: Uuid,
    pub event_id: Uuid,
    pub player_id: Uuid,
    /// The player's name.
    pub name: String,
    pub status: EntryStatus,
    /// Why the entry was dropped or excluded.
    pub status_reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DropEntry {
    pub reason: String,
    /// True when the tournament director excludes the player (rather than the player leaving).
    #[serde(default)]
    pub exclude: bool,
}

// ---------------------------------------------------------------- pairing

#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct DrawRound {
    /// The seed to draw from (0 to 2^53 - 1); a random one when absent. Stored with the round.
    #[serde(default)]
    pub seed: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Seat {
    /// N, E, S or W; play order is N, E, S, W.
    #[schema(value_type = String)]
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
    #[schema(value_type = String)]
    pub stage: Stage,
    /// The seed the round was drawn from: the same seed and field give the same round.
    pub seed: u64,
    pub drawn_at: DateTime<Utc>,
    pub figures: RoundFigures,
    pub tables: Vec<Table>,
}

// ---------------------------------------------------------------- results

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BreakdownInput {
    pub settlements: i64,
    pub cities: i64,
    pub vp_cards: i64,
    pub longest_road: bool,
    pub largest_army: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ScoreInput {
    pub player_id: Uuid,
    /// The victory points the player actually had (2 to 22).
    pub vp: i64,
    #[serde(default)]
    pub breakdown: Option<BreakdownInput>,
}

/// A table's results sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SubmitResult {
    #[schema(value_type = String)]
    pub outcome: OutcomeKind,
    /// Required when `outcome` is `won`; absent at a time limit.
    #[serde(default)]
    pub winner_player_id: Option<Uuid>,
    pub scores: Vec<ScoreInput>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ScoreRecorded {
    pub player_id: Uuid,
    pub vp: u8,
    /// What the game credits: the winner 10, everyone else at most 9.
    pub credited_vp: u8,
    pub breakdown: Option<BreakdownInput>,
}

/// A table's recorded result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TableResult {
    pub event_id: Uuid,
    pub round: u32,
    pub table: u32,
    #[schema(value_type = String)]
    pub stage: Stage,
    /// 1 for the first result; each correction by the tournament director adds one.
    pub version: u32,
    /// Position in the event's change feed.
    pub seq: i64,
    /// How many tables the round has.
    pub round_tables: u32,
    #[schema(value_type = String)]
    pub outcome: OutcomeKind,
    pub winner_player_id: Option<Uuid>,
    pub scores: Vec<ScoreRecorded>,
    pub recorded_at: DateTime<Utc>,
    /// The API key that recorded this version.
    pub recorded_by: Uuid,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ResultList {
    pub items: Vec<TableResult>,
}

// ---------------------------------------------------------------- ranking

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct StandingRow {
    pub rank: u32,
    pub entry_id: Uuid,
    pub player_id: Uuid,
    pub name: String,
    pub status: EntryStatus,
    /// Credited victory points over the qualifying rounds.
    pub vp: u32,
    /// Sum of the player's shares of his tables' VP, in percent, two decimals (halves up).
    pub vp_share: String,
    /// The same, exact, as a fraction `numerator/denominator`: what ties are decided on.
    pub vp_share_exact: String,
    pub games: u32,
    pub wins: u32,
    pub three_player_games: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Standings {
    pub event_id: Uuid,
    /// The last qualifying round whose every table has a result (0 before any).
    pub after_round: u32,
    /// Qualifying results counted.
    pub results_counted: u32,
    pub rows: Vec<StandingRow>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PlacementRow {
    pub place: u32,
    pub entry_id: Uuid,
    pub player_id: Uuid,
    pub name: String,
    /// The furthest stage the player reached.
    #[schema(value_type = String)]
    pub stage: Stage,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Placements {
    pub event_id: Uuid,
    pub rows: Vec<PlacementRow>,
}

impl TableResult {
    /// The result as the rules see it.
    pub fn to_domain(&self) -> catan_domain::results::TableResult {
        catan_domain::results::TableResult {
            winner: self.winner_player_id,
            scores: self
                .scores
                .iter()
                .map(|s| catan_domain::results::Score {
                    player: s.player_id,
                    vp: s.vp,
                    credited_vp: s.credited_vp,
                    breakdown: s
                        .breakdown
                        .as_ref()
                        .map(|b| catan_domain::results::Breakdown {
                            settlements: b.settlements as u8,
                            cities: b.cities as u8,
                            vp_cards: b.vp_cards as u8,
                            longest_road: b.longest_road,
                            largest_army: b.largest_army,
                        }),
                })
                .collect(),
        }
    }
}
