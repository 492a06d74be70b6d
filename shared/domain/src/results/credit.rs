//! A validated table result, and the VP the tournament credits each player with.

use serde::{Deserialize, Serialize};

use super::limits::{MAX_CREDIT_WITHOUT_WIN, WINNING_VP};
use super::sheet::{OutcomeKind, RawSheet};
use crate::PlayerId;

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

/// Converts a sheet that passed every check.
#[expect(
    clippy::expect_used,
    reason = "validate_sheet converts only sheets with no violation: every VP and breakdown count \
              is within 0..=22"
)]
pub(super) fn to_table_result(sheet: &RawSheet) -> TableResult {
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
