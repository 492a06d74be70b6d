//! Standings and placements.

use super::explain::{CutNeed, CutOutlook, EventCriterion, PlayoffCut, Separation};
use super::registration::{EntryStatus, EventFormat};
use catan_domain::results::Stage;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

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
    /// Where the player stands against the playoff cut, as of the standings' `playoff` (none
    /// without a playoff).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playoff: Option<CutOutlook>,
    /// For a player who can still make the cut: what makes him sure, whatever every other table's
    /// sheets say. None when no score of his own is enough (he also needs rivals to fall short).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<CutNeed>,
    /// What separates this row from the row above (none for the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behind: Option<Separation<EventCriterion>>,
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
    /// The last change these standings include.
    pub as_of: DateTime<Utc>,
    /// The playoff cut the rows' outlooks are told against (none without a playoff).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playoff: Option<PlayoffCut>,
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
    /// The last change these standings include.
    pub as_of: DateTime<Utc>,
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
    /// The last change these placements include.
    pub as_of: DateTime<Utc>,
    pub rows: Vec<PlacementRow>,
}

/// How far ranking's read model has read one producer's change feed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct FeedState {
    /// `registration` or `results`.
    pub name: String,
    /// When the last read that reached the feed's end began: every change committed before it,
    /// and not still in flight then, is in the model.
    pub caught_up_at: Option<DateTime<Utc>>,
    /// Since when the producer cannot be read; the model serves its last state meanwhile.
    pub failing_since: Option<DateTime<Utc>>,
}

/// How fresh ranking's read model is.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ReadModelState {
    pub feeds: Vec<FeedState>,
}

/// A player's line of the ratings leaderboard.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RatingRow {
    pub rank: u32,
    pub player_id: Uuid,
    pub name: String,
    pub region_id: Option<Uuid>,
    /// What the rating is shown as: μ − 3σ.
    pub rating: f64,
    pub mu: f64,
    pub sigma: f64,
    /// Games rated.
    pub games: u32,
    /// Fewer games than `min_games`: the rating is still settling.
    pub provisional: bool,
}

/// A page of the ratings leaderboard, best first.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RatingsLeaderboard {
    /// The last change the ratings include.
    pub as_of: DateTime<Utc>,
    pub rows: Vec<RatingRow>,
}

/// One game of a player's rating history.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RatedGameRow {
    pub played_on: chrono::NaiveDate,
    pub event_id: Uuid,
    pub round: u32,
    pub table: u32,
    pub mu_before: f64,
    pub sigma_before: f64,
    pub mu_after: f64,
    pub sigma_after: f64,
    /// μ − 3σ after the game.
    pub rating_after: f64,
}

/// A player's rating now and game by game, oldest first.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PlayerRatings {
    pub player_id: Uuid,
    /// The last change the ratings include.
    pub as_of: DateTime<Utc>,
    /// μ − 3σ now; a new player's (25 − 3 × 25/3 = 0) before any game.
    pub rating: f64,
    pub mu: f64,
    pub sigma: f64,
    pub games: Vec<RatedGameRow>,
}

/// A table to predict: 3 or 4 different players.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"player_ids": ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000003"]}))]
pub struct PredictionRequest {
    #[schema(min_items = 3, max_items = 4)]
    pub player_ids: Vec<Uuid>,
}

/// A player's chance of winning the table.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WinChance {
    pub player_id: Uuid,
    /// Between 0 and 1; the table's chances add up to 1.
    pub probability: f64,
}

/// Each player's chance of winning the table under the rating model, in the order asked.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Prediction {
    pub chances: Vec<WinChance>,
}

/// One game two players shared.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SharedGame {
    pub event_id: Uuid,
    pub event_name: String,
    pub played_on: chrono::NaiveDate,
    pub round: u32,
    pub table: u32,
    /// Each one's place at the table (a partner game: his team's); equal VP share a place.
    pub place: u32,
    pub opponent_place: u32,
    pub vp: u32,
    pub opponent_vp: u32,
}

/// The games two players shared, oldest first, and who finished ahead how often.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct HeadToHead {
    pub player_id: Uuid,
    pub opponent_id: Uuid,
    /// The last change this includes: the latest of the shared games' results and the two
    /// players' records.
    pub as_of: DateTime<Utc>,
    /// Games the player finished ahead of the opponent.
    pub ahead: u32,
    /// Games the opponent finished ahead.
    pub behind: u32,
    /// Games they finished level (or as partners).
    pub level: u32,
    pub games: Vec<SharedGame>,
}
