//! Tests of the results sheet: validation, violations and credited VP.

use proptest::prelude::*;

use super::strategies::{ValidSheet, valid_sheet};
use super::validate::{breakdown_vp, score_path};
use super::*;
use crate::PlayerId;

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

fn violations_of(sheet: &RawSheet, seated: &[PlayerId], stage: Stage) -> Vec<(String, RuleCode)> {
    validate_sheet(sheet, seated, stage)
        .expect_err("the sheet should be rejected")
        .into_iter()
        .map(|violation| (violation.field, violation.code))
        .collect()
}

/// The violations of a qualifying game's sheet.
fn rejected(sheet: &RawSheet, seated: &[PlayerId]) -> Vec<(String, RuleCode)> {
    violations_of(sheet, seated, Stage::Qualifying)
}

/// The result of a qualifying game's sheet that must validate.
fn accepted(sheet: &RawSheet, seated: &[PlayerId]) -> TableResult {
    validate_sheet(sheet, seated, Stage::Qualifying).expect("the sheet should validate")
}

fn only(field: &str, code: RuleCode) -> Vec<(String, RuleCode)> {
    vec![(field.to_string(), code)]
}

/// The violations of a four-player sheet once its score `index` names `player` instead.
fn with_player_at(index: usize, player: PlayerId) -> Vec<(String, RuleCode)> {
    let table = players(4);
    let mut sheet = won_sheet(&table, [10, 5, 6, 7]);
    sheet.scores[index].player = player;
    rejected(&sheet, &table)
}

#[test]
fn winner_is_credited_ten_and_everyone_else_at_most_nine() {
    let table = players(4);
    // The second player reached 11 on the winner's turn (a longest road changing hands),
    // which does not make him a winner.
    let result = accepted(&won_sheet(&table, [12, 11, 9, 4]), &table);
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
    let result = accepted(&won_sheet(&table, [10, 5, 6, 7]), &seated);
    let order: Vec<PlayerId> = result.scores.iter().map(|s| s.player).collect();
    assert_eq!(order, table);
    assert_eq!(result.score_of(table[3]).map(|s| s.vp), Some(7));
    assert_eq!(result.score_of(PlayerId::from_u128(99)), None);
}

#[test]
fn unknown_player_is_reported_on_its_player_id_and_the_seat_left_empty() {
    assert_eq!(
        with_player_at(2, PlayerId::from_u128(99)),
        [
            ("scores[2].player_id".to_string(), codes::UNKNOWN_PLAYER),
            ("scores".to_string(), codes::MISSING_PLAYER),
        ]
    );
}

#[test]
fn duplicate_player_is_reported_on_the_second_score() {
    let second = players(4)[1];
    assert_eq!(
        with_player_at(3, second),
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
    assert!(validate_sheet(&won_sheet(&table, [22, 2, 2, 9]), &table, Stage::Qualifying).is_ok());
    for bad in [1, 23, -4] {
        let sheet = won_sheet(&table, [10, bad, 2, 9]);
        assert_eq!(
            rejected(&sheet, &table),
            only("scores[1].vp", codes::OUT_OF_RANGE),
            "vp {bad}"
        );
    }
}

#[test]
fn won_game_must_name_a_seated_winner_with_at_least_ten() {
    let table = players(4);
    let mut sheet = won_sheet(&table, [10, 5, 6, 7]);
    for (winner, code) in [
        (None, codes::WINNER_MISSING),
        (Some(PlayerId::from_u128(99)), codes::WINNER_NOT_SEATED),
        (Some(table[3]), codes::WINNER_BELOW_TEN),
    ] {
        sheet.winner = winner;
        assert_eq!(rejected(&sheet, &table), only("winner_player_id", code));
    }
}

#[test]
fn time_limit_must_name_no_winner() {
    let table = players(4);
    let mut sheet = won_sheet(&table, [10, 5, 6, 7]);
    sheet.outcome = OutcomeKind::TimeLimit;
    assert_eq!(
        rejected(&sheet, &table),
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
        let fields: Vec<(String, RuleCode)> = validate_breakdown("scores[3]", 5, &bad)
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
        let found: Vec<(String, RuleCode)> = validate_breakdown("scores[1]", 2, &too_few)
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
        rejected(&sheet([2, 2, 2]), &table),
        only("scores", codes::TOO_MANY_VP_CARDS)
    );
}

#[test]
fn longest_road_and_largest_army_have_one_holder_each() {
    let table = players(3);
    // Which of the longest road and the largest army a player holds.
    let (road, army) = ((true, false), (false, true));
    let holding = |(road, army): (bool, bool)| {
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
    let valid = sheet(holding(road), holding(army));
    assert!(validate_sheet(&valid, &table, Stage::Qualifying).is_ok());
    for (card, code) in [
        (road, codes::MULTIPLE_LONGEST_ROAD_HOLDERS),
        (army, codes::MULTIPLE_LARGEST_ARMY_HOLDERS),
    ] {
        let twice = sheet(holding(card), holding(card));
        assert_eq!(rejected(&twice, &table), only("scores", code));
    }
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
fn corrupt(valid: &mut ValidSheet, corruption: &Corruption) -> (String, RuleCode) {
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

#[test]
fn out_of_range_names_only_the_ranges_a_sheet_breaks_whatever_its_table() {
    let table = players(4);
    let mut sheet = won_sheet(&table, [10, 7, 5, 4]);
    // Rules that need the table (an unseated player, a winner below ten) are not ranges.
    sheet.scores[0].player = PlayerId::from_u128(99);
    sheet.winner = Some(PlayerId::from_u128(99));
    assert!(out_of_range(&sheet).is_empty());
    sheet.scores[1].vp = 23;
    sheet.scores[3] = with_breakdown(table[3], breakdown(6, 0, 0));
    let fields: Vec<(String, RuleCode)> = out_of_range(&sheet)
        .into_iter()
        .map(|v| (v.field, v.code))
        .collect();
    assert_eq!(
        fields,
        vec![
            ("scores[1].vp".to_string(), codes::OUT_OF_RANGE),
            (
                "scores[3].breakdown.settlements".to_string(),
                codes::OUT_OF_RANGE
            ),
        ]
    );
}
