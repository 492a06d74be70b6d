//! A table's results sheet: what the players report, checked against who sat at the table and
//! against what the base game makes possible, and the VP each player is credited with.

use serde::{Deserialize, Serialize};

use crate::PlayerId;

/// Fewest VP anyone can have: the two settlements every player places at the start.
pub const MIN_VP: i64 = 2;
/// Most VP the base game allows: 5 settlements, 4 cities, 5 VP cards and both 2-VP cards.
pub const MAX_VP: i64 = 22;
/// VP needed to win, and the VP credited to a winner.
pub const WINNING_VP: u8 = 10;
/// Most VP credited to anyone who did not win the game.
pub const MAX_CREDIT_WITHOUT_WIN: u8 = 9;
/// Settlements in a player's supply.
pub const MAX_SETTLEMENTS: i64 = 5;
/// Cities in a player's supply.
pub const MAX_CITIES: i64 = 4;
/// Victory-point cards in the development deck, shared by the whole table.
pub const VP_CARDS_IN_DECK: i64 = 5;
/// Buildings on the board that no player can lose: the two settlements of the set-up.
pub const MIN_BUILDINGS: i64 = 2;
/// What the longest road and the largest army are each worth.
pub const SPECIAL_CARD_VP: i64 = 2;

/// The stable `code`s of a [`Violation`].
pub mod codes {
    /// A score names a player who is not seated at the table.
    pub const UNKNOWN_PLAYER: &str = "unknown_player";
    /// A player has a second score on the sheet.
    pub const DUPLICATE_PLAYER: &str = "duplicate_player";
    /// A seated player has no score on the sheet.
    pub const MISSING_PLAYER: &str = "missing_player";
    /// A number is outside what the game allows.
    pub const OUT_OF_RANGE: &str = "out_of_range";
    /// The game was won but no winner is named.
    pub const WINNER_MISSING: &str = "winner_missing";
    /// The named winner is not seated at the table.
    pub const WINNER_NOT_SEATED: &str = "winner_not_seated";
    /// The named winner has fewer than 10 VP.
    pub const WINNER_BELOW_TEN: &str = "winner_below_ten";
    /// A game stopped at the time limit names a winner.
    pub const WINNER_AT_TIME_LIMIT: &str = "winner_at_time_limit";
    /// A final stopped at the time limit; finals are played until won.
    pub const FINAL_AT_TIME_LIMIT: &str = "final_at_time_limit";
    /// A breakdown has fewer than the two buildings of the set-up.
    pub const TOO_FEW_BUILDINGS: &str = "too_few_buildings";
    /// A breakdown does not add up to the player's VP.
    pub const BREAKDOWN_SUM_MISMATCH: &str = "breakdown_sum_mismatch";
    /// The table claims more VP cards than the deck holds.
    pub const TOO_MANY_VP_CARDS: &str = "too_many_vp_cards";
    /// More than one player claims the longest road.
    pub const MULTIPLE_LONGEST_ROAD_HOLDERS: &str = "multiple_longest_road_holders";
    /// More than one player claims the largest army.
    pub const MULTIPLE_LARGEST_ARMY_HOLDERS: &str = "multiple_largest_army_holders";
}

/// The stage of the tournament a game belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Stage {
    Qualifying,
    Semifinal,
    Final,
    /// A partner event's Swiss round.
    Swiss,
}

/// How a game ended: somebody won, or the round's time ran out first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum OutcomeKind {
    Won,
    TimeLimit,
}

/// A breakdown as received: numbers unchecked (i64) so that the validator can name what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawBreakdown {
    pub settlements: i64,
    pub cities: i64,
    pub vp_cards: i64,
    pub longest_road: bool,
    pub largest_army: bool,
}

/// One player's line of the sheet as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawScore {
    pub player: PlayerId,
    pub vp: i64,
    pub breakdown: Option<RawBreakdown>,
}

/// A table's results sheet as submitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawSheet {
    pub outcome: OutcomeKind,
    pub winner: Option<PlayerId>,
    pub scores: Vec<RawScore>,
}

/// One broken rule: `field` is the JSON path in the API's names, e.g. "winner_player_id",
/// "outcome", "scores", "scores[2].vp", "scores[2].player_id", "scores[1].breakdown.cities",
/// "scores[1].breakdown"; `code` one of [`codes`]; `message` a sentence for a human.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub field: String,
    pub code: &'static str,
    pub message: String,
}

impl Violation {
    fn new(field: impl Into<String>, code: &'static str, message: impl Into<String>) -> Self {
        Violation {
            field: field.into(),
            code,
            message: message.into(),
        }
    }
}

/// Where a player's VP came from, once validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Breakdown {
    pub settlements: u8,
    pub cities: u8,
    pub vp_cards: u8,
    pub longest_road: bool,
    pub largest_army: bool,
}

/// One player's validated line: the VP actually reached and the VP the tournament credits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    pub player: PlayerId,
    pub vp: u8,
    pub credited_vp: u8,
    pub breakdown: Option<Breakdown>,
}

/// A validated table result. `winner` is Some exactly when the game was won.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableResult {
    pub winner: Option<PlayerId>,
    pub scores: Vec<Score>,
}

impl TableResult {
    pub fn outcome(&self) -> OutcomeKind {
        match self.winner {
            Some(_) => OutcomeKind::Won,
            None => OutcomeKind::TimeLimit,
        }
    }

    pub fn score_of(&self, player: PlayerId) -> Option<&Score> {
        self.scores.iter().find(|score| score.player == player)
    }
}

