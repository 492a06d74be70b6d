//! Seasons (circuits) and player pages, served by ranking's read model.

use super::explain::{QualificationOutlook, Separation};
use catan_domain::season::{SeasonQualification, SeasonScoring, TieBreak};
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A season to create: its days, its region (none: federation-wide), how its events score and
/// who qualifies from it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "name": "Catalan circuit 2027",
    "region_id": "00000000-0000-4000-8000-0000000000a1",
    "starts_on": "2027-01-01",
    "ends_on": "2027-12-31",
    "scoring": {"mode": "placement", "points": [25, 18, 15, 12, 10, 8, 6, 4, 2, 1], "best_n": 4},
    "qualification": {"event_slots": 2, "pass_down": true, "season_slots": 4}
}))]
pub struct CreateSeason {
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    /// A regional season holds only its region's events; without one the season is
    /// federation-wide and holds any region's.
    #[serde(default)]
    pub region_id: Option<Uuid>,
    /// The season's first day: an event joins only if all its days fall within the season's.
    pub starts_on: NaiveDate,
    /// The season's last day, not before its first.
    pub ends_on: NaiveDate,
    pub scoring: SeasonScoring,
    /// Who qualifies (e.g. for a national final); none: nobody.
    #[serde(default)]
    pub qualification: Option<SeasonQualification>,
}

/// A season: its configuration and its events, in play order (first day, then id).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Season {
    pub id: Uuid,
    pub name: String,
    pub region_id: Option<Uuid>,
    pub starts_on: NaiveDate,
    pub ends_on: NaiveDate,
    pub scoring: SeasonScoring,
    pub qualification: Option<SeasonQualification>,
    /// The season's events, in play order (first day, then id).
    pub event_ids: Vec<Uuid>,
    pub created_at: DateTime<Utc>,
}

/// What a season list asks for.
#[derive(Debug, Clone, Default, Serialize, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SeasonSearch {
    /// Only the seasons of this region (federation-wide seasons have none, and are not listed
    /// under one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(nullable = false)]
    pub region_id: Option<Uuid>,
}

/// What one event gave a player for the season.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeasonEventResult {
    pub event_id: Uuid,
    pub event_name: String,
    pub starts_on: NaiveDate,
    /// The player's final place; none while the event's placements are not complete.
    pub place: Option<u32>,
    /// The event's entries.
    pub field_size: u32,
    /// What the event scores for the player, counted or not: a decimal with two places
    /// (halves away from zero).
    pub points: String,
    /// The same, exact, as `numerator/denominator`.
    pub points_exact: String,
    /// Whether the points are in the player's total (`best_n` and the tier caps choose).
    pub counted: bool,
}

/// A player's line of the season table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"rank": 1, "player_id": "00000000-0000-4000-8000-000000000001", "name": "Ada Lovelace", "region_id": "00000000-0000-4000-8000-0000000000a1", "points": "43.00", "points_exact": "43/1", "events_played": 3, "events_counted": 2, "wins": 1, "best_place": 1, "vp": 52, "vp_share": "31.25", "vp_share_exact": "125/4", "table_places": [3, 2, 1], "qualified": true, "qualification": "already_qualified", "results": [{"event_id": "00000000-0000-4000-8000-0000000000e1", "event_name": "Spring open", "starts_on": "2027-04-18", "place": 1, "field_size": 13, "points": "25.00", "points_exact": "25/1", "counted": true}]}))]
pub struct SeasonStandingRow {
    /// The rank in the whole season's table, also when the rows are filtered by region; players
    /// equal on every tie-break share it ("1, 2, 2, 4").
    pub rank: u32,
    pub player_id: Uuid,
    pub name: String,
    pub region_id: Option<Uuid>,
    /// The counted events' points: a decimal with two places (halves away from zero).
    pub points: String,
    /// The same, exact, as `numerator/denominator`: what ranks.
    pub points_exact: String,
    /// The season's counting events the player played.
    pub events_played: u32,
    /// Those whose points are in `points`.
    pub events_counted: u32,
    /// Counted events won (place 1).
    pub wins: u32,
    /// The best place over the counted events.
    pub best_place: Option<u32>,
    /// VP over the counted events' games, each game's capped at its target.
    pub vp: u64,
    /// The average share of the table's VP over the counted events' games, in percent, two
    /// decimals.
    pub vp_share: String,
    /// The same, exact, as `numerator/denominator` (in percent).
    pub vp_share_exact: String,
    /// Games finished 1st, 2nd and 3rd over the counted events' games (players level at a table
    /// share the best place they span).
    #[serde(default)]
    pub table_places: [u32; 3],
    /// Whether the player holds one of the season's qualification places.
    pub qualified: bool,
    /// Whether he is already qualified, can still qualify or cannot, counting the season's
    /// events still to be played (those joined whose placements are not complete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qualification: Option<QualificationOutlook>,
    /// What separates this row from the row above in the season's tie-break order (none for the
    /// first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behind: Option<Separation<TieBreak>>,
    /// Every counting event the player played, in play order (only when the table is asked for
    /// with `results=true`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<SeasonEventResult>,
}

