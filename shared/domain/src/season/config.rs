//! A season's scoring and qualification as the API receives them: plain data, checked by
//! [`super::validate_scoring`] and [`super::validate_qualification`].

use serde::{Deserialize, Serialize};

/// How the events of a season score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ScoringMode {
    /// An event scores by its final places: `points` (a table by place) or `scaled` (by field
    /// size). Only events whose placements are complete score.
    Placement,
    /// Every game scores by finishing position (`four` at a table of 4, `three` at a table of 3);
    /// an event's points are its games', counted as they are played.
    TablePoints,
}

/// Placement points scaled by field size: first place of a field of `full_field` players or more
/// scores `top`, a smaller field's first place `top × field / full_field`; the places then fall
/// linearly to the last, which scores `1 / field` of the first. Exact fractions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(example = json!({"top": 100, "full_field": 50})))]
pub struct ScaledPoints {
    /// First place's points in a full field; at least 1.
    pub top: u32,
    /// The field size from which first place scores `top`; at least 1.
    pub full_field: u32,
}

/// A tier of events by field size, with a cap on how many of a player's counted events may come
/// from it. Tiers may not overlap; an event in no tier is not capped (only `best_n` applies).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(example = json!(
    {"name": "major", "min_players": 50, "max_players": null, "max_counted": 2}
)))]
pub struct Tier {
    /// A label for people, e.g. "major".
    pub name: String,
    /// The smallest field in the tier (inclusive).
    pub min_players: u32,
    /// The largest field in the tier (inclusive); none for no upper bound.
    #[serde(default)]
    pub max_players: Option<u32>,
    /// How many of a player's counted events may come from this tier; at least 1.
    pub max_counted: u32,
}

impl Tier {
    /// Whether an event of `field_size` players falls in the tier.
    pub fn holds(&self, field_size: u32) -> bool {
        field_size >= self.min_players && self.max_players.is_none_or(|max| field_size <= max)
    }
}

/// A season's scoring, as sent to `POST /v1/seasons`.
///
/// Mode `placement` needs exactly one of `points` and `scaled`, and refuses `four` and `three`.
/// Mode `table_points` refuses `points` and `scaled`; `four` defaults to 5-3-2-1 and `three` to
/// 5-3-1. Every points table must not rise from one place to the next and must score something.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(example = json!({
    "mode": "placement",
    "points": [25, 18, 15, 12, 10, 8, 6, 4, 2, 1],
    "best_n": 4,
    "tiers": [{"name": "major", "min_players": 50, "max_players": null, "max_counted": 2}],
    "min_players": 12,
    "min_rounds": 3,
    "tie_breaks": ["points", "wins", "vp_share", "best_place"]
})))]
pub struct SeasonScoring {
    pub mode: ScoringMode,
    /// Mode `placement`: the points of place 1, 2, …; places past the table score nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<u32>>,
    /// Mode `placement`: points scaled by field size instead of a table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaled: Option<ScaledPoints>,
    /// Mode `table_points`: the points of 1st to 4th at a table of 4 (default 5, 3, 2, 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub four: Option<Vec<u32>>,
    /// Mode `table_points`: the points of 1st to 3rd at a table of 3 (default 5, 3, 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub three: Option<Vec<u32>>,
    /// Only a player's best N events count (at least 1); none: every event counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_n: Option<u32>,
    /// Caps by field size on a player's counted events.
    #[serde(default)]
    pub tiers: Vec<Tier>,
    /// The smallest field with which an event counts for the season.
    #[serde(default)]
    pub min_players: u32,
    /// The fewest rounds played with which an event counts for the season.
    #[serde(default)]
    pub min_rounds: u32,
    /// The order in which players are ranked, each name once, from `points` (more), `wins`
    /// (more events won), `vp` (more VP, each game's capped at its target), `vp_share` (higher
    /// average share of the table's VP), `best_place` (the better best place; none is worst),
    /// `fewer_events` (fewer events played), `vp_capped_at_winning_total` (more VP, each game's
    /// capped at the VP that wins it: the German championship's name for `vp`) and
    /// `table_places` (more games finished 1st, then 2nd, then 3rd). `points` comes first unless
    /// the list names it elsewhere (an empty list ranks by points alone). Default: `points`,
    /// `wins`, `vp_share`, `best_place`. Players equal on the whole list share the rank.
    #[serde(default = "default_tie_breaks")]
    pub tie_breaks: Vec<String>,
    /// Which of a player's events count for him: `every_event` (the default) or
    /// `first_qualifier_only` (only the first counting event he played, as the German
    /// championship counts one qualifier a player).
    #[serde(default, skip_serializing_if = "Eligibility::is_every_event")]
    pub eligibility: Eligibility,
}

