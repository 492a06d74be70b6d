//! The checks of a season's scoring and qualification, every broken rule at once, and the
//! validated scoring the standings are computed with.

use serde::{Deserialize, Serialize};

use super::config::{
    Eligibility, ScaledPoints, ScoringMode, SeasonQualification, SeasonScoring, TieBreak, Tier,
};
use super::points::{PlacementPoints, TablePoints};

/// The rules a season's scoring and qualification can break, each with its stable code: the one
/// list of them, handed to `$callback!` as `rules { /// doc  Variant = "code", ... }` followed by
/// the caller's own tokens (as [`crate::with_rule_codes`] does for the results sheet), so that
/// the API's error codes can be made from it and cannot drift apart.
#[macro_export]
macro_rules! with_season_rule_codes {
    ($callback:ident! { $($rest:tt)* }) => {
        $callback! {
            rules {
                /// Mode `placement` names neither `points` nor `scaled`.
                PointsMissing = "points_missing",
                /// Mode `placement` names both `points` and `scaled`.
                PointsAndScaled = "points_and_scaled",
                /// A field the season's mode does not use: `points` or `scaled` in mode
                /// `table_points`, `four` or `three` in mode `placement`.
                NotForMode = "not_for_mode",
                /// A points table with no entry.
                EmptyTable = "empty_table",
                /// A points table that gives a place more than the place before it.
                RisingTable = "rising_table",
                /// A points table that gives every place 0.
                AllZeroTable = "all_zero_table",
                /// `four` without exactly 4 entries, or `three` without exactly 3.
                WrongTableSize = "wrong_table_size",
                /// A number that must be at least 1 (`scaled.top`, `scaled.full_field`, `best_n`,
                /// a tier's `max_counted`).
                BelowOne = "below_one",
                /// A tier whose `max_players` is below its `min_players`.
                InvertedRange = "inverted_range",
                /// A tier whose field sizes overlap an earlier tier's.
                OverlappingTiers = "overlapping_tiers",
                /// A tie-break that is not one of the known names.
                UnknownTieBreak = "unknown_tie_break",
                /// A tie-break listed a second time.
                RepeatedTieBreak = "repeated_tie_break",
                /// A qualification with neither event slots nor season slots (to qualify nobody,
                /// leave the qualification out).
                NoSlots = "no_slots",
            }
            $($rest)*
        }
    };
}

macro_rules! season_rule_enum {
    (rules { $($(#[doc = $doc:literal])* $variant:ident = $code:tt,)* }) => {
        /// The stable `code` of each rule a season's scoring or qualification can break.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        pub enum SeasonRule {
            $($(#[doc = $doc])* #[serde(rename = $code)] $variant,)*
        }

        impl SeasonRule {
            /// Every rule, in the order they are listed.
            pub const ALL: &'static [SeasonRule] = &[$(SeasonRule::$variant,)*];

            /// The code, as it is written in a problem document.
            pub fn code(self) -> &'static str {
                match self {
                    $(SeasonRule::$variant => $code,)*
                }
            }
        }
    };
}

with_season_rule_codes!(season_rule_enum! {});

/// One broken rule: `field` is the JSON path in the API's names (e.g. `scoring.points[3]`,
/// `scoring.tiers[1].max_counted`, `qualification`), `rule` the rule's code and `message` a
/// sentence for a human.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SeasonViolation {
    pub field: String,
    pub rule: SeasonRule,
    pub message: String,
}

impl SeasonViolation {
    fn new(field: impl Into<String>, rule: SeasonRule, message: impl Into<String>) -> Self {
        SeasonViolation {
            field: field.into(),
            rule,
            message: message.into(),
        }
    }
}

/// How an event's points are computed, by the season's mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventPoints {
    /// Mode `placement`.
    Placement(PlacementPoints),
    /// Mode `table_points`.
    TablePoints(TablePoints),
}

/// A season's scoring, validated: what [`super::season_standings`] computes with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scoring {
    pub points: EventPoints,
    /// Only a player's best N events count; none: all.
    pub best_n: Option<u32>,
    /// Caps by field size; they do not overlap. An event is in the first tier that holds it.
    pub tiers: Vec<Tier>,
    pub min_players: u32,
    pub min_rounds: u32,
    /// The whole ranking order, `points` included, each tie-break once.
    pub ranking: Vec<TieBreak>,
    /// Which of a player's events count for him.
    pub eligibility: Eligibility,
}

