//! The result form as posted, and its one mapping to the API's sheet: the VP added up from the
//! counts as the paper sheet adds them, the fields that do not read named before the API is
//! asked.

use catan_api::credited_vp;
use catan_api::{
    BreakdownInput, CheckedSheet, ErrorCode, FieldError, OutcomeKind, ScoreInput, SubmitResult,
    TableResult,
};
use serde::Deserialize;
use std::collections::HashMap;
use uuid::Uuid;

/// The form as posted. Each seat `i` (in the table's seat order) sends `player{i}`,
/// `settlements{i}`, `cities{i}` and `vp_cards{i}`; `longest_road` and `largest_army` name their
/// holder's id (or nobody).
#[derive(Debug, Deserialize)]
pub struct SheetForm {
    #[serde(default)]
    pub(super) outcome: String,
    #[serde(default)]
    pub(super) winner: String,
    /// A partner table's winning team (its entry's id).
    #[serde(default)]
    pub(super) winner_team: String,
    #[serde(default)]
    pub(super) longest_road: String,
    #[serde(default)]
    pub(super) largest_army: String,
    #[serde(default)]
    pub(super) early_reason: String,
    /// The director's box: the sheet is right although a player who did not win has 10 VP or
    /// more (`"on"` when ticked), and why.
    #[serde(default)]
    pub(super) checked: String,
    #[serde(default)]
    pub(super) checked_reason: String,
    /// The version the form was drawn from (`"v3"`), when it corrects a result.
    #[serde(default)]
    pub(crate) if_match: String,
    #[serde(flatten)]
    seats: HashMap<String, String>,
}

/// One seat's line as read from the form.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeatLine {
    pub player_id: Option<Uuid>,
    pub settlements: String,
    pub cities: String,
    pub vp_cards: String,
    pub longest_road: bool,
    pub largest_army: bool,
}

impl SeatLine {
    /// The line's VP as the sheet adds them up, when every count reads.
    pub fn vp(&self) -> Option<i64> {
        let count = |text: &str| -> Option<i64> {
            let text = text.trim();
            if text.is_empty() {
                Some(0)
            } else {
                text.parse().ok()
            }
        };
        Some(
            count(&self.settlements)?
                + 2 * count(&self.cities)?
                + count(&self.vp_cards)?
                + 2 * i64::from(self.longest_road)
                + 2 * i64::from(self.largest_army),
        )
    }
}

impl SheetForm {
    /// The seats' lines, in seat order.
    pub fn lines(&self) -> Vec<SeatLine> {
        (0..8)
            .map_while(|i| {
                let player = self.seats.get(&format!("player{i}"))?;
                let field = |name: &str| {
                    self.seats
                        .get(&format!("{name}{i}"))
                        .cloned()
                        .unwrap_or_default()
                };
                let player_id = Uuid::parse_str(player).ok();
                let holds = |holder: &str| player_id.is_some_and(|p| p.to_string() == holder);
                Some(SeatLine {
                    player_id,
                    settlements: field("settlements"),
                    cities: field("cities"),
                    vp_cards: field("vp_cards"),
                    longest_road: holds(&self.longest_road),
                    largest_army: holds(&self.largest_army),
                })
            })
            .collect()
    }

    /// The API's sheet, or the fields that do not read as numbers (before the API is asked;
    /// the rules themselves are the API's to check).
    pub fn to_request(&self) -> Result<SubmitResult, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut scores = Vec::new();
        for (i, line) in self.lines().iter().enumerate() {
            let whole = |field: &str, text: &str, errors: &mut Vec<FieldError>| {
                let text = text.trim();
                if text.is_empty() {
                    return 0;
                }
                text.parse::<i64>().unwrap_or_else(|_| {
                    errors.push(FieldError {
                        field: format!("scores[{i}].breakdown.{field}"),
                        code: ErrorCode::InvalidJson,
                        message: String::new(),
                    });
                    0
                })
            };
            let breakdown = BreakdownInput {
                settlements: whole("settlements", &line.settlements, &mut errors),
                cities: whole("cities", &line.cities, &mut errors),
                vp_cards: whole("vp_cards", &line.vp_cards, &mut errors),
                longest_road: line.longest_road,
                largest_army: line.largest_army,
            };
            let Some(player_id) = line.player_id else {
                errors.push(FieldError {
                    field: format!("scores[{i}].player_id"),
                    code: ErrorCode::MissingPlayer,
                    message: String::new(),
                });
                continue;
            };
            scores.push(ScoreInput {
                player_id,
                vp: line.vp().unwrap_or_default(),
                breakdown: Some(breakdown),
            });
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let early_reason = self.early_reason.trim();
        Ok(SubmitResult {
            outcome: if self.outcome == "time_limit" {
                OutcomeKind::TimeLimit
            } else {
                OutcomeKind::Won
            },
            winner_player_id: Uuid::parse_str(&self.winner).ok(),
            winner_entry_id: Uuid::parse_str(&self.winner_team).ok(),
            scores,
            early_reason: (!early_reason.is_empty()).then(|| early_reason.to_owned()),
            // A blank reason is sent as it is: the API says what a reason needs.
            checked: (!self.checked.is_empty()).then(|| CheckedSheet {
                reason: self.checked_reason.trim().to_owned(),
            }),
        })
    }

    /// Whether the director ticked "checked by the director".
    pub(super) fn is_checked(&self) -> bool {
        !self.checked.is_empty()
    }

