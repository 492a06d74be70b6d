//! Checking a partner table's results sheet and scoring the game.

use super::{PartnerSettings, RawPartnerSheet, TableTeams, TeamId, TimeLimitRule, codes};
use crate::PlayerId;
use crate::results::{
    Breakdown, MAX_VP, MIN_VP, OutcomeKind, RawScore, RuleCode, VP_CARDS_IN_DECK, Violation,
    check_score, codes as result_codes,
};
use serde::{Deserialize, Serialize};

const WINNER_FIELD: &str = "winner_entry_id";

/// One player's validated line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartnerPlayerScore {
    pub player: PlayerId,
    pub vp: u8,
    pub breakdown: Option<Breakdown>,
}

/// How one team came out of a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamResult {
    pub team: TeamId,
    pub players: [PartnerPlayerScore; 2],
    /// The two players' VP together.
    pub vp: u32,
    pub result: GameResult,
    /// Event points the game is worth to the team.
    pub points: u32,
}

/// A game's result for one team.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum GameResult {
    Win,
    Draw,
    Loss,
}

/// A validated partner game: both teams' results; `winner` is None for a draw or when
/// nobody won under [`TimeLimitRule::NoWinner`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartnerGame {
    pub outcome: OutcomeKind,
    pub home: TeamResult,
    pub away: TeamResult,
    pub winner: Option<TeamId>,
}

impl PartnerGame {
    pub fn teams(&self) -> [&TeamResult; 2] {
        [&self.home, &self.away]
    }

    pub fn result_of(&self, team: TeamId) -> Option<&TeamResult> {
        self.teams().into_iter().find(|result| result.team == team)
    }

    /// The other team's result, if `team` played this game.
    pub fn opponent_of(&self, team: TeamId) -> Option<&TeamResult> {
        match team {
            _ if team == self.home.team => Some(&self.away),
            _ if team == self.away.team => Some(&self.home),
            _ => None,
        }
    }

    pub fn is_draw(&self) -> bool {
        self.home.result == GameResult::Draw
    }
}

fn violation(field: impl Into<String>, code: RuleCode, message: String) -> Violation {
    Violation {
        field: field.into(),
        code,
        message,
    }
}

/// Validates a partner results sheet against the two teams seated at the table: exactly the
/// four seated players once each; each VP 2..=22 with its breakdown checked; the table's VP
/// cards (one deck) and the longest road and largest army (one holder each); a won game names
/// one of the two teams as winner ("winner_entry_id"), whose players together reach the
/// target; a game stopped at the time limit names no winner. Returns every violation, with
/// JSON paths like "winner_entry_id", "scores", "scores[2].vp", "scores[2].player_id".
pub fn validate_partner_sheet(
    sheet: &RawPartnerSheet,
    table: &TableTeams,
    settings: &PartnerSettings,
) -> Result<PartnerGame, Vec<Violation>> {
    let mut violations = check_outcome(sheet, table, settings);
    let seated: Vec<PlayerId> = table.teams().iter().flat_map(|(_, p)| *p).collect();
    for index in 0..sheet.scores.len() {
        violations.extend(check_score(&sheet.scores, &seated, index));
    }
    for player in &seated {
        if !sheet.scores.iter().any(|s| s.player == *player) {
            violations.push(violation(
                "scores",
                result_codes::MISSING_PLAYER,
                format!("Player {player} is seated at this table but has no score."),
            ));
        }
    }
    violations.extend(check_shared_cards(&sheet.scores));

    if violations.is_empty() {
        Ok(score_game(sheet, table, settings))
    } else {
        Err(violations)
    }
}

/// The sheet's VP for a team's two players, when both lines are there and in range.
fn team_vp(scores: &[RawScore], players: [PlayerId; 2]) -> Option<i64> {
    players
        .iter()
        .map(|player| {
            scores
                .iter()
                .find(|s| s.player == *player)
                .map(|s| s.vp)
                .filter(|vp| (MIN_VP..=MAX_VP).contains(vp))
        })
        .sum()
}

fn check_outcome(
    sheet: &RawPartnerSheet,
    table: &TableTeams,
    settings: &PartnerSettings,
) -> Vec<Violation> {
    let mut violations = Vec::new();
    match (sheet.outcome, sheet.winner_team) {
        (OutcomeKind::Won, None) => violations.push(violation(
            WINNER_FIELD,
            result_codes::WINNER_MISSING,
            "A won game must name the winning team.".to_string(),
        )),
        (OutcomeKind::Won, Some(winner)) => {
            match table.teams().into_iter().find(|(team, _)| *team == winner) {
                None => violations.push(violation(
                    WINNER_FIELD,
                    result_codes::WINNER_NOT_SEATED,
                    format!("Team {winner} is not playing at this table."),
                )),
                Some((_, players)) => {
                    let target = i64::from(settings.target_vp);
                    // Missing or out-of-range lines are reported on their own.
                    if let Some(vp) = team_vp(&sheet.scores, players)
                        && vp < target
                    {
                        violations.push(violation(
                            WINNER_FIELD,
                            codes::WINNER_BELOW_TARGET,
                            format!(
                                "The winning team needs {target} VP together, but {winner} has {vp}."
                            ),
                        ));
                    }
                }
            }
        }
        (OutcomeKind::TimeLimit, Some(_)) => violations.push(violation(
            WINNER_FIELD,
            result_codes::WINNER_AT_TIME_LIMIT,
            "A game stopped at the time limit names no winner; the VP decide it.".to_string(),
        )),
        (OutcomeKind::TimeLimit, None) => {}
    }
    violations
}