impl Scoring {
    /// The index in `tiers` of the tier an event of `field_size` players falls in.
    pub fn tier_of(&self, field_size: u32) -> Option<usize> {
        self.tiers.iter().position(|tier| tier.holds(field_size))
    }
}

const SCORING: &str = "scoring";

/// Checks a season's scoring: the validated [`Scoring`], or every rule it breaks.
pub fn validate_scoring(scoring: &SeasonScoring) -> Result<Scoring, Vec<SeasonViolation>> {
    let mut broken = Vec::new();
    let points = check_points(scoring, &mut broken);
    if scoring.best_n == Some(0) {
        broken.push(SeasonViolation::new(
            format!("{SCORING}.best_n"),
            SeasonRule::BelowOne,
            "best_n must be at least 1 (leave it out to count every event).",
        ));
    }
    check_tiers(&scoring.tiers, &mut broken);
    let ranking = check_tie_breaks(&scoring.tie_breaks, &mut broken);
    match points {
        Some(points) if broken.is_empty() => Ok(Scoring {
            points,
            best_n: scoring.best_n,
            tiers: scoring.tiers.clone(),
            min_players: scoring.min_players,
            min_rounds: scoring.min_rounds,
            ranking,
            eligibility: scoring.eligibility,
        }),
        _ => Err(broken),
    }
}

/// Checks a season's qualification: it back, or every rule it breaks.
pub fn validate_qualification(
    qualification: &SeasonQualification,
) -> Result<SeasonQualification, Vec<SeasonViolation>> {
    if qualification.event_slots == 0 && qualification.season_slots == 0 {
        return Err(vec![SeasonViolation::new(
            "qualification",
            SeasonRule::NoSlots,
            "A qualification needs event_slots or season_slots; leave it out to qualify nobody.",
        )]);
    }
    Ok(*qualification)
}

/// Checks a season's scoring and its qualification if it has one: both validated, or every rule
/// either breaks (the scoring's first).
pub fn validate_season(
    scoring: &SeasonScoring,
    qualification: Option<&SeasonQualification>,
) -> Result<(Scoring, Option<SeasonQualification>), Vec<SeasonViolation>> {
    let scoring = validate_scoring(scoring);
    let qualification = qualification.map(validate_qualification).transpose();
    match (scoring, qualification) {
        (Ok(scoring), Ok(qualification)) => Ok((scoring, qualification)),
        (scoring, qualification) => Err(scoring
            .err()
            .into_iter()
            .chain(qualification.err())
            .flatten()
            .collect()),
    }
}

/// The mode's points, if its fields are right.
fn check_points(scoring: &SeasonScoring, broken: &mut Vec<SeasonViolation>) -> Option<EventPoints> {
    let before = broken.len();
    let not_for = |field: &str, mode: &str| {
        SeasonViolation::new(
            format!("{SCORING}.{field}"),
            SeasonRule::NotForMode,
            format!("{field} is not used in mode {mode}."),
        )
    };
    match scoring.mode {
        ScoringMode::Placement => {
            for (field, given) in [
                ("four", scoring.four.is_some()),
                ("three", scoring.three.is_some()),
            ] {
                if given {
                    broken.push(not_for(field, "placement"));
                }
            }
            let points = match (&scoring.points, scoring.scaled) {
                (None, None) => {
                    broken.push(SeasonViolation::new(
                        format!("{SCORING}.points"),
                        SeasonRule::PointsMissing,
                        "Mode placement needs points (by place) or scaled (by field size).",
                    ));
                    None
                }
                (Some(_), Some(_)) => {
                    broken.push(SeasonViolation::new(
                        format!("{SCORING}.scaled"),
                        SeasonRule::PointsAndScaled,
                        "Mode placement takes points or scaled, not both.",
                    ));
                    None
                }
                (Some(points), None) => {
                    check_table("points", points, None, broken);
                    Some(PlacementPoints::Table(points.clone()))
                }
                (None, Some(scaled)) => {
                    check_scaled(scaled, broken);
                    Some(PlacementPoints::Scaled {
                        top: scaled.top,
                        full_field: scaled.full_field,
                    })
                }
            };
            points
                .filter(|_| broken.len() == before)
                .map(EventPoints::Placement)
        }
        ScoringMode::TablePoints => {
            for (field, given) in [
                ("points", scoring.points.is_some()),
                ("scaled", scoring.scaled.is_some()),
            ] {
                if given {
                    broken.push(not_for(field, "table_points"));
                }
            }
            let defaults = TablePoints::default();
            let four = scoring.four.clone().unwrap_or(defaults.four);
            let three = scoring.three.clone().unwrap_or(defaults.three);
            check_table("four", &four, Some(4), broken);
            check_table("three", &three, Some(3), broken);
            (broken.len() == before)
                .then_some(EventPoints::TablePoints(TablePoints { four, three }))
        }
    }
}

