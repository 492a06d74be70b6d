//! The checks of a results sheet, against the seated players and the base game's limits.

use super::credit::{TableResult, to_table_result};
use super::limits::{
    MAX_CITIES, MAX_SETTLEMENTS, MAX_VP, MIN_BUILDINGS, MIN_VP, SPECIAL_CARD_VP, VP_CARDS_IN_DECK,
    WINNING_VP,
};
use super::sheet::{OutcomeKind, RawBreakdown, RawScore, RawSheet, Stage};
use super::violation::{RuleCode, Violation, codes};
use crate::PlayerId;

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
    for index in 0..sheet.scores.len() {
        violations.extend(check_score(&sheet.scores, seated, index));
    }
    violations.extend(check_missing_players(sheet, seated));
    violations.extend(check_shared_cards(&sheet.scores));

    if violations.is_empty() {
        Ok(to_table_result(sheet))
    } else {
        Err(violations)
    }
}

/// The violations of the game's ranges alone (VP, breakdown counts) in a sheet, whatever table it
/// is for: what a contract can say of a sheet without its table, so what a batch refuses whole.
pub fn out_of_range(sheet: &RawSheet) -> Vec<Violation> {
    (0..sheet.scores.len())
        .flat_map(|index| check_score(&sheet.scores, &[], index))
        .filter(|violation| violation.code == codes::OUT_OF_RANGE)
        .collect()
}

/// Checks score `index` of a sheet on its own: its player is seated and has no earlier score, its
/// VP are within the game's range and its breakdown, if shown, is consistent. Partner events reuse
/// this.
pub(crate) fn check_score(
    scores: &[RawScore],
    seated: &[PlayerId],
    index: usize,
) -> Vec<Violation> {
    let score = &scores[index];
    let path = score_path(index);
    let mut violations: Vec<Violation> = check_seat(scores, seated, index).into_iter().collect();
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
    violations
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
pub(super) fn breakdown_vp(breakdown: &RawBreakdown) -> i64 {
    let special_cards = i64::from(breakdown.longest_road) + i64::from(breakdown.largest_army);
    breakdown.settlements
        + 2 * breakdown.cities
        + breakdown.vp_cards
        + SPECIAL_CARD_VP * special_cards
}

pub(super) fn score_path(index: usize) -> String {
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
fn check_seat(scores: &[RawScore], seated: &[PlayerId], index: usize) -> Option<Violation> {
    let player = scores[index].player;
    let field = format!("{}.player_id", score_path(index));
    if !seated.contains(&player) {
        Some(Violation::new(
            field,
            codes::UNKNOWN_PLAYER,
            format!("Player {player} is not seated at this table."),
        ))
    } else if scores[..index]
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

/// Whether a breakdown claims one of the cards only one player holds.
type Claims = fn(&RawBreakdown) -> bool;

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

    let holders = |holds: Claims| -> Vec<String> {
        breakdowns()
            .filter(|(_, breakdown)| holds(breakdown))
            .map(|(index, _)| score_path(index))
            .collect()
    };
    let one_holder_cards: [(&str, Claims, RuleCode); 2] = [
        (
            "the longest road",
            |breakdown| breakdown.longest_road,
            codes::MULTIPLE_LONGEST_ROAD_HOLDERS,
        ),
        (
            "the largest army",
            |breakdown| breakdown.largest_army,
            codes::MULTIPLE_LARGEST_ARMY_HOLDERS,
        ),
    ];
    for (card, holds, code) in one_holder_cards {
        let holders = holders(holds);
        if holders.len() > 1 {
            violations.push(Violation::new(
                "scores",
                code,
                format!(
                    "Only one player holds {card}, but {} claim it.",
                    holders.join(", ")
                ),
            ));
        }
    }
    violations
}