/// The VP a game credits to a player: a winner 10 whatever he reached; everyone else at most 9.
pub fn credited_vp(vp: u8, is_winner: bool) -> u8 {
    if is_winner {
        WINNING_VP
    } else {
        vp.min(MAX_CREDIT_WITHOUT_WIN)
    }
}

/// Checks a sheet against the players seated at the table (any order) and the stage; returns ALL
/// violations found, not just the first.
///
/// Violations come in a fixed order: the outcome and winner, then each score in sheet order, then
/// the checks on the whole `scores` list (missing players, cards only one player can hold).
pub fn validate_sheet(
    sheet: &RawSheet,
    seated: &[PlayerId],
    stage: Stage,
) -> Result<TableResult, Vec<Violation>> {
    let mut violations = check_outcome(sheet, seated, stage);
    for (index, score) in sheet.scores.iter().enumerate() {
        let path = score_path(index);
        violations.extend(check_seat(sheet, seated, index));
        if !(MIN_VP..=MAX_VP).contains(&score.vp) {
            violations.push(Violation::new(
                format!("{path}.vp"),
                codes::OUT_OF_RANGE,
                format!(
                    "VP must be between {MIN_VP} and {MAX_VP}, not {}.",
                    score.vp
                ),
            ));
        }
        if let Some(breakdown) = &score.breakdown {
            violations.extend(validate_breakdown(&path, score.vp, breakdown));
        }
    }
    violations.extend(check_missing_players(sheet, seated));
    violations.extend(check_shared_cards(&sheet.scores));

    if violations.is_empty() {
        Ok(to_table_result(sheet))
    } else {
        Err(violations)
    }
}

/// Checks one player's breakdown alone (ranges, at least two buildings, vp equals the sum);
/// `path` is the score's JSON path prefix like "scores[3]". Table-wide checks (VP cards, longest
/// road, largest army holders) are in [`validate_sheet`]. Partner events reuse this.
pub fn validate_breakdown(path: &str, vp: i64, breakdown: &RawBreakdown) -> Vec<Violation> {
    let mut violations = Vec::new();
    let mut check_count = |name: &str, label: &str, value: i64, max: i64| {
        let in_range = (0..=max).contains(&value);
        if !in_range {
            violations.push(Violation::new(
                format!("{path}.breakdown.{name}"),
                codes::OUT_OF_RANGE,
                format!("A player has between 0 and {max} {label}, not {value}."),
            ));
        }
        in_range
    };
    let settlements_valid = check_count(
        "settlements",
        "settlements",
        breakdown.settlements,
        MAX_SETTLEMENTS,
    );
    let cities_valid = check_count("cities", "cities", breakdown.cities, MAX_CITIES);
    let vp_cards_valid = check_count("vp_cards", "VP cards", breakdown.vp_cards, VP_CARDS_IN_DECK);

    // Sums of out-of-range numbers would only repeat the range violations above.
    if settlements_valid && cities_valid {
        let buildings = breakdown.settlements + breakdown.cities;
        if buildings < MIN_BUILDINGS {
            violations.push(Violation::new(
                format!("{path}.breakdown"),
                codes::TOO_FEW_BUILDINGS,
                format!(
                    "A player keeps at least {MIN_BUILDINGS} settlements or cities, not {buildings}."
                ),
            ));
        }
        if vp_cards_valid {
            let total = breakdown_vp(breakdown);
            if total != vp {
                violations.push(Violation::new(
                    format!("{path}.breakdown"),
                    codes::BREAKDOWN_SUM_MISMATCH,
                    format!("The breakdown adds up to {total} VP, but the score says {vp}."),
                ));
            }
        }
    }
    violations
}

/// The VP a breakdown is worth: 1 per settlement, 2 per city, 1 per VP card, 2 per special card.
fn breakdown_vp(breakdown: &RawBreakdown) -> i64 {
    let special_cards = i64::from(breakdown.longest_road) + i64::from(breakdown.largest_army);
    breakdown.settlements
        + 2 * breakdown.cities
        + breakdown.vp_cards
        + SPECIAL_CARD_VP * special_cards
}

fn score_path(index: usize) -> String {
    format!("scores[{index}]")
}

fn check_outcome(sheet: &RawSheet, seated: &[PlayerId], stage: Stage) -> Vec<Violation> {
    let mut violations = Vec::new();
    if stage == Stage::Final && sheet.outcome == OutcomeKind::TimeLimit {
        violations.push(Violation::new(
            "outcome",
            codes::FINAL_AT_TIME_LIMIT,
            "A final is played until someone wins; it cannot end at the time limit.",
        ));
    }
    match (sheet.outcome, sheet.winner) {
        (OutcomeKind::Won, None) => violations.push(Violation::new(
            "winner_player_id",
            codes::WINNER_MISSING,
            "A won game must name its winner.",
        )),
        (OutcomeKind::Won, Some(winner)) if !seated.contains(&winner) => {
            violations.push(Violation::new(
                "winner_player_id",
                codes::WINNER_NOT_SEATED,
                format!("The winner {winner} is not seated at this table."),
            ));
        }
        (OutcomeKind::Won, Some(winner)) => {
            let winner_vp = sheet.scores.iter().find(|score| score.player == winner);
            if let Some(score) = winner_vp
                && score.vp < i64::from(WINNING_VP)
            {
                violations.push(Violation::new(
                    "winner_player_id",
                    codes::WINNER_BELOW_TEN,
                    format!(
                        "The winner needs at least {WINNING_VP} VP, but {winner} has {}.",
                        score.vp
                    ),
                ));
            }
        }
        (OutcomeKind::TimeLimit, Some(_)) => violations.push(Violation::new(
            "winner_player_id",
            codes::WINNER_AT_TIME_LIMIT,
            "A game stopped at the time limit has no winner.",
        )),
        (OutcomeKind::TimeLimit, None) => {}
    }
    violations
}