/// A points table: the right size if it has one, not empty, never rising, not all zero.
fn check_table(field: &str, table: &[u32], size: Option<usize>, broken: &mut Vec<SeasonViolation>) {
    let path = format!("{SCORING}.{field}");
    match size {
        Some(size) if table.len() != size => broken.push(SeasonViolation::new(
            &path,
            SeasonRule::WrongTableSize,
            format!(
                "{field} needs {size} entries, one per place at a table of {size}; got {}.",
                table.len()
            ),
        )),
        None if table.is_empty() => broken.push(SeasonViolation::new(
            &path,
            SeasonRule::EmptyTable,
            format!("{field} needs the points of at least first place."),
        )),
        _ => {}
    }
    for (k, pair) in table.windows(2).enumerate() {
        if let [before, after] = pair
            && after > before
        {
            broken.push(SeasonViolation::new(
                format!("{path}[{}]", k + 1),
                SeasonRule::RisingTable,
                format!(
                    "Place {} scores {after}, more than place {}'s {before}; points must not rise.",
                    k + 2,
                    k + 1
                ),
            ));
        }
    }
    if !table.is_empty() && table.iter().all(|&p| p == 0) {
        broken.push(SeasonViolation::new(
            &path,
            SeasonRule::AllZeroTable,
            format!("{field} gives every place 0 points."),
        ));
    }
}

fn check_scaled(scaled: ScaledPoints, broken: &mut Vec<SeasonViolation>) {
    for (field, value, what) in [
        ("top", scaled.top, "first place's points"),
        ("full_field", scaled.full_field, "the full field size"),
    ] {
        if value == 0 {
            broken.push(SeasonViolation::new(
                format!("{SCORING}.scaled.{field}"),
                SeasonRule::BelowOne,
                format!("scaled.{field} ({what}) must be at least 1."),
            ));
        }
    }
}

fn check_tiers(tiers: &[Tier], broken: &mut Vec<SeasonViolation>) {
    for (i, tier) in tiers.iter().enumerate() {
        let path = format!("{SCORING}.tiers[{i}]");
        if tier.max_counted == 0 {
            broken.push(SeasonViolation::new(
                format!("{path}.max_counted"),
                SeasonRule::BelowOne,
                format!("Tier {} must count at least 1 event.", tier.name),
            ));
        }
        if inverted(tier) {
            broken.push(SeasonViolation::new(
                format!("{path}.max_players"),
                SeasonRule::InvertedRange,
                format!(
                    "Tier {}'s max_players is below its min_players ({}).",
                    tier.name, tier.min_players
                ),
            ));
            continue;
        }
        let earlier = tiers[..i]
            .iter()
            .enumerate()
            .find(|(_, other)| !inverted(other) && overlap(tier, other));
        if let Some((j, other)) = earlier {
            broken.push(SeasonViolation::new(
                path,
                SeasonRule::OverlappingTiers,
                format!(
                    "Tier {} shares field sizes with tier {} (tiers[{j}]); an event is in one tier.",
                    tier.name, other.name
                ),
            ));
        }
    }
}

/// Whether a tier's range is upside down (it holds no field size).
fn inverted(tier: &Tier) -> bool {
    tier.max_players.is_some_and(|max| max < tier.min_players)
}

/// Whether two tiers' field-size ranges (inclusive; no maximum is unbounded) share a size.
fn overlap(a: &Tier, b: &Tier) -> bool {
    let below = |low: &Tier, high: &Tier| low.max_players.is_some_and(|max| max < high.min_players);
    !below(a, b) && !below(b, a)
}

