//! Request and response bodies of the v1 API.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

pub use catan_domain::board::BoardMode;
pub use catan_domain::partner::{GameResult, PartnerSettings, TimeLimitRule};
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
    /// A player signed in with his PIN for one event (no API key): confirms or disputes the
    /// results of his tables.
    Player,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Player => "player",
            Role::Director => "director",
            Role::Scorer => "scorer",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        [Role::Admin, Role::Director, Role::Scorer, Role::Player]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"api_key": "ck_9Qz4w3WZKc1b2m8e5Jt0aVxY7u6pLr2sNdHfGkQbXyE"}))]
pub struct TokenRequest {
    pub api_key: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"access_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjlqRTQzSTcxIn0.eyJzdWIiOiIuLi4ifQ.c2ln", "token_type": "Bearer", "expires_in": 3600}))]
pub struct TokenResponse {
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// Seconds until the token expires.
    pub expires_in: u64,
}

/// A player signs in for one event with the PIN he was given when entered.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"event_id": "00000000-0000-4000-8000-0000000000e1", "player_id": "00000000-0000-4000-8000-000000000001", "pin": "042917"}))]
pub struct PlayerTokenRequest {
    pub event_id: Uuid,
    pub player_id: Uuid,
    pub pin: String,
}

/// The role of an API key: any role but `player` (players sign in with their PIN).
// The schema of `CreateApiKey.role`, which is a `Role` the handler checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeyRole {
    Admin,
    Director,
    Scorer,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"name": "Table app, hall B", "role": "scorer", "event_ids": ["00000000-0000-4000-8000-0000000000e1"]}))]
pub struct CreateApiKey {
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    #[schema(value_type = KeyRole)]
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
#[schema(example = json!({"name": "Catalonia"}))]
pub struct CreateRegion {
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "00000000-0000-4000-8000-0000000000a1", "name": "Catalonia"}))]
pub struct Region {
    pub id: Uuid,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"name": "Ada Lovelace", "region_id": "00000000-0000-4000-8000-0000000000a1"}))]
pub struct CreatePlayer {
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    #[serde(default)]
    pub region_id: Option<Uuid>,
}

/// A player: one identity across every event of the federation.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "00000000-0000-4000-8000-000000000001", "name": "Ada Lovelace", "region_id": "00000000-0000-4000-8000-0000000000a1", "created_at": "2026-03-14T09:30:00Z"}))]
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
    /// Teams of two, two teams a table, Swiss rounds.
    Partner,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"name": "Spring open", "format": "classic", "region_id": "00000000-0000-4000-8000-0000000000a1", "qualifying_rounds": 3}))]
pub struct CreateEvent {
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    #[serde(default)]
    pub region_id: Option<Uuid>,
    pub format: EventFormat,
    /// Qualifying rounds before the playoff; 3 when absent (1 to 15).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 15)]
    pub qualifying_rounds: Option<i64>,
    /// The playoff of a field smaller than 16: `final_of_top4` (default) or `no_playoff`.
    #[serde(default)]
    pub small_field_playoff: Option<SmallFieldRule>,
    /// `each_table` (default): every table its own board; `same_for_round`: every table of a
    /// round plays the same board (duplicate play).
    #[serde(default)]
    pub board_mode: Option<BoardMode>,
    /// Partner events: Swiss rounds (default 4).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 15)]
    pub swiss_rounds: Option<i64>,
    /// Partner events: the VP a team's two players need together to win (default 20).
    #[serde(default)]
    pub team_target_vp: Option<i64>,
    /// Partner events: minutes a game (default 60).
    #[serde(default)]
    pub minutes_per_game: Option<i64>,
    /// Partner events: thinking time per player per turn, in seconds (default 120).
    #[serde(default)]
    pub thinking_seconds_per_turn: Option<i64>,
    /// Partner events: a game stopped at the time limit: `more_vp_wins` (default; equal VP is a
    /// draw), `draw`, or `no_winner` (a loss for both).
    #[serde(default)]
    pub time_limit_rule: Option<TimeLimitRule>,
    /// Partner events: points for a bye (default 3, as a win).
    #[serde(default)]
    pub bye_points: Option<i64>,
    /// Which results the standings count: `posted` (default: as soon as a table posts) or
    /// `confirmed` (once every player of the table confirmed, or the director resolved a dispute).
    #[serde(default)]
    pub standings_count: Option<StandingsCount>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StandingsCount {
    #[default]
    Posted,
    Confirmed,
}

impl CreateEvent {
    /// A classic event with every setting at its default.
    pub fn classic(name: &str) -> Self {
        CreateEvent {
            name: name.to_string(),
            region_id: None,
            format: EventFormat::Classic,
            qualifying_rounds: None,
            small_field_playoff: None,
            board_mode: None,
            swiss_rounds: None,
            team_target_vp: None,
            minutes_per_game: None,
            thinking_seconds_per_turn: None,
            time_limit_rule: None,
            bye_points: None,
            standings_count: None,
        }
    }

