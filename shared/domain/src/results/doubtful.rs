//! Sheets the game allows but that are rarely right: a player who did not win with 10 VP or more.
//!
//! The rules allow it (a player can reach 10 on another player's turn, tournament-rules-en,
//! clarification 8), but a non-winner typed at 10 beside a winner at 12 is far more often a typo,
//! and would be credited 9 without a word. Such a sheet is refused unless the tournament director
//! marks it as checked, with a reason the audit trail keeps.

use super::credit::credited_vp;
use super::limits::{MAX_VP, MIN_VP, WINNING_VP};
use super::sheet::{OutcomeKind, RawSheet};
use super::validate::score_path;
use super::violation::{Violation, codes};

/// The longest reason the director may give for a checked sheet, in characters.
pub const MAX_CHECKED_REASON_CHARS: usize = 500;

/// The VP each line of `sheet` would be credited, in the sheet's order (a VP outside the game's
/// range taken at its nearest bound).
pub fn credited_as_sent(sheet: &RawSheet) -> Vec<u8> {
    let winner = match sheet.outcome {
        OutcomeKind::Won => sheet.winner,
        OutcomeKind::TimeLimit => None,
    };
    sheet
        .scores
        .iter()
        .map(|score| {
            let vp = u8::try_from(score.vp.clamp(MIN_VP, MAX_VP)).unwrap_or(WINNING_VP);
            credited_vp(vp, winner == Some(score.player))
        })
        .collect()
}

/// The lines of `sheet` whose player did not win yet has 10 VP or more (up to the game's most:
/// more is out of range, reported on its own), each on its `scores[i].vp` with what every player
/// would be credited. None when the director checked the sheet (`checked_by_director`).
pub fn unchecked_non_winners(sheet: &RawSheet, checked_by_director: bool) -> Vec<Violation> {
    if checked_by_director {
        return Vec::new();
    }
    let winner = match sheet.outcome {
        OutcomeKind::Won => sheet.winner,
        OutcomeKind::TimeLimit => None,
    };
    let credited = credited_as_sent(sheet);
    let credited_list = credited
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    sheet
        .scores
        .iter()
        .enumerate()
        .filter(|(_, score)| {
            Some(score.player) != winner && (i64::from(WINNING_VP)..=MAX_VP).contains(&score.vp)
        })
        .map(|(index, score)| {
            Violation::new(
                format!("{}.vp", score_path(index)),
                codes::NON_WINNER_AT_TEN,
                format!(
                    "This player did not win but has {} VP, so would be credited {}; as sent, the \
                     sheet credits {credited_list} VP in its order. A player reaches 10 VP without \
                     winning only on another player's turn: correct the VP, or the tournament \
                     director marks the sheet as checked, with a reason.",
                    score.vp, credited[index]
                ),
            )
        })
        .collect()
}

/// The director's reason for a checked sheet, trimmed: 1 to 500 characters without control
/// characters, or `None`.
pub fn checked_reason(text: &str) -> Option<String> {
    let reason = text.trim();
    let fits = !reason.is_empty()
        && reason.chars().count() <= MAX_CHECKED_REASON_CHARS
        && !reason.chars().any(char::is_control);
    fits.then(|| reason.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlayerId;
    use crate::results::{RawScore, RuleCode, Stage, validate_sheet};

    fn sheet(outcome: OutcomeKind, vps: [i64; 4]) -> (RawSheet, Vec<PlayerId>) {
        let table: Vec<PlayerId> = (1..=4).map(PlayerId::from_u128).collect();
        let scores = table
            .iter()
            .zip(vps)
            .map(|(&player, vp)| RawScore {
                player,
                vp,
                breakdown: None,
            })
            .collect();
        let winner = (outcome == OutcomeKind::Won).then_some(table[0]);
        (
            RawSheet {
                outcome,
                winner,
                scores,
            },
            table,
        )
    }

    fn fields(violations: &[Violation]) -> Vec<(&str, RuleCode)> {
        violations
            .iter()
            .map(|v| (v.field.as_str(), v.code))
            .collect()
    }

    #[test]
    fn a_non_winner_typed_at_ten_beside_a_winner_at_twelve_is_refused_saying_what_each_is_credited()
    {
        let (sheet, table) = sheet(OutcomeKind::Won, [12, 10, 7, 5]);
        // The game allows it ...
        assert!(validate_sheet(&sheet, &table, Stage::Qualifying).is_ok());
        // ... but it is refused on the non-winner's VP, unless the director checked it.
        let refused = unchecked_non_winners(&sheet, false);
        assert_eq!(
            fields(&refused),
            [("scores[1].vp", codes::NON_WINNER_AT_TEN)]
        );
        assert!(
            refused[0].message.contains("credited 9"),
            "{}",
            refused[0].message
        );
        assert!(
            refused[0].message.contains("10, 9, 7, 5"),
            "{}",
            refused[0].message
        );
        assert!(unchecked_non_winners(&sheet, true).is_empty());
    }

    #[test]
    fn every_non_winner_at_ten_or_more_is_named_and_nine_is_not() {
        let (sheet, _) = sheet(OutcomeKind::Won, [13, 11, 10, 9]);
        assert_eq!(
            fields(&unchecked_non_winners(&sheet, false)),
            [
                ("scores[1].vp", codes::NON_WINNER_AT_TEN),
                ("scores[2].vp", codes::NON_WINNER_AT_TEN)
            ]
        );
        let (sheet, _) = sheet_of_nine();
        assert!(unchecked_non_winners(&sheet, false).is_empty());
    }

    fn sheet_of_nine() -> (RawSheet, Vec<PlayerId>) {
        sheet(OutcomeKind::Won, [10, 9, 9, 8])
    }

    #[test]
    fn at_the_time_limit_nobody_won_so_ten_or_more_is_refused_too() {
        let (sheet, _) = sheet(OutcomeKind::TimeLimit, [11, 9, 7, 5]);
        assert_eq!(
            fields(&unchecked_non_winners(&sheet, false)),
            [("scores[0].vp", codes::NON_WINNER_AT_TEN)]
        );
        assert_eq!(credited_as_sent(&sheet), [9, 9, 7, 5]);
    }

    #[test]
    fn vp_out_of_the_games_range_is_left_to_the_range_rule() {
        let (sheet, _) = sheet(OutcomeKind::Won, [12, 23, 7, 5]);
        assert!(unchecked_non_winners(&sheet, false).is_empty());
    }

    #[test]
    fn a_checked_reason_is_one_to_five_hundred_characters_without_control_characters() {
        assert_eq!(
            checked_reason("  road broken on W's turn "),
            Some("road broken on W's turn".into())
        );
        for bad in ["", "   ", "a\u{7}b", &"x".repeat(501)] {
            assert_eq!(checked_reason(bad), None, "{bad:?}");
        }
        assert!(checked_reason(&"x".repeat(500)).is_some());
    }
}