/// The ranking order: `points` first unless the list names it, then the list.
fn check_tie_breaks(names: &[String], broken: &mut Vec<SeasonViolation>) -> Vec<TieBreak> {
    let mut ranking: Vec<TieBreak> = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let path = format!("{SCORING}.tie_breaks[{k}]");
        match TieBreak::from_name(name) {
            None => broken.push(SeasonViolation::new(
                path,
                SeasonRule::UnknownTieBreak,
                format!(
                    "Unknown tie-break {name:?}; known: {}.",
                    TieBreak::ALL.map(TieBreak::name).join(", ")
                ),
            )),
            Some(tie_break) if ranking.contains(&tie_break) => {
                broken.push(SeasonViolation::new(
                    path,
                    SeasonRule::RepeatedTieBreak,
                    format!("{name} is listed twice."),
                ));
            }
            Some(tie_break) => ranking.push(tie_break),
        }
    }
    if !ranking.contains(&TieBreak::Points) {
        ranking.insert(0, TieBreak::Points);
    }
    ranking
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::season::config::DEFAULT_TIE_BREAKS;
    use serde_json::json;

    fn scoring(value: serde_json::Value) -> SeasonScoring {
        serde_json::from_value(value).unwrap()
    }

    /// The (field, code) of every rule the scoring breaks.
    fn broken(value: serde_json::Value) -> Vec<(String, &'static str)> {
        validate_scoring(&scoring(value))
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(|v| (v.field, v.rule.code()))
            .collect()
    }

    fn one(field: &str, code: &'static str) -> Vec<(String, &'static str)> {
        vec![(field.to_owned(), code)]
    }

    #[test]
    fn a_placement_scoring_reads_from_json_with_its_defaults() {
        let read = scoring(json!({"mode": "placement", "points": [10, 6, 3]}));
        assert_eq!(read.tiers, []);
        assert_eq!(
            (read.min_players, read.min_rounds, read.best_n),
            (0, 0, None)
        );
        assert_eq!(
            read.tie_breaks,
            ["points", "wins", "vp_share", "best_place"]
        );
        let valid = validate_scoring(&read).unwrap();
        assert_eq!(
            valid.points,
            EventPoints::Placement(PlacementPoints::Table(vec![10, 6, 3]))
        );
        assert_eq!(valid.ranking, DEFAULT_TIE_BREAKS);
        // What the API stores reads back the same.
        let again: SeasonScoring =
            serde_json::from_str(&serde_json::to_string(&read).unwrap()).unwrap();
        assert_eq!(again, read);
    }

    #[test]
    fn placement_mode_needs_exactly_one_of_points_and_scaled() {
        assert_eq!(
            broken(json!({"mode": "placement"})),
            one("scoring.points", "points_missing")
        );
        assert_eq!(
            broken(json!({"mode": "placement", "points": [3, 2, 1],
                          "scaled": {"top": 100, "full_field": 50}})),
            one("scoring.scaled", "points_and_scaled")
        );
        let scaled = validate_scoring(&scoring(
            json!({"mode": "placement", "scaled": {"top": 100, "full_field": 50}}),
        ))
        .unwrap();
        assert_eq!(
            scaled.points,
            EventPoints::Placement(PlacementPoints::Scaled {
                top: 100,
                full_field: 50
            })
        );
    }

    #[test]
    fn each_mode_refuses_the_other_modes_fields() {
        assert_eq!(
            broken(json!({"mode": "table_points", "points": [3, 2, 1],
                          "scaled": {"top": 100, "full_field": 50}})),
            vec![
                ("scoring.points".to_owned(), "not_for_mode"),
                ("scoring.scaled".to_owned(), "not_for_mode"),
            ]
        );
        assert_eq!(
            broken(
                json!({"mode": "placement", "points": [3], "four": [5, 3, 2, 1],
                          "three": [5, 3, 1]})
            ),
            vec![
                ("scoring.four".to_owned(), "not_for_mode"),
                ("scoring.three".to_owned(), "not_for_mode"),
            ]
        );
    }

    #[test]
    fn table_points_default_to_five_three_two_one_and_five_three_one() {
        let valid = validate_scoring(&scoring(json!({"mode": "table_points"}))).unwrap();
        assert_eq!(
            valid.points,
            EventPoints::TablePoints(TablePoints::default())
        );
        let own = validate_scoring(&scoring(
            json!({"mode": "table_points", "four": [6, 4, 2, 0], "three": [6, 3, 0]}),
        ))
        .unwrap();
        assert_eq!(
            own.points,
            EventPoints::TablePoints(TablePoints {
                four: vec![6, 4, 2, 0],
                three: vec![6, 3, 0]
            })
        );
    }

    #[test]
    fn a_points_table_must_not_rise_be_empty_or_score_nothing() {
        assert_eq!(
            broken(json!({"mode": "placement", "points": []})),
            one("scoring.points", "empty_table")
        );
        assert_eq!(
            broken(json!({"mode": "placement", "points": [0, 0, 0]})),
            one("scoring.points", "all_zero_table")
        );
        // Every place that scores more than the place before it.
        assert_eq!(
            broken(json!({"mode": "placement", "points": [10, 12, 8, 8, 9]})),
            vec![
                ("scoring.points[1]".to_owned(), "rising_table"),
                ("scoring.points[4]".to_owned(), "rising_table"),
            ]
        );
        // Level places and trailing zeros are fine.
        assert_eq!(
            broken(json!({"mode": "placement", "points": [10, 8, 8, 0, 0]})),
            []
        );
    }

    #[test]
    fn scaled_points_need_a_top_and_a_full_field() {
        assert_eq!(
            broken(json!({"mode": "placement", "scaled": {"top": 0, "full_field": 0}})),
            vec![
                ("scoring.scaled.top".to_owned(), "below_one"),
                ("scoring.scaled.full_field".to_owned(), "below_one"),
            ]
        );
    }

    #[test]
    fn table_scales_need_four_and_three_entries_that_do_not_rise() {
        assert_eq!(
            broken(json!({"mode": "table_points", "four": [5, 3, 2], "three": [5, 3, 1, 0]})),
            vec![
                ("scoring.four".to_owned(), "wrong_table_size"),
                ("scoring.three".to_owned(), "wrong_table_size"),
            ]
        );
        assert_eq!(
            broken(json!({"mode": "table_points", "four": [5, 3, 4, 1], "three": [1, 3, 5]})),
            vec![
                ("scoring.four[2]".to_owned(), "rising_table"),
                ("scoring.three[1]".to_owned(), "rising_table"),
                ("scoring.three[2]".to_owned(), "rising_table"),
            ]
        );
        assert_eq!(
            broken(json!({"mode": "table_points", "three": [0, 0, 0]})),
            one("scoring.three", "all_zero_table")
        );
        assert_eq!(
            broken(json!({"mode": "table_points", "four": []})),
            one("scoring.four", "wrong_table_size")
        );
    }

    #[test]
    fn best_n_is_at_least_one() {
        assert_eq!(
            broken(json!({"mode": "table_points", "best_n": 0})),
            one("scoring.best_n", "below_one")
        );
        let valid =
            validate_scoring(&scoring(json!({"mode": "table_points", "best_n": 1}))).unwrap();
        assert_eq!(valid.best_n, Some(1));
    }

    #[test]
    fn tiers_need_a_cap_a_range_and_no_overlap() {
        let tier = |name: &str, min: u32, max: Option<u32>, cap: u32| json!({"name": name, "min_players": min, "max_players": max, "max_counted": cap});
        assert_eq!(
            broken(json!({"mode": "table_points", "tiers": [
                tier("small", 0, Some(19), 2),
                tier("medium", 20, Some(49), 0),
                tier("large", 50, None, 1),
            ]})),
            one("scoring.tiers[1].max_counted", "below_one")
        );
        assert_eq!(
            broken(json!({"mode": "table_points", "tiers": [tier("odd", 30, Some(20), 1)]})),
            one("scoring.tiers[0].max_players", "inverted_range")
        );
        // Sharing one field size is overlapping: ranges are inclusive; no maximum is unbounded.
        assert_eq!(
            broken(json!({"mode": "table_points", "tiers": [
                tier("small", 0, Some(20), 1),
                tier("medium", 20, Some(49), 1),
                tier("large", 40, None, 1),
                tier("huge", 100, None, 1),
            ]})),
            vec![
                ("scoring.tiers[1]".to_owned(), "overlapping_tiers"),
                ("scoring.tiers[2]".to_owned(), "overlapping_tiers"),
                ("scoring.tiers[3]".to_owned(), "overlapping_tiers"),
            ]
        );
        // Tiers need not be listed in order nor cover every size.
        assert_eq!(
            broken(json!({"mode": "table_points", "tiers": [
                tier("large", 50, None, 1),
                tier("small", 8, Some(15), 3),
            ]})),
            []
        );
    }

    #[test]
    fn tie_breaks_are_known_names_listed_once() {
        assert_eq!(
            broken(json!({"mode": "table_points",
                          "tie_breaks": ["points", "wins", "Wins", "rating", "wins"]})),
            vec![
                ("scoring.tie_breaks[2]".to_owned(), "unknown_tie_break"),
                ("scoring.tie_breaks[3]".to_owned(), "unknown_tie_break"),
                ("scoring.tie_breaks[4]".to_owned(), "repeated_tie_break"),
            ]
        );
        let every = TieBreak::ALL.map(TieBreak::name);
        let valid = validate_scoring(&scoring(
            json!({"mode": "table_points", "tie_breaks": every}),
        ))
        .unwrap();
        assert_eq!(valid.ranking, TieBreak::ALL);
    }

    #[test]
    fn points_come_first_unless_the_list_places_them() {
        let ranking = |names: serde_json::Value| {
            validate_scoring(&scoring(
                json!({"mode": "table_points", "tie_breaks": names}),
            ))
            .unwrap()
            .ranking
        };
        assert_eq!(ranking(json!([])), [TieBreak::Points]);
        assert_eq!(
            ranking(json!(["vp", "fewer_events"])),
            [TieBreak::Points, TieBreak::Vp, TieBreak::FewerEvents]
        );
        assert_eq!(
            ranking(json!(["wins", "points"])),
            [TieBreak::Wins, TieBreak::Points]
        );
    }

    #[test]
    fn every_broken_rule_is_reported_at_once() {
        let found = broken(json!({
            "mode": "placement",
            "points": [1, 2],
            "four": [5, 3, 2, 1],
            "best_n": 0,
            "tiers": [{"name": "t", "min_players": 10, "max_players": 5, "max_counted": 0}],
            "tie_breaks": ["luck", "points", "points"],
        }));
        assert_eq!(
            found,
            vec![
                ("scoring.four".to_owned(), "not_for_mode"),
                ("scoring.points[1]".to_owned(), "rising_table"),
                ("scoring.best_n".to_owned(), "below_one"),
                ("scoring.tiers[0].max_counted".to_owned(), "below_one"),
                ("scoring.tiers[0].max_players".to_owned(), "inverted_range"),
                ("scoring.tie_breaks[0]".to_owned(), "unknown_tie_break"),
                ("scoring.tie_breaks[2]".to_owned(), "repeated_tie_break"),
            ]
        );
        // With the qualification's, the scoring's first.
        let both = validate_season(
            &scoring(json!({"mode": "placement"})),
            Some(&SeasonQualification {
                event_slots: 0,
                pass_down: true,
                season_slots: 0,
            }),
        )
        .unwrap_err();
        let fields: Vec<&str> = both.iter().map(|v| v.field.as_str()).collect();
        assert_eq!(fields, ["scoring.points", "qualification"]);
        assert!(both.iter().all(|v| !v.message.is_empty()));
    }

    #[test]
    fn a_qualification_that_qualifies_nobody_is_refused() {
        let rules = |event_slots, season_slots| SeasonQualification {
            event_slots,
            pass_down: false,
            season_slots,
        };
        let refused = validate_qualification(&rules(0, 0)).unwrap_err();
        assert_eq!(refused[0].field, "qualification");
        assert_eq!(refused[0].rule, SeasonRule::NoSlots);
        assert_eq!(validate_qualification(&rules(2, 0)), Ok(rules(2, 0)));
        assert_eq!(validate_qualification(&rules(0, 8)), Ok(rules(0, 8)));
        let read: SeasonQualification = serde_json::from_value(json!({"event_slots": 3})).unwrap();
        assert_eq!(read, rules(3, 0));
        // No qualification at all is no qualification.
        let (_, none) = validate_season(&scoring(json!({"mode": "table_points"})), None).unwrap();
        assert_eq!(none, None);
    }

    #[test]
    fn rule_codes_are_stable_snake_case_and_serialize_as_themselves() {
        for rule in SeasonRule::ALL {
            let code = rule.code();
            assert!(code.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
            assert_eq!(serde_json::to_value(rule).unwrap(), json!(code));
        }
        let codes: std::collections::HashSet<&str> =
            SeasonRule::ALL.iter().map(|r| r.code()).collect();
        assert_eq!(codes.len(), SeasonRule::ALL.len());
        for tie_break in TieBreak::ALL {
            assert_eq!(
                serde_json::to_value(tie_break).unwrap(),
                json!(tie_break.name())
            );
        }
    }
}
