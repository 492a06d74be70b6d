//! The final placements of the whole field, from the standings and the playoff results.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::ranking::{playoff_order_key, positions};
use crate::PlayerId;
use crate::results::{Score, Stage, TableResult};
use crate::standings::ClassicRow;

/// Results that cannot be turned into placements.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayoffError {
    #[error("the final has no winner; a final is played until someone wins")]
    FinalWithoutWinner,
    #[error("the final's winner {0} has no score at the final table")]
    WinnerNotAtFinal(PlayerId),
    #[error("player {0} played in the playoffs but is not in the qualifying standings")]
    NotInStandings(PlayerId),
    #[error("player {0} has more than one seat in the same playoff stage")]
    SeatedTwice(PlayerId),
    #[error("finalist {0} did not play a semi-final")]
    FinalistWithoutSemifinal(PlayerId),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// 1 for the champion; places are consecutive and never shared.
    pub place: u32,
    pub player: PlayerId,
    /// The furthest stage the player reached.
    pub stage: Stage,
}

/// Final placements: the final's winner 1st; then the other finalists; then the semi-finalists
/// who did not reach the final; then everyone else in qualifying standings order. Within the
/// finalists and within the semi-finalists: higher actual VP in that stage's game first, equal VP
/// -> better qualifying standing. `semifinals` is empty for a FinalOnly plan. Places are 1..=n,
/// consecutive.
///
/// Errors if the final has no winner, if a playoff player is not in the standings or has two
/// seats in one stage, or if (with semi-finals) a finalist did not play one.
pub fn placements(
    standings: &[ClassicRow],
    semifinals: &[TableResult],
    final_table: &TableResult,
) -> Result<Vec<Placement>, PlayoffError> {
    let champion = final_table.winner.ok_or(PlayoffError::FinalWithoutWinner)?;
    if final_table.score_of(champion).is_none() {
        return Err(PlayoffError::WinnerNotAtFinal(champion));
    }
    let position = positions(standings.iter().map(|row| row.player));
    let finalists: Vec<&Score> = final_table.scores.iter().collect();
    let semifinalists: Vec<&Score> = semifinals.iter().flat_map(|table| &table.scores).collect();
    check_stage_seats(&finalists, &position)?;
    check_stage_seats(&semifinalists, &position)?;
    if !semifinals.is_empty()
        && let Some(outsider) = finalists
            .iter()
            .find(|finalist| !semifinalists.iter().any(|s| s.player == finalist.player))
    {
        return Err(PlayoffError::FinalistWithoutSemifinal(outsider.player));
    }

    let mut other_finalists: Vec<&Score> = finalists
        .iter()
        .copied()
        .filter(|score| score.player != champion)
        .collect();
    other_finalists.sort_by_key(|score| playoff_order_key(score, &position));
    let mut semifinal_losers: Vec<&Score> = semifinalists
        .iter()
        .copied()
        .filter(|score| final_table.score_of(score.player).is_none())
        .collect();
    semifinal_losers.sort_by_key(|score| playoff_order_key(score, &position));

    let mut order: Vec<(PlayerId, Stage)> = vec![(champion, Stage::Final)];
    order.extend(
        other_finalists
            .iter()
            .map(|score| (score.player, Stage::Final)),
    );
    order.extend(
        semifinal_losers
            .iter()
            .map(|score| (score.player, Stage::Semifinal)),
    );
    let placed: HashSet<PlayerId> = order.iter().map(|&(player, _)| player).collect();
    order.extend(
        standings
            .iter()
            .filter(|row| !placed.contains(&row.player))
            .map(|row| (row.player, Stage::Qualifying)),
    );

    Ok(order
        .into_iter()
        .zip(1..)
        .map(|((player, stage), place)| Placement {
            place,
            player,
            stage,
        })
        .collect())
}

/// Every player of one stage is ranked in qualifying and sits at only one of its tables.
fn check_stage_seats(
    scores: &[&Score],
    position: &HashMap<PlayerId, usize>,
) -> Result<(), PlayoffError> {
    let mut seen = HashSet::new();
    for score in scores {
        if !position.contains_key(&score.player) {
            return Err(PlayoffError::NotInStandings(score.player));
        }
        if !seen.insert(score.player) {
            return Err(PlayoffError::SeatedTwice(score.player));
        }
    }
    Ok(())
}