/// The four players share one deck of VP cards, one longest road and one largest army.
fn check_shared_cards(scores: &[RawScore]) -> Vec<Violation> {
    let mut violations = Vec::new();
    let breakdowns: Vec<_> = scores.iter().filter_map(|s| s.breakdown.as_ref()).collect();
    // Counts out of range are reported on their own field and left out of the sum.
    let vp_cards: i64 = breakdowns
        .iter()
        .map(|b| b.vp_cards)
        .filter(|cards| (0..=VP_CARDS_IN_DECK).contains(cards))
        .sum();
    if vp_cards > VP_CARDS_IN_DECK {
        violations.push(violation(
            "scores",
            result_codes::TOO_MANY_VP_CARDS,
            format!("The deck holds {VP_CARDS_IN_DECK} VP cards, but the table claims {vp_cards}."),
        ));
    }
    if breakdowns.iter().filter(|b| b.longest_road).count() > 1 {
        violations.push(violation(
            "scores",
            result_codes::MULTIPLE_LONGEST_ROAD_HOLDERS,
            "Only one player holds the longest road.".to_string(),
        ));
    }
    if breakdowns.iter().filter(|b| b.largest_army).count() > 1 {
        violations.push(violation(
            "scores",
            result_codes::MULTIPLE_LARGEST_ARMY_HOLDERS,
            "Only one player holds the largest army.".to_string(),
        ));
    }
    violations
}

/// Scores a sheet that passed every check.
#[expect(
    clippy::expect_used,
    reason = "validate_partner_sheet scores only sheets with no violation: every seated player has \
              a line, and every VP and breakdown count is within 0..=22"
)]
fn score_game(
    sheet: &RawPartnerSheet,
    table: &TableTeams,
    settings: &PartnerSettings,
) -> PartnerGame {
    let checked = |value: i64| u8::try_from(value).expect("ranges are checked before scoring");
    let line = |player: PlayerId| {
        let score = sheet
            .scores
            .iter()
            .find(|s| s.player == player)
            .expect("every seated player has a line");
        PartnerPlayerScore {
            player,
            vp: checked(score.vp),
            breakdown: score.breakdown.as_ref().map(|b| Breakdown {
                settlements: checked(b.settlements),
                cities: checked(b.cities),
                vp_cards: checked(b.vp_cards),
                longest_road: b.longest_road,
                largest_army: b.largest_army,
            }),
        }
    };
    let team_result = |(team, players): (TeamId, [PlayerId; 2])| {
        let players = players.map(line);
        let vp = players.iter().map(|p| u32::from(p.vp)).sum();
        TeamResult {
            team,
            players,
            vp,
            result: GameResult::Draw,
            points: 0,
        }
    };
    let mut home = team_result(table.home);
    let mut away = team_result(table.away);

    let points = settings.points;
    let winner = match (sheet.outcome, settings.time_limit_rule) {
        (OutcomeKind::Won, _) => sheet.winner_team,
        (OutcomeKind::TimeLimit, TimeLimitRule::MoreVpWins) => match home.vp.cmp(&away.vp) {
            std::cmp::Ordering::Greater => Some(home.team),
            std::cmp::Ordering::Less => Some(away.team),
            std::cmp::Ordering::Equal => None,
        },
        (OutcomeKind::TimeLimit, TimeLimitRule::Draw | TimeLimitRule::NoWinner) => None,
    };
    let nobody_wins = sheet.outcome == OutcomeKind::TimeLimit
        && settings.time_limit_rule == TimeLimitRule::NoWinner;
    for result in [&mut home, &mut away] {
        result.result = match winner {
            Some(team) if team == result.team => GameResult::Win,
            Some(_) => GameResult::Loss,
            None if nobody_wins => GameResult::Loss,
            None => GameResult::Draw,
        };
        result.points = match result.result {
            GameResult::Win => points.win,
            GameResult::Draw => points.draw,
            GameResult::Loss => points.loss,
        };
    }
    PartnerGame {
        outcome: sheet.outcome,
        home,
        away,
        winner,
    }
}
