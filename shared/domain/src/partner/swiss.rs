//! Pairing the teams still in a partner event for the next Swiss round.

use super::{PartnerGame, PartnerRow, TeamId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Pairs searched before settling for a pairing with rematches, to bound the work on
/// fields where avoiding every rematch is impossible.
const SEARCH_BUDGET: u32 = 100_000;

/// One round's tables (higher-ranked team first) and the team with the bye, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartnerPairing {
    pub tables: Vec<(TeamId, TeamId)>,
    pub bye: Option<TeamId>,
}

/// Pairs the next round from the current standings: teams that dropped are left out; with
/// an odd number of teams the lowest-ranked team with the fewest byes (so far none, if any
/// such team is left) gets the bye; the others are paired top down, each with the nearest
/// team in the standings it has not met yet. Rematches happen only when no pairing avoids
/// them. Teams sharing a rank (all of them before round 1) are ordered by a draw from `seed`.
pub fn pair_partner_round(
    standings: &[PartnerRow],
    games: &[PartnerGame],
    seed: u64,
) -> PartnerPairing {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut active: Vec<(u32, u64, &PartnerRow)> = standings
        .iter()
        .filter(|row| !row.dropped)
        .map(|row| (row.rank, rng.random::<u64>(), row))
        .collect();
    active.sort_by_key(|&(rank, draw, _)| (rank, draw));
    let mut order: Vec<&PartnerRow> = active.into_iter().map(|(_, _, row)| row).collect();

    let bye = if order.len() % 2 == 1 {
        let fewest = order.iter().map(|row| row.byes).min().unwrap_or(0);
        let position = order
            .iter()
            .rposition(|row| row.byes == fewest)
            .expect("some team has the fewest byes");
        Some(order.remove(position).team)
    } else {
        None
    };

    let teams: Vec<TeamId> = order.iter().map(|row| row.team).collect();
    let met: HashSet<(TeamId, TeamId)> = games
        .iter()
        .flat_map(|g| [(g.home.team, g.away.team), (g.away.team, g.home.team)])
        .collect();
    let mut budget = SEARCH_BUDGET;
    let tables = pair_without_rematches(&teams, &met, &mut budget)
        .unwrap_or_else(|| teams.chunks(2).map(|pair| (pair[0], pair[1])).collect());
    PartnerPairing { tables, bye }
}

/// Pairs `teams` (in standings order) so that no two have met, each team with the nearest
/// one below it that works; None when impossible or the budget runs out.
fn pair_without_rematches(
    teams: &[TeamId],
    met: &HashSet<(TeamId, TeamId)>,
    budget: &mut u32,
) -> Option<Vec<(TeamId, TeamId)>> {
    let Some((&first, rest)) = teams.split_first() else {
        return Some(Vec::new());
    };
    for (index, &candidate) in rest.iter().enumerate() {
        if met.contains(&(first, candidate)) {
            continue;
        }
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let remaining: Vec<TeamId> = rest
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != index)
            .map(|(_, &team)| team)
            .collect();
        if let Some(mut tables) = pair_without_rematches(&remaining, met, budget) {
            tables.insert(0, (first, candidate));
            return Some(tables);
        }
    }
    None
}