/// The player of score `index` must be seated and not already have a score earlier on the sheet.
fn check_seat(sheet: &RawSheet, seated: &[PlayerId], index: usize) -> Option<Violation> {
    let player = sheet.scores[index].player;
    let field = format!("{}.player_id", score_path(index));
    if !seated.contains(&player) {
        Some(Violation::new(
            field,
            codes::UNKNOWN_PLAYER,
            format!("Player {player} is not seated at this table."),
        ))
    } else if sheet.scores[..index]
        .iter()
        .any(|earlier| earlier.player == player)
    {
        Some(Violation::new(
            field,
            codes::DUPLICATE_PLAYER,
            format!("Player {player} already has a score on this sheet."),
        ))
    } else {
        None
    }
}

fn check_missing_players(sheet: &RawSheet, seated: &[PlayerId]) -> Vec<Violation> {
    seated
        .iter()
        .enumerate()
        // A seat listed twice is still one player.
        .filter(|&(seat, player)| !seated[..seat].contains(player))
        .filter(|&(_, player)| !sheet.scores.iter().any(|score| score.player == *player))
        .map(|(_, player)| {
            Violation::new(
                "scores",
                codes::MISSING_PLAYER,
                format!("Player {player} is seated at this table but has no score."),
            )
        })
        .collect()
}

/// VP cards come from one deck, and the longest road and largest army have one holder each.
fn check_shared_cards(scores: &[RawScore]) -> Vec<Violation> {
    let breakdowns = || {
        scores
            .iter()
            .enumerate()
            .filter_map(|(index, score)| score.breakdown.as_ref().map(|b| (index, b)))
    };
    let mut violations = Vec::new();

    // Counts out of range are reported on their own field and left out of the table's sum.
    let vp_cards: i64 = breakdowns()
        .map(|(_, breakdown)| breakdown.vp_cards)
        .filter(|cards| (0..=VP_CARDS_IN_DECK).contains(cards))
        .sum();
    if vp_cards > VP_CARDS_IN_DECK {
        violations.push(Violation::new(
            "scores",
            codes::TOO_MANY_VP_CARDS,
            format!("The deck holds {VP_CARDS_IN_DECK} VP cards, but the table claims {vp_cards}."),
        ));
    }

    let holders = |holds: fn(&RawBreakdown) -> bool| -> Vec<String> {
        breakdowns()
            .filter(|(_, breakdown)| holds(breakdown))
            .map(|(index, _)| score_path(index))
            .collect()
    };
    let road_holders = holders(|breakdown| breakdown.longest_road);
    if road_holders.len() > 1 {
        violations.push(Violation::new(
            "scores",
            codes::MULTIPLE_LONGEST_ROAD_HOLDERS,
            format!(
                "Only one player holds the longest road, but {} claim it.",
                road_holders.join(", ")
            ),
        ));
    }
    let army_holders = holders(|breakdown| breakdown.largest_army);
    if army_holders.len() > 1 {
        violations.push(Violation::new(
            "scores",
            codes::MULTIPLE_LARGEST_ARMY_HOLDERS,
            format!(
                "Only one player holds the largest army, but {} claim it.",
                army_holders.join(", ")
            ),
        ));
    }
    violations
}

/// Converts a sheet that passed every check.
fn to_table_result(sheet: &RawSheet) -> TableResult {
    let checked = |value: i64| u8::try_from(value).expect("ranges are checked before conversion");
    let winner = match sheet.outcome {
        OutcomeKind::Won => sheet.winner,
        OutcomeKind::TimeLimit => None,
    };
    let scores = sheet
        .scores
        .iter()
        .map(|score| {
            let vp = checked(score.vp);
            Score {
                player: score.player,
                vp,
                credited_vp: credited_vp(vp, winner == Some(score.player)),
                breakdown: score.breakdown.as_ref().map(|breakdown| Breakdown {
                    settlements: checked(breakdown.settlements),
                    cities: checked(breakdown.cities),
                    vp_cards: checked(breakdown.vp_cards),
                    longest_road: breakdown.longest_road,
                    largest_army: breakdown.largest_army,
                }),
            }
        })
        .collect();
    TableResult { winner, scores }
}

/// Generators of valid sheets, shared with the standings and playoff tests.
#[cfg(test)]
pub(crate) mod strategies {
    use proptest::collection::{btree_set, vec};
    use proptest::prelude::*;

    use super::*;

    /// A sheet that must validate, with the table and stage it belongs to.
    #[derive(Debug, Clone)]
    pub(crate) struct ValidSheet {
        pub sheet: RawSheet,
        pub seated: Vec<PlayerId>,
        pub stage: Stage,
    }

    pub(crate) fn player_id() -> impl Strategy<Value = PlayerId> {
        any::<u128>().prop_map(PlayerId::from_u128)
    }

    /// `count` distinct players, in a random order.
    pub(crate) fn distinct_players(count: usize) -> impl Strategy<Value = Vec<PlayerId>> {
        btree_set(player_id(), count)
            .prop_flat_map(|set| Just(set.into_iter().collect()).prop_shuffle())
    }

    pub(crate) fn stage() -> impl Strategy<Value = Stage> {
        prop_oneof![
            Just(Stage::Qualifying),
            Just(Stage::Semifinal),
            Just(Stage::Final)
        ]
    }

    /// A valid sheet of a 3- or 4-player table at any stage.
    pub(crate) fn valid_sheet() -> impl Strategy<Value = ValidSheet> {
        (3usize..=4, stage())
            .prop_flat_map(|(size, stage)| (distinct_players(size), Just(stage)))
            .prop_flat_map(|(players, stage)| valid_sheet_for(players, stage))
    }