    /// A partner event with every setting at its default.
    pub fn partner(name: &str) -> Self {
        CreateEvent {
            format: EventFormat::Partner,
            ..CreateEvent::classic(name)
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "00000000-0000-4000-8000-0000000000e1", "name": "Spring open", "region_id": "00000000-0000-4000-8000-0000000000a1", "format": "classic", "qualifying_rounds": 3, "small_field_playoff": "final_of_top4", "board_mode": "each_table", "standings_count": "posted", "partner_rules": null, "created_at": "2026-03-01T08:00:00Z"}))]
pub struct Event {
    pub id: Uuid,
    pub name: String,
    pub region_id: Option<Uuid>,
    pub format: EventFormat,
    pub qualifying_rounds: u32,
    pub small_field_playoff: SmallFieldRule,
    pub board_mode: BoardMode,
    pub standings_count: StandingsCount,
    /// Partner events: the event's rules, as the table apps show them (target VP, minutes per
    /// game, thinking time, no trading between players, rounds, points, time-limit and bye rules).
    pub partner_rules: Option<PartnerSettings>,
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

/// A classic entry names one player; a partner entry a team of two.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"player_id": "00000000-0000-4000-8000-000000000001"}))]
pub struct CreateEntry {
    /// Classic events: the player.
    #[serde(default)]
    pub player_id: Option<Uuid>,
    /// Partner events: the team's name.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200)]
    pub team_name: Option<String>,
    /// Partner events: the team's two players.
    #[serde(default)]
    pub player_ids: Option<Vec<Uuid>>,
}

impl CreateEntry {
    pub fn player(player_id: Uuid) -> Self {
        CreateEntry {
            player_id: Some(player_id),
            ..Default::default()
        }
    }

    pub fn team(team_name: &str, players: [Uuid; 2]) -> Self {
        CreateEntry {
            team_name: Some(team_name.to_string()),
            player_ids: Some(players.to_vec()),
            ..Default::default()
        }
    }
}

/// An entry into one event: a player (classic) or a team of two (partner).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "00000000-0000-4000-8000-0000000000f1", "event_id": "00000000-0000-4000-8000-0000000000e1", "player_id": "00000000-0000-4000-8000-000000000001", "team_name": null, "player_ids": ["00000000-0000-4000-8000-000000000001"], "name": "Ada Lovelace", "status": "active", "status_reason": null, "created_at": "2026-03-14T09:31:00Z"}))]
pub struct Entry {
    pub id: Uuid,
    pub event_id: Uuid,
    /// Classic events: the player.
    pub player_id: Option<Uuid>,
    /// Partner events: the team's name.
    pub team_name: Option<String>,
    /// The entry's players: one, or a team's two.
    pub player_ids: Vec<Uuid>,
    /// The player's name, or the team's.
    pub name: String,
    pub status: EntryStatus,
    /// Why the entry was dropped or excluded.
    pub status_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    /// Only in the answer to the entry's creation: each player's PIN, with which he signs in to
    /// confirm or dispute his tables' results. Hand it to the player; it is not shown again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pins: Option<Vec<PlayerPin>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PlayerPin {
    pub player_id: Uuid,
    pub pin: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"reason": "Left after round 2", "exclude": false}))]
pub struct DropEntry {
    #[schema(min_length = 1, max_length = 200)]
    pub reason: String,
    /// True when the tournament director excludes the player (rather than the player leaving).
    #[serde(default)]
    pub exclude: bool,
}

// ---------------------------------------------------------------- pairing

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