/// Which of a player's events count for him in a season.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Eligibility {
    /// Every counting event a player plays counts for him.
    #[default]
    EveryEvent,
    /// A player counts in one qualifier of the season: the first counting event he played, in
    /// play order. His later events give him no points and no figures, and their slots pass him
    /// over as if he had not played there (the German championship).
    FirstQualifierOnly,
}

impl Eligibility {
    fn is_every_event(&self) -> bool {
        *self == Eligibility::EveryEvent
    }

    /// Whether another event counts for a player for whom `counted_before` events already do.
    pub fn admits_another(self, counted_before: usize) -> bool {
        match self {
            Eligibility::EveryEvent => true,
            Eligibility::FirstQualifierOnly => counted_before == 0,
        }
    }
}

/// `points`, `wins`, `vp_share`, `best_place`.
pub fn default_tie_breaks() -> Vec<String> {
    DEFAULT_TIE_BREAKS
        .iter()
        .map(|tie_break| tie_break.name().to_owned())
        .collect()
}

/// The ranking order when a season names none.
pub const DEFAULT_TIE_BREAKS: [TieBreak; 4] = [
    TieBreak::Points,
    TieBreak::Wins,
    TieBreak::VpShare,
    TieBreak::BestPlace,
];

/// What players are ranked by, in the order a season lists them. Every measure but
/// `fewer_events` is taken over a player's counted events (the ones in his points).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum TieBreak {
    /// More season points.
    Points,
    /// More events won (place 1).
    Wins,
    /// More VP, each player's VP in a game capped at the game's target, summed.
    Vp,
    /// A higher average VP share per game: the player's capped VP over the table's capped total.
    VpShare,
    /// The better best place; a player with no place ranks below any place.
    BestPlace,
    /// Fewer events played (counting events only): the same points from fewer events.
    FewerEvents,
    /// More VP, each player's VP in a game capped at the VP that wins the game (10, a partner
    /// game's team target), summed: the German championship's tie-break. It measures what `vp`
    /// measures; a season names the one its federation's rules name.
    VpCappedAtWinningTotal,
    /// More games finished 1st, then (equal) more finished 2nd, then more finished 3rd, over the
    /// counted events' games: the German championship's tie-break. Players level at a table
    /// share the best place they span (two level behind the winner are both 2nd).
    TablePlaces,
}

impl TieBreak {
    /// Every tie-break, in the order the documentation lists them.
    pub const ALL: [TieBreak; 8] = [
        TieBreak::Points,
        TieBreak::Wins,
        TieBreak::Vp,
        TieBreak::VpShare,
        TieBreak::BestPlace,
        TieBreak::FewerEvents,
        TieBreak::VpCappedAtWinningTotal,
        TieBreak::TablePlaces,
    ];

    /// The name a season lists it by.
    pub fn name(self) -> &'static str {
        match self {
            TieBreak::Points => "points",
            TieBreak::Wins => "wins",
            TieBreak::Vp => "vp",
            TieBreak::VpShare => "vp_share",
            TieBreak::BestPlace => "best_place",
            TieBreak::FewerEvents => "fewer_events",
            TieBreak::VpCappedAtWinningTotal => "vp_capped_at_winning_total",
            TieBreak::TablePlaces => "table_places",
        }
    }

    /// The tie-break a name stands for, exactly as [`TieBreak::name`] writes it.
    pub fn from_name(name: &str) -> Option<TieBreak> {
        TieBreak::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// Who of a season qualifies (e.g. for a national final), as sent to `POST /v1/seasons`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(example = json!(
    {"event_slots": 2, "pass_down": true, "season_slots": 4}
)))]
pub struct SeasonQualification {
    /// The top K of each counting season event qualify (K player slots, walked in placement
    /// order), the events taken in the order they were played.
    #[serde(default)]
    pub event_slots: u32,
    /// A slot whose player already qualified or declined goes to the next eligible player of
    /// that event's placements; without it, the slot is lost.
    #[serde(default)]
    pub pass_down: bool,
    /// Then the best M of the season table not otherwise qualified (and not declined).
    #[serde(default)]
    pub season_slots: u32,
}