    /// A valid sheet for these players: real breakdowns (some withheld from the sheet), the
    /// shared cards given to at most one player each, and a winner with at least 10 VP.
    pub(crate) fn valid_sheet_for(
        players: Vec<PlayerId>,
        stage: Stage,
    ) -> impl Strategy<Value = ValidSheet> {
        let size = players.len();
        let outcome = if stage == Stage::Final {
            Just(OutcomeKind::Won).boxed()
        } else {
            prop_oneof![Just(OutcomeKind::Won), Just(OutcomeKind::TimeLimit)].boxed()
        };
        (
            vec((0..=MAX_SETTLEMENTS, 0..=MAX_CITIES), size),
            vec(0..size, 0..=VP_CARDS_IN_DECK as usize),
            proptest::option::of(0..size),
            proptest::option::of(0..size),
            vec(any::<bool>(), size),
            outcome,
            0..size,
            Just(players.clone()).prop_shuffle(),
        )
            .prop_map(
                move |(
                    buildings,
                    vp_card_owners,
                    road_holder,
                    army_holder,
                    breakdown_shown,
                    outcome,
                    winner_index,
                    seated,
                )| {
                    let winner_index = (outcome == OutcomeKind::Won).then_some(winner_index);
                    let scores = players
                        .iter()
                        .enumerate()
                        .map(|(index, &player)| {
                            let (settlements, cities) = buildings[index];
                            let mut breakdown = RawBreakdown {
                                // Nobody loses the two settlements of the set-up.
                                settlements: settlements.max(MIN_BUILDINGS - cities),
                                cities,
                                vp_cards: vp_card_owners.iter().filter(|&&o| o == index).count()
                                    as i64,
                                longest_road: road_holder == Some(index),
                                largest_army: army_holder == Some(index),
                            };
                            // The winner builds on until he reaches 10: a settlement while he
                            // has one left, otherwise a city in place of a settlement.
                            while winner_index == Some(index)
                                && breakdown_vp(&breakdown) < i64::from(WINNING_VP)
                            {
                                if breakdown.settlements < MAX_SETTLEMENTS {
                                    breakdown.settlements += 1;
                                } else {
                                    breakdown.settlements -= 1;
                                    breakdown.cities += 1;
                                }
                            }
                            RawScore {
                                player,
                                vp: breakdown_vp(&breakdown),
                                breakdown: breakdown_shown[index].then_some(breakdown),
                            }
                        })
                        .collect();
                    ValidSheet {
                        sheet: RawSheet {
                            outcome,
                            winner: winner_index.map(|index| players[index]),
                            scores,
                        },
                        seated,
                        stage,
                    }
                },
            )
    }