// ---------------------------------------------------------------- results

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BreakdownInput {
    #[schema(minimum = 0, maximum = 5)]
    pub settlements: i64,
    #[schema(minimum = 0, maximum = 4)]
    pub cities: i64,
    #[schema(minimum = 0, maximum = 5)]
    pub vp_cards: i64,
    pub longest_road: bool,
    pub largest_army: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ScoreInput {
    pub player_id: Uuid,
    /// The victory points the player actually had (2 to 22).
    #[schema(minimum = 2, maximum = 22)]
    pub vp: i64,
    #[serde(default)]
    pub breakdown: Option<BreakdownInput>,
}

/// A table's results sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"outcome": "won", "winner_player_id": "00000000-0000-4000-8000-000000000001", "scores": [{"player_id": "00000000-0000-4000-8000-000000000001", "vp": 10, "breakdown": {"settlements": 2, "cities": 3, "vp_cards": 0, "longest_road": true, "largest_army": false}}, {"player_id": "00000000-0000-4000-8000-000000000002", "vp": 7}, {"player_id": "00000000-0000-4000-8000-000000000003", "vp": 5}, {"player_id": "00000000-0000-4000-8000-000000000004", "vp": 4}]}))]
pub struct SubmitResult {
    pub outcome: OutcomeKind,
    /// Classic events: required when `outcome` is `won`; absent at a time limit.
    #[serde(default)]
    pub winner_player_id: Option<Uuid>,
    /// Partner events: the winning team's entry when `outcome` is `won`; absent at a time limit.
    #[serde(default)]
    pub winner_entry_id: Option<Uuid>,
    pub scores: Vec<ScoreInput>,
}

/// A team's line of a partner table's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TeamScore {
    pub entry_id: Uuid,
    pub player_ids: Vec<Uuid>,
    /// The two players' VP together.
    pub vp: u32,
    /// `win`, `draw` or `loss`.
    pub result: GameResult,
    pub points: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"player_id": "00000000-0000-4000-8000-000000000001", "vp": 11, "credited_vp": 10, "breakdown": null}))]
pub struct ScoreRecorded {
    pub player_id: Uuid,
    pub vp: u8,
    /// What the game credits: the winner 10, everyone else at most 9.
    pub credited_vp: u8,
    pub breakdown: Option<BreakdownInput>,
}

/// Where a table's results sheet stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultStatus {
    /// Recorded; not every player has confirmed it yet.
    Posted,
    /// Every player at the table confirmed this version.
    Confirmed,
    /// A player disputes it; the director resolves it with a correction.
    Disputed,
    /// The director corrected it after a dispute.
    Resolved,
}

/// A player's dispute of a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Dispute {
    pub player_id: Uuid,
    pub reason: String,
    /// The version disputed.
    pub version: u32,
    pub created_at: DateTime<Utc>,
    /// The director's correction that resolved it.
    pub resolved_by_version: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"reason": "I had 8 VP, not 7"}))]
pub struct DisputeResult {
    #[schema(min_length = 1, max_length = 500)]
    pub reason: String,
}

/// A table's recorded result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TableResult {
    pub event_id: Uuid,
    pub round: u32,
    pub table: u32,
    pub stage: Stage,
    /// 1 for the first result; each correction by the tournament director adds one.
    pub version: u32,
    /// Position in the event's change feed.
    pub seq: i64,
    /// How many tables the round has.
    pub round_tables: u32,
    pub outcome: OutcomeKind,
    pub winner_player_id: Option<Uuid>,
    /// Partner events: the winning team's entry.
    pub winner_entry_id: Option<Uuid>,
    pub scores: Vec<ScoreRecorded>,
    /// Partner events: each team's VP, result and points.
    pub teams: Vec<TeamScore>,
    pub status: ResultStatus,
    /// The players who confirmed this version.
    pub confirmed_by: Vec<Uuid>,
    /// Disputes of this result, open and resolved.
    pub disputes: Vec<Dispute>,
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
#[schema(example = json!({"rank": 1, "entry_id": "00000000-0000-4000-8000-0000000000f1", "player_id": "00000000-0000-4000-8000-000000000001", "name": "Ada Lovelace", "status": "active", "vp": 28, "vp_share": "85.86", "vp_share_exact": "8500/99", "games": 3, "wins": 2, "three_player_games": 1}))]
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
    /// Always `classic`.
    #[schema(value_type = ClassicFormat)]
    pub format: EventFormat,
    pub event_id: Uuid,
    /// The last qualifying round whose every table has a result (0 before any).
    pub after_round: u32,
    /// Qualifying results counted.
    pub results_counted: u32,
    pub rows: Vec<StandingRow>,
}

/// A team's line of a partner event's standings.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"rank": 1, "entry_id": "00000000-0000-4000-8000-0000000000f2", "team_name": "Sheep Shape", "player_ids": ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"], "status": "active", "points": 9, "vp": 72, "vp_against": 51, "games": 4, "byes": 0, "prize": 1}))]
pub struct PartnerStandingRow {
    pub rank: u32,
    pub entry_id: Uuid,
    pub team_name: String,
    pub player_ids: Vec<Uuid>,
    pub status: EntryStatus,
    pub points: u32,
    /// VP the team scored (byes counted by the bye rule).
    pub vp: u32,
    /// VP its opponents scored against it: fewer ranks higher on equal points.
    pub vp_against: u32,
    pub games: u32,
    pub byes: u32,
    /// 1, 2 or 3 for the prize winners.
    pub prize: Option<u8>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PartnerStandings {
    /// Always `partner`.
    #[schema(value_type = PartnerFormat)]
    pub format: EventFormat,
    pub event_id: Uuid,
    /// The last Swiss round whose every table has a result (0 before any).
    pub after_round: u32,
    pub results_counted: u32,
    pub rows: Vec<PartnerStandingRow>,
}

/// The `format` of classic standings: what tells them from partner standings.
// The schema of `Standings.format`, an `EventFormat` that is always `classic` there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClassicFormat {
    Classic,
}