    /// The VP each line would be credited as the form stands, in seat order (the rules'
    /// [`credited_vp`]): what the director sees before the sheet is saved.
    pub(super) fn credited(&self) -> Vec<(Option<Uuid>, i64, u8)> {
        let winner = (self.outcome != "time_limit")
            .then(|| Uuid::parse_str(&self.winner).ok())
            .flatten();
        self.lines()
            .iter()
            .map(|line| {
                let vp = line.vp().unwrap_or_default();
                let reached = u8::try_from(vp.clamp(0, 22)).unwrap_or_default();
                let is_winner = line.player_id.is_some() && line.player_id == winner;
                (line.player_id, vp, credited_vp(reached, is_winner))
            })
            .collect()
    }

    /// The form as drawn from a recorded result, to correct it.
    pub(super) fn of_result(result: &TableResult, etag: String) -> SheetForm {
        let mut seats = HashMap::new();
        let (mut road, mut army) = (String::new(), String::new());
        for (i, score) in result.scores.iter().enumerate() {
            seats.insert(format!("player{i}"), score.player_id.to_string());
            if let Some(b) = &score.breakdown {
                seats.insert(format!("settlements{i}"), b.settlements.to_string());
                seats.insert(format!("cities{i}"), b.cities.to_string());
                seats.insert(format!("vp_cards{i}"), b.vp_cards.to_string());
                if b.longest_road {
                    road = score.player_id.to_string();
                }
                if b.largest_army {
                    army = score.player_id.to_string();
                }
            }
        }
        SheetForm {
            outcome: match result.outcome {
                OutcomeKind::Won => "won".into(),
                OutcomeKind::TimeLimit => "time_limit".into(),
            },
            winner: result
                .winner_player_id
                .map(|p| p.to_string())
                .unwrap_or_default(),
            winner_team: result
                .winner_entry_id
                .map(|e| e.to_string())
                .unwrap_or_default(),
            longest_road: road,
            largest_army: army,
            early_reason: String::new(),
            checked: String::new(),
            checked_reason: String::new(),
            if_match: etag,
            seats,
        }
    }

    /// An empty form for the table's seats.
    pub(crate) fn blank(players: &[Uuid]) -> SheetForm {
        SheetForm {
            outcome: "won".into(),
            winner: String::new(),
            winner_team: String::new(),
            longest_road: String::new(),
            largest_army: String::new(),
            early_reason: String::new(),
            checked: String::new(),
            checked_reason: String::new(),
            if_match: String::new(),
            seats: players
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("player{i}"), p.to_string()))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> SheetForm {
        let body = serde_urlencoded::to_string(pairs).unwrap();
        serde_urlencoded::from_str(&body).unwrap()
    }

    #[test]
    fn the_sheet_adds_up_each_players_vp_as_the_paper_does() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let (a_text, b_text) = (a.to_string(), b.to_string());
        let posted = form(&[
            ("outcome", "won"),
            ("winner", &a_text),
            ("longest_road", &a_text),
            ("largest_army", ""),
            ("player0", &a_text),
            ("settlements0", "2"),
            ("cities0", "3"),
            ("vp_cards0", "0"),
            ("player1", &b_text),
            ("settlements1", "3"),
            ("cities1", "1"),
            ("vp_cards1", ""),
            ("csrf", "x"),
        ]);
        let sheet = posted.to_request().unwrap();
        assert_eq!(sheet.winner_player_id, Some(a));
        let vp: Vec<(Uuid, i64)> = sheet.scores.iter().map(|s| (s.player_id, s.vp)).collect();
        assert_eq!(vp, vec![(a, 10), (b, 5)]);
        let first = sheet.scores[0].breakdown.as_ref().unwrap();
        assert!(first.longest_road && !first.largest_army);
    }

    #[test]
    fn a_count_that_is_not_a_number_is_named_by_its_field_before_the_api_is_asked() {
        let a = Uuid::new_v4().to_string();
        let posted = form(&[("player0", &a), ("cities0", "three")]);
        let errors = posted.to_request().unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field, "scores[0].breakdown.cities");
    }

    #[test]
    fn a_partner_sheet_names_the_winning_team() {
        let (a, team) = (Uuid::new_v4().to_string(), Uuid::new_v4());
        let posted = form(&[("player0", &a), ("winner_team", &team.to_string())]);
        let sheet = posted.to_request().unwrap();
        assert_eq!(
            (sheet.winner_entry_id, sheet.winner_player_id),
            (Some(team), None)
        );
    }

    #[test]
    fn the_directors_box_sends_the_sheet_checked_and_the_form_says_what_each_is_credited() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let (a_text, b_text) = (a.to_string(), b.to_string());
        let fields = [
            ("player0", a_text.as_str()),
            ("settlements0", "4"),
            ("cities0", "4"),
            ("player1", &b_text),
            ("settlements1", "3"),
            ("cities1", "4"),
            ("winner", &a_text),
        ];
        let unchecked = form(&fields);
        assert_eq!(unchecked.to_request().unwrap().checked, None);
        assert_eq!(
            unchecked.credited(),
            vec![(Some(a), 12, 10), (Some(b), 11, 9)],
            "a winner at 12 credited 10, a non-winner at 11 credited 9"
        );
        let mut ticked = fields.to_vec();
        ticked.extend([
            ("checked", "on"),
            ("checked_reason", " road cut on N's turn "),
        ]);
        let sheet = form(&ticked).to_request().unwrap();
        assert_eq!(
            sheet.checked.map(|c| c.reason).as_deref(),
            Some("road cut on N's turn")
        );
    }

    #[test]
    fn a_time_limit_sheet_keeps_its_reason() {
        let a = Uuid::new_v4().to_string();
        let posted = form(&[
            ("player0", &a),
            ("outcome", "time_limit"),
            ("early_reason", " table 3 agreed "),
        ]);
        let sheet = posted.to_request().unwrap();
        assert_eq!(sheet.outcome, OutcomeKind::TimeLimit);
        assert_eq!(sheet.early_reason.as_deref(), Some("table 3 agreed"));
    }
}