    /// The validated result of a valid sheet for these players.
    pub(crate) fn table_result_for(
        players: Vec<PlayerId>,
        stage: Stage,
    ) -> impl Strategy<Value = TableResult> {
        valid_sheet_for(players, stage).prop_map(|valid| {
            validate_sheet(&valid.sheet, &valid.seated, valid.stage)
                .expect("generated sheets are valid")
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::strategies::{ValidSheet, valid_sheet};
    use super::*;

    fn players(count: u128) -> Vec<PlayerId> {
        (1..=count).map(PlayerId::from_u128).collect()
    }

    fn score(player: PlayerId, vp: i64) -> RawScore {
        RawScore {
            player,
            vp,
            breakdown: None,
        }
    }

    fn breakdown(settlements: i64, cities: i64, vp_cards: i64) -> RawBreakdown {
        RawBreakdown {
            settlements,
            cities,
            vp_cards,
            longest_road: false,
            largest_army: false,
        }
    }

    fn with_breakdown(player: PlayerId, breakdown: RawBreakdown) -> RawScore {
        RawScore {
            player,
            vp: breakdown_vp(&breakdown),
            breakdown: Some(breakdown),
        }
    }

    fn won_by(winner: PlayerId, scores: Vec<RawScore>) -> RawSheet {
        RawSheet {
            outcome: OutcomeKind::Won,
            winner: Some(winner),
            scores,
        }
    }

    fn at_time_limit(scores: Vec<RawScore>) -> RawSheet {
        RawSheet {
            outcome: OutcomeKind::TimeLimit,
            winner: None,
            scores,
        }
    }

    /// A four-player table won by the first player with `vps` as everyone's VP.
    fn won_sheet(table: &[PlayerId], vps: [i64; 4]) -> RawSheet {
        won_by(
            table[0],
            table.iter().zip(vps).map(|(&p, vp)| score(p, vp)).collect(),
        )
    }

    fn violations_of(
        sheet: &RawSheet,
        seated: &[PlayerId],
        stage: Stage,
    ) -> Vec<(String, &'static str)> {
        validate_sheet(sheet, seated, stage)
            .expect_err("the sheet should be rejected")
            .into_iter()
            .map(|violation| (violation.field, violation.code))
            .collect()
    }

    fn only(field: &str, code: &'static str) -> Vec<(String, &'static str)> {
        vec![(field.to_string(), code)]
    }

    #[test]
    fn winner_is_credited_ten_and_everyone_else_at_most_nine() {
        let table = players(4);
        // The second player reached 11 on the winner's turn (a longest road changing hands),
        // which does not make him a winner.
        let result = validate_sheet(
            &won_sheet(&table, [12, 11, 9, 4]),
            &table,
            Stage::Qualifying,
        )
        .unwrap();
        let credited: Vec<u8> = result.scores.iter().map(|s| s.credited_vp).collect();
        let actual: Vec<u8> = result.scores.iter().map(|s| s.vp).collect();
        assert_eq!(credited, [10, 9, 9, 4]);
        assert_eq!(actual, [12, 11, 9, 4]);
        assert_eq!(result.winner, Some(table[0]));
        assert_eq!(result.outcome(), OutcomeKind::Won);
    }

    #[test]
    fn time_limit_credits_everyone_at_most_nine_and_names_no_winner() {
        let table = players(3);
        let sheet = at_time_limit(vec![
            score(table[0], 11),
            score(table[1], 9),
            score(table[2], 3),
        ]);
        let result = validate_sheet(&sheet, &table, Stage::Semifinal).unwrap();
        let credited: Vec<u8> = result.scores.iter().map(|s| s.credited_vp).collect();
        assert_eq!(credited, [9, 9, 3]);
        assert_eq!(result.winner, None);
        assert_eq!(result.outcome(), OutcomeKind::TimeLimit);
    }

    #[test]
    fn credited_vp_caps_non_winners_at_nine_and_gives_winners_ten() {
        assert_eq!(credited_vp(13, true), 10);
        assert_eq!(credited_vp(10, true), 10);
        assert_eq!(credited_vp(13, false), 9);
        assert_eq!(credited_vp(9, false), 9);
        assert_eq!(credited_vp(4, false), 4);
    }

    #[test]
    fn scores_keep_the_submitted_order_whatever_the_seating_order() {
        let table = players(4);
        let seated = [table[2], table[0], table[3], table[1]];
        let result = validate_sheet(
            &won_sheet(&table, [10, 5, 6, 7]),
            &seated,
            Stage::Qualifying,
        )
        .unwrap();
        let order: Vec<PlayerId> = result.scores.iter().map(|s| s.player).collect();
        assert_eq!(order, table);
        assert_eq!(result.score_of(table[3]).map(|s| s.vp), Some(7));
        assert_eq!(result.score_of(PlayerId::from_u128(99)), None);
    }

    #[test]
    fn unknown_player_is_reported_on_its_player_id_and_the_seat_left_empty() {
        let table = players(4);
        let mut sheet = won_sheet(&table, [10, 5, 6, 7]);
        sheet.scores[2].player = PlayerId::from_u128(99);
        assert_eq!(
            violations_of(&sheet, &table, Stage::Qualifying),
            [
                ("scores[2].player_id".to_string(), codes::UNKNOWN_PLAYER),
                ("scores".to_string(), codes::MISSING_PLAYER),
            ]
        );
    }

    #[test]
    fn duplicate_player_is_reported_on_the_second_score() {
        let table = players(4);
        let mut sheet = won_sheet(&table, [10, 5, 6, 7]);
        sheet.scores[3].player = table[1];
        assert_eq!(
            violations_of(&sheet, &table, Stage::Qualifying),
            [
                ("scores[3].player_id".to_string(), codes::DUPLICATE_PLAYER),
                ("scores".to_string(), codes::MISSING_PLAYER),
            ]
        );
    }

    #[test]
    fn each_missing_seated_player_is_reported_on_scores() {
        let table = players(4);
        let mut sheet = won_sheet(&table, [10, 5, 6, 7]);
        sheet.scores.truncate(2);
        let violations = validate_sheet(&sheet, &table, Stage::Qualifying).unwrap_err();
        assert_eq!(violations.len(), 2);
        for (violation, missing) in violations.iter().zip(&table[2..]) {
            assert_eq!(
                (violation.field.as_str(), violation.code),
                ("scores", codes::MISSING_PLAYER)
            );
            assert!(violation.message.contains(&missing.to_string()));
        }
    }

    #[test]
    fn vp_must_be_between_two_and_twenty_two() {
        let table = players(4);
        assert!(
            validate_sheet(&won_sheet(&table, [22, 2, 2, 9]), &table, Stage::Qualifying).is_ok()
        );
        for bad in [1, 23, -4] {
            let sheet = won_sheet(&table, [10, bad, 2, 9]);
            assert_eq!(
                violations_of(&sheet, &table, Stage::Qualifying),
                only("scores[1].vp", codes::OUT_OF_RANGE),
                "vp {bad}"
            );
        }
    }

    #[test]
    fn won_game_must_name_a_seated_winner_with_at_least_ten() {
        let table = players(4);
        let mut sheet = won_sheet(&table, [10, 5, 6, 7]);
        sheet.winner = None;
        assert_eq!(
            violations_of(&sheet, &table, Stage::Qualifying),
            only("winner_player_id", codes::WINNER_MISSING)
        );
        sheet.winner = Some(PlayerId::from_u128(99));
        assert_eq!(
            violations_of(&sheet, &table, Stage::Qualifying),
            only("winner_player_id", codes::WINNER_NOT_SEATED)
        );
        sheet.winner = Some(table[3]);
        assert_eq!(
            violations_of(&sheet, &table, Stage::Qualifying),
            only("winner_player_id", codes::WINNER_BELOW_TEN)
        );
    }

    #[test]
    fn time_limit_must_name_no_winner() {
        let table = players(4);
        let mut sheet = won_sheet(&table, [10, 5, 6, 7]);
        sheet.outcome = OutcomeKind::TimeLimit;
        assert_eq!(
            violations_of(&sheet, &table, Stage::Qualifying),
            only("winner_player_id", codes::WINNER_AT_TIME_LIMIT)
        );
    }

    #[test]
    fn only_the_final_cannot_end_at_the_time_limit() {
        let table = players(4);
        let sheet = at_time_limit(table.iter().map(|&p| score(p, 8)).collect());
        assert!(validate_sheet(&sheet, &table, Stage::Qualifying).is_ok());
        assert!(validate_sheet(&sheet, &table, Stage::Semifinal).is_ok());
        assert_eq!(
            violations_of(&sheet, &table, Stage::Final),
            only("outcome", codes::FINAL_AT_TIME_LIMIT)
        );
    }

    #[test]
    fn every_violation_is_reported_at_once() {
        let table = players(4);
        let sheet = RawSheet {
            outcome: OutcomeKind::TimeLimit,
            winner: Some(table[0]),
            scores: vec![
                score(table[0], 30),
                score(PlayerId::from_u128(99), 5),
                RawScore {
                    player: table[2],
                    vp: 6,
                    breakdown: Some(breakdown(9, 0, 0)),
                },
                score(table[2], 1),
            ],
        };
        assert_eq!(
            violations_of(&sheet, &table, Stage::Final),
            [
                ("outcome".to_string(), codes::FINAL_AT_TIME_LIMIT),
                ("winner_player_id".to_string(), codes::WINNER_AT_TIME_LIMIT),
                ("scores[0].vp".to_string(), codes::OUT_OF_RANGE),
                ("scores[1].player_id".to_string(), codes::UNKNOWN_PLAYER),
                (
                    "scores[2].breakdown.settlements".to_string(),
                    codes::OUT_OF_RANGE
                ),
                ("scores[3].player_id".to_string(), codes::DUPLICATE_PLAYER),
                ("scores[3].vp".to_string(), codes::OUT_OF_RANGE),
                ("scores".to_string(), codes::MISSING_PLAYER),
                ("scores".to_string(), codes::MISSING_PLAYER),
            ]
        );
    }

    #[test]
    fn breakdown_numbers_must_be_within_the_supply() {
        let most = RawBreakdown {
            settlements: 5,
            cities: 4,
            vp_cards: 5,
            longest_road: true,
            largest_army: true,
        };
        assert_eq!(validate_breakdown("scores[0]", 22, &most), []);
        let cases = [
            (breakdown(6, 2, 0), "settlements"),
            (breakdown(-1, 3, 0), "settlements"),
            (breakdown(2, 5, 0), "cities"),
            (breakdown(2, -1, 0), "cities"),
            (breakdown(2, 1, -1), "vp_cards"),
            (breakdown(2, 1, 6), "vp_cards"),
        ];
        for (bad, name) in cases {
            let fields: Vec<(String, &str)> = validate_breakdown("scores[3]", 5, &bad)
                .into_iter()
                .map(|v| (v.field, v.code))
                .collect();
            assert_eq!(
                fields,
                only(&format!("scores[3].breakdown.{name}"), codes::OUT_OF_RANGE)
            );
        }
    }

    #[test]
    fn breakdown_keeps_at_least_two_buildings() {
        assert_eq!(validate_breakdown("scores[0]", 2, &breakdown(2, 0, 0)), []);
        assert_eq!(validate_breakdown("scores[0]", 3, &breakdown(1, 1, 0)), []);
        assert_eq!(validate_breakdown("scores[0]", 4, &breakdown(0, 2, 0)), []);
        // Both make 2 VP, yet a lone city or settlement cannot be all a player has.
        for too_few in [breakdown(0, 1, 0), breakdown(1, 0, 1)] {
            let found: Vec<(String, &str)> = validate_breakdown("scores[1]", 2, &too_few)
                .into_iter()
                .map(|v| (v.field, v.code))
                .collect();
            assert_eq!(found, only("scores[1].breakdown", codes::TOO_FEW_BUILDINGS));
        }
    }

    #[test]
    fn breakdown_must_add_up_to_the_vp() {
        let with_cards = RawBreakdown {
            settlements: 3,
            cities: 2,
            vp_cards: 1,
            longest_road: true,
            largest_army: false,
        };
        // 3 + 2*2 + 1 + 2 = 10
        assert_eq!(validate_breakdown("scores[0]", 10, &with_cards), []);
        for wrong in [9, 11, 12] {
            let found = validate_breakdown("scores[0]", wrong, &with_cards);
            assert_eq!(found.len(), 1);
            assert_eq!(
                (found[0].field.as_str(), found[0].code),
                ("scores[0].breakdown", codes::BREAKDOWN_SUM_MISMATCH)
            );
        }
        let army = RawBreakdown {
            largest_army: true,
            ..with_cards
        };
        assert_eq!(validate_breakdown("scores[0]", 12, &army), []);
    }

    #[test]
    fn breakdown_is_optional_for_each_player() {
        let table = players(4);
        let sheet = won_by(
            table[0],
            vec![
                with_breakdown(table[0], breakdown(4, 3, 0)),
                score(table[1], 7),
                with_breakdown(table[2], breakdown(2, 1, 1)),
                score(table[3], 3),
            ],
        );
        let result = validate_sheet(&sheet, &table, Stage::Qualifying).unwrap();
        let shown: Vec<bool> = result
            .scores
            .iter()
            .map(|s| s.breakdown.is_some())
            .collect();
        assert_eq!(shown, [true, false, true, false]);
        assert_eq!(
            result.scores[2].breakdown,
            Some(Breakdown {
                settlements: 2,
                cities: 1,
                vp_cards: 1,
                longest_road: false,
                largest_army: false
            })
        );
    }

    #[test]
    fn the_table_shares_five_vp_cards() {
        let table = players(3);
        let sheet = |cards: [i64; 3]| {
            won_by(
                table[0],
                vec![
                    with_breakdown(table[0], breakdown(4, 3, cards[0])),
                    with_breakdown(table[1], breakdown(2, 0, cards[1])),
                    with_breakdown(table[2], breakdown(2, 0, cards[2])),
                ],
            )
        };
        assert!(validate_sheet(&sheet([1, 2, 2]), &table, Stage::Qualifying).is_ok());
        assert_eq!(
            violations_of(&sheet([2, 2, 2]), &table, Stage::Qualifying),
            only("scores", codes::TOO_MANY_VP_CARDS)
        );
    }

    #[test]
    fn longest_road_and_largest_army_have_one_holder_each() {
        let table = players(3);
        let holding = |road: bool, army: bool| {
            with_breakdown(
                table[1],
                RawBreakdown {
                    longest_road: road,
                    largest_army: army,
                    ..breakdown(2, 1, 0)
                },
            )
        };
        let sheet = |second: RawScore, third: RawScore| {
            won_by(
                table[0],
                vec![
                    with_breakdown(table[0], breakdown(4, 3, 0)),
                    second,
                    RawScore {
                        player: table[2],
                        ..third
                    },
                ],
            )
        };
        let valid = sheet(holding(true, false), holding(false, true));
        assert!(validate_sheet(&valid, &table, Stage::Qualifying).is_ok());
        assert_eq!(
            violations_of(
                &sheet(holding(true, false), holding(true, false)),
                &table,
                Stage::Qualifying
            ),
            only("scores", codes::MULTIPLE_LONGEST_ROAD_HOLDERS)
        );
        assert_eq!(
            violations_of(
                &sheet(holding(false, true), holding(false, true)),
                &table,
                Stage::Qualifying
            ),
            only("scores", codes::MULTIPLE_LARGEST_ARMY_HOLDERS)
        );
    }

    #[test]
    fn violations_serialize_with_field_code_and_message() {
        let table = players(4);
        let mut sheet = won_sheet(&table, [10, 5, 6, 7]);
        sheet.scores[1].vp = 40;
        let violations = validate_sheet(&sheet, &table, Stage::Qualifying).unwrap_err();
        let json = serde_json::to_value(&violations).unwrap();
        assert_eq!(json[0]["field"], "scores[1].vp");
        assert_eq!(json[0]["code"], "out_of_range");
        assert!(json[0]["message"].as_str().unwrap().contains("40"));
    }

    #[test]
    fn stage_and_outcome_serialize_in_snake_case() {
        assert_eq!(serde_json::to_value(Stage::Semifinal).unwrap(), "semifinal");
        assert_eq!(
            serde_json::to_value(OutcomeKind::TimeLimit).unwrap(),
            "time_limit"
        );
        let parsed: Stage = serde_json::from_value("final".into()).unwrap();
        assert_eq!(parsed, Stage::Final);
    }

    /// One way to break a valid sheet, and the violation it must produce.
    #[derive(Debug, Clone)]
    enum Corruption {
        UnknownPlayer(usize),
        DuplicatePlayer(usize),
        DropScore(usize),
        VpOutOfRange(usize, i64),
        FlipOutcome,
        StrangerWins,
        WinnerBelowTen(usize, i64),
        FinalAtTimeLimit,
        Settlements(usize, i64),
        Cities(usize, i64),
        VpCards(usize, i64),
        TooFewBuildings(usize),
        BreakdownOffByOne(usize),
        SecondRoadHolder,
        SecondArmyHolder,
        TooManyVpCards(usize),
    }

    fn corruption() -> impl Strategy<Value = Corruption> {
        use Corruption::*;
        let index = || 0usize..4;
        let outside = |low: i64, high: i64| prop_oneof![-3..low, (high + 1)..(high + 5)];
        prop_oneof![
            index().prop_map(UnknownPlayer),
            index().prop_map(DuplicatePlayer),
            index().prop_map(DropScore),
            (index(), outside(MIN_VP, MAX_VP)).prop_map(|(i, vp)| VpOutOfRange(i, vp)),
            Just(FlipOutcome),
            Just(StrangerWins),
            (index(), MIN_VP..i64::from(WINNING_VP)).prop_map(|(i, vp)| WinnerBelowTen(i, vp)),
            Just(FinalAtTimeLimit),
            (index(), outside(0, MAX_SETTLEMENTS)).prop_map(|(i, n)| Settlements(i, n)),
            (index(), outside(0, MAX_CITIES)).prop_map(|(i, n)| Cities(i, n)),
            (index(), outside(0, VP_CARDS_IN_DECK)).prop_map(|(i, n)| VpCards(i, n)),
            index().prop_map(TooFewBuildings),
            index().prop_map(BreakdownOffByOne),
            Just(SecondRoadHolder),
            Just(SecondArmyHolder),
            index().prop_map(TooManyVpCards),
        ]
    }

    /// The breakdown of score `index`, made up (consistent with nothing) if the sheet had none.
    fn breakdown_of(sheet: &mut RawSheet, index: usize) -> &mut RawBreakdown {
        sheet.scores[index]
            .breakdown
            .get_or_insert_with(|| breakdown(2, 0, 0))
    }

    /// Applies the corruption and returns the (field, code) that must then be among the violations.
    fn corrupt(valid: &mut ValidSheet, corruption: &Corruption) -> (String, &'static str) {
        use Corruption::*;
        let size = valid.sheet.scores.len();
        let sheet = &mut valid.sheet;
        let path = |index: usize| score_path(index);
        match *corruption {
            UnknownPlayer(i) => {
                let i = i % size;
                sheet.scores[i].player = PlayerId::from_u128(u128::MAX);
                (format!("{}.player_id", path(i)), codes::UNKNOWN_PLAYER)
            }
            DuplicatePlayer(i) => {
                let (first, second) = (i % size, (i + 1) % size);
                sheet.scores[second].player = sheet.scores[first].player;
                (
                    format!("{}.player_id", path(first.max(second))),
                    codes::DUPLICATE_PLAYER,
                )
            }
            DropScore(i) => {
                sheet.scores.remove(i % size);
                ("scores".into(), codes::MISSING_PLAYER)
            }
            VpOutOfRange(i, vp) => {
                sheet.scores[i % size].vp = vp;
                (format!("{}.vp", path(i % size)), codes::OUT_OF_RANGE)
            }
            FlipOutcome => match sheet.outcome {
                OutcomeKind::Won => {
                    sheet.outcome = OutcomeKind::TimeLimit;
                    ("winner_player_id".into(), codes::WINNER_AT_TIME_LIMIT)
                }
                OutcomeKind::TimeLimit => {
                    sheet.outcome = OutcomeKind::Won;
                    ("winner_player_id".into(), codes::WINNER_MISSING)
                }
            },
            StrangerWins => {
                sheet.outcome = OutcomeKind::Won;
                sheet.winner = Some(PlayerId::from_u128(u128::MAX));
                ("winner_player_id".into(), codes::WINNER_NOT_SEATED)
            }
            WinnerBelowTen(i, vp) => {
                let i = i % size;
                sheet.outcome = OutcomeKind::Won;
                sheet.winner = Some(sheet.scores[i].player);
                sheet.scores[i].vp = vp;
                ("winner_player_id".into(), codes::WINNER_BELOW_TEN)
            }
            FinalAtTimeLimit => {
                valid.stage = Stage::Final;
                sheet.outcome = OutcomeKind::TimeLimit;
                sheet.winner = None;
                ("outcome".into(), codes::FINAL_AT_TIME_LIMIT)
            }
            Settlements(i, n) => {
                breakdown_of(sheet, i % size).settlements = n;
                (
                    format!("{}.breakdown.settlements", path(i % size)),
                    codes::OUT_OF_RANGE,
                )
            }
            Cities(i, n) => {
                breakdown_of(sheet, i % size).cities = n;
                (
                    format!("{}.breakdown.cities", path(i % size)),
                    codes::OUT_OF_RANGE,
                )
            }
            VpCards(i, n) => {
                breakdown_of(sheet, i % size).vp_cards = n;
                (
                    format!("{}.breakdown.vp_cards", path(i % size)),
                    codes::OUT_OF_RANGE,
                )
            }
            TooFewBuildings(i) => {
                let breakdown = breakdown_of(sheet, i % size);
                (breakdown.settlements, breakdown.cities) = (1, 0);
                (
                    format!("{}.breakdown", path(i % size)),
                    codes::TOO_FEW_BUILDINGS,
                )
            }
            BreakdownOffByOne(i) => {
                let score = &mut sheet.scores[i % size];
                match &score.breakdown {
                    Some(_) if score.vp < MAX_VP => score.vp += 1,
                    Some(_) => score.vp -= 1,
                    None => {
                        score.breakdown = Some(breakdown(2, 0, 0));
                        score.vp = 3;
                    }
                }
                (
                    format!("{}.breakdown", path(i % size)),
                    codes::BREAKDOWN_SUM_MISMATCH,
                )
            }
            SecondRoadHolder => {
                breakdown_of(sheet, 0).longest_road = true;
                breakdown_of(sheet, 1).longest_road = true;
                ("scores".into(), codes::MULTIPLE_LONGEST_ROAD_HOLDERS)
            }
            SecondArmyHolder => {
                breakdown_of(sheet, 0).largest_army = true;
                breakdown_of(sheet, 1).largest_army = true;
                ("scores".into(), codes::MULTIPLE_LARGEST_ARMY_HOLDERS)
            }
            TooManyVpCards(i) => {
                let (first, second) = (i % size, (i + 1) % size);
                breakdown_of(sheet, first).vp_cards = VP_CARDS_IN_DECK;
                let other = breakdown_of(sheet, second);
                other.vp_cards = other.vp_cards.max(1);
                ("scores".into(), codes::TOO_MANY_VP_CARDS)
            }
        }
    }

    proptest! {
        #[test]
        fn valid_sheets_validate_and_credit_at_most_ten(valid in valid_sheet()) {
            let result = validate_sheet(&valid.sheet, &valid.seated, valid.stage);
            prop_assert!(result.is_ok(), "{:?}", result);
            let result = result.unwrap();
            prop_assert_eq!(result.outcome(), valid.sheet.outcome);
            prop_assert_eq!(result.scores.len(), valid.sheet.scores.len());
            for (score, raw) in result.scores.iter().zip(&valid.sheet.scores) {
                prop_assert_eq!(score.player, raw.player);
                prop_assert_eq!(i64::from(score.vp), raw.vp);
                prop_assert!(score.credited_vp <= WINNING_VP);
                if Some(score.player) != result.winner {
                    prop_assert_eq!(score.credited_vp, score.vp.min(MAX_CREDIT_WITHOUT_WIN));
                }
            }
            let tens: Vec<PlayerId> = result
                .scores
                .iter()
                .filter(|s| s.credited_vp == WINNING_VP)
                .map(|s| s.player)
                .collect();
            match result.winner {
                Some(winner) => prop_assert_eq!(tens, vec![winner]),
                None => prop_assert!(tens.is_empty()),
            }
        }

        #[test]
        fn any_single_corruption_of_a_valid_sheet_is_rejected(
            mut valid in valid_sheet(),
            corruption in corruption(),
        ) {
            let expected = corrupt(&mut valid, &corruption);
            let violations = validate_sheet(&valid.sheet, &valid.seated, valid.stage)
                .expect_err("a corrupted sheet must be rejected");
            prop_assert!(
                violations.iter().any(|v| (v.field.as_str(), v.code) == (expected.0.as_str(), expected.1)),
                "expected {:?} among {:?}", expected, violations
            );
        }
    }
}