/// A page of a season's table, best first.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeasonStandings {
    pub season_id: Uuid,
    /// The last change the table includes.
    pub as_of: DateTime<Utc>,
    pub rows: Vec<SeasonStandingRow>,
}

/// How a player qualified: an event's slot (his place in it), or the season table (his rank).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum QualifiedVia {
    /// One of an event's slots.
    Event { event_id: Uuid, place: u32 },
    /// One of the season table's slots.
    Season { season_rank: u32 },
}

/// A player who holds one of a season's places.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"player_id": "00000000-0000-4000-8000-000000000005", "name": "Bo Peep", "via": {"event_id": "00000000-0000-4000-8000-0000000000e1", "place": 3}, "passed_down_from": "00000000-0000-4000-8000-000000000001"}))]
pub struct QualifiedPlayer {
    pub player_id: Uuid,
    pub name: String,
    pub via: QualifiedVia,
    /// The player whose event slot this was, when it passed down (he held a place already, or
    /// declined).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_down_from: Option<Uuid>,
}

/// A player's declined place in a season.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeasonDecline {
    pub season_id: Uuid,
    /// The player (a merged identity's survivor).
    pub player_id: Uuid,
    pub declined_at: DateTime<Utc>,
}

/// A player's rating on his page, and where it is heading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ProfileRating {
    /// μ − 3σ now (0 before any game).
    pub rating: f64,
    pub mu: f64,
    pub sigma: f64,
    /// Games rated.
    pub games: u32,
    /// How much `rating` moved over the last `trend_games` rated games (the last 5, or fewer
    /// when fewer were played): the rating now minus the rating before them.
    pub trend: f64,
    pub trend_games: u32,
}

/// What one season event gave the player for one season.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ProfileSeasonPoints {
    pub season_id: Uuid,
    pub season_name: String,
    pub points: String,
    pub points_exact: String,
    pub counted: bool,
}

/// An event the player played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ProfileEvent {
    pub event_id: Uuid,
    pub event_name: String,
    pub starts_on: NaiveDate,
    /// The final place; none while the event's placements are not complete.
    pub place: Option<u32>,
    /// The event's entries.
    pub field_size: u32,
    /// Games the player played in it (qualifying, playoff or Swiss), as its standings count them.
    pub games: u32,
    /// VP the player scored in those games, as the sheets record them.
    pub vp: u32,
    /// The average share of his tables' VP over those games (each VP capped at the game's
    /// target), in percent, two decimals.
    pub vp_share: String,
    /// What the event scores for each season that counts it.
    pub season_points: Vec<ProfileSeasonPoints>,
}

/// A season the player is in the table of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ProfileSeason {
    pub season_id: Uuid,
    pub name: String,
    pub rank: u32,
    pub points: String,
    pub points_exact: String,
    pub events_counted: u32,
    pub qualified: bool,
}

/// A place the player holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ProfileQualification {
    pub season_id: Uuid,
    pub season_name: String,
    pub via: QualifiedVia,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_down_from: Option<Uuid>,
}

/// A player's page: the events he played, his rating and its trend, his seasons and places.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlayerProfile {
    /// The player (a merged identity's survivor).
    pub player_id: Uuid,
    pub name: String,
    pub region_id: Option<Uuid>,
    pub rating: ProfileRating,
    /// The events played, latest first (first day, then id, descending).
    pub events: Vec<ProfileEvent>,
    /// The seasons whose table lists him, latest first.
    pub seasons: Vec<ProfileSeason>,
    pub qualifications: Vec<ProfileQualification>,
    /// The last change the page includes: the latest of the player's record, his events' results,
    /// his seasons' tables and the ratings.
    pub as_of: DateTime<Utc>,
}