/// The `format` of partner standings: what tells them from classic standings.
// The schema of `PartnerStandings.format`, an `EventFormat` that is always `partner` there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PartnerFormat {
    Partner,
}

/// An event's standings: classic rows or partner rows, as its `format` says.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum AnyStandings {
    Classic(Standings),
    Partner(PartnerStandings),
}

impl<'de> Deserialize<'de> for AnyStandings {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = serde_json::Value::deserialize(deserializer)?;
        match value.get("format").and_then(|f| f.as_str()) {
            Some("partner") => serde_json::from_value(value)
                .map(AnyStandings::Partner)
                .map_err(D::Error::custom),
            _ => serde_json::from_value(value)
                .map(AnyStandings::Classic)
                .map_err(D::Error::custom),
        }
    }
}

/// One server-sent event of `GET /v1/events/{id}/standings/stream`, as OpenAPI 3.1 describes
/// the events of a `text/event-stream` (its fields `event`, `data`, `id`, `retry`): `event` is
/// `standings` and `data` the standings as JSON. Documentation only; the stream is written by
/// hand.
pub struct StandingsEvent;

impl utoipa::PartialSchema for StandingsEvent {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::Ref;
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(
                "One server-sent event: `event: standings`, `data:` the standings as JSON.",
            ))
            .property(
                "event",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(["standings"])),
            )
            .property(
                "data",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some("The standings, as `GET .../standings` answers them."))
                    .content_media_type("application/json")
                    .content_schema(Some(Ref::from_schema_name("AnyStandings"))),
            )
            .property("id", ObjectBuilder::new().schema_type(Type::String))
            .property(
                "retry",
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(0))
                    .description(Some("Milliseconds a client waits before it reconnects.")),
            )
            .required("data")
            .into()
    }
}

impl ToSchema for StandingsEvent {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        schemas.push((
            AnyStandings::name().into(),
            <AnyStandings as utoipa::PartialSchema>::schema(),
        ));
        <AnyStandings as ToSchema>::schemas(schemas);
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"place": 1, "entry_id": "00000000-0000-4000-8000-0000000000f1", "player_id": "00000000-0000-4000-8000-000000000001", "player_ids": ["00000000-0000-4000-8000-000000000001"], "name": "Ada Lovelace", "stage": "final"}))]
pub struct PlacementRow {
    pub place: u32,
    pub entry_id: Uuid,
    /// Classic events: the player.
    pub player_id: Option<Uuid>,
    /// The entry's players: one, or a team's two.
    pub player_ids: Vec<Uuid>,
    /// The player's name, or the team's.
    pub name: String,
    /// The furthest stage the player reached (`swiss` for partner events).
    pub stage: Stage,
}

/// The event's final placements. Until they are known (`complete: false`) there are no rows:
/// a classic event's once its final has a result (or its qualifying rounds, without a playoff);
/// a partner event's once every Swiss round has its results.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Placements {
    pub event_id: Uuid,
    pub complete: bool,
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

impl TableResult {
    /// A partner table's result as the rules see it.
    pub fn to_partner_game(&self) -> Option<catan_domain::partner::PartnerGame> {
        use catan_domain::partner::{PartnerGame, PartnerPlayerScore, TeamResult};
        let team = |line: &TeamScore| -> Option<TeamResult> {
            let player = |id: Uuid| {
                let score = self.scores.iter().find(|s| s.player_id == id)?;
                Some(PartnerPlayerScore {
                    player: id,
                    vp: score.vp,
                    breakdown: None,
                })
            };
            Some(TeamResult {
                team: line.entry_id,
                players: [
                    player(*line.player_ids.first()?)?,
                    player(*line.player_ids.get(1)?)?,
                ],
                vp: line.vp,
                result: line.result,
                points: line.points,
            })
        };
        match self.teams.as_slice() {
            [home, away] => Some(PartnerGame {
                outcome: self.outcome,
                home: team(home)?,
                away: team(away)?,
                winner: self.winner_entry_id,
            }),
            _ => None,
        }
    }
}
