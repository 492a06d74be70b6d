//! Pairing the teams still in a partner event for the next Swiss round.

use super::{PartnerRow, TeamId};
use crate::pairing::swiss::{SwissTeam, pair_swiss};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One round's tables (higher-ranked team first) and the team with the bye, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartnerPairing {
    pub tables: Vec<(TeamId, TeamId)>,
    pub bye: Option<TeamId>,
    /// Tables whose teams have met before (only when no pairing avoids it).
    pub rematches: u32,
    /// The matching's cost, as the pairing engine states it.
    pub cost: u64,
}

/// Pairs the next round from the current standings with the pairing engine's optimal Swiss
/// matching: teams that dropped are left out; with an odd number of teams the lowest-ranked
/// team without a bye sits out; teams with equal or nearest points meet, never a team they
/// have met (`played`) unless no pairing avoids it. Teams sharing a rank (all of them before
/// round 1) are ordered by a draw from `seed`.
pub fn pair_partner_round(
    standings: &[PartnerRow],
    played: &[(TeamId, TeamId)],
    seed: u64,
) -> PartnerPairing {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut active: Vec<(u32, u64, &PartnerRow)> = standings
        .iter()
        .filter(|row| !row.dropped)
        .map(|row| (row.rank, rng.random::<u64>(), row))
        .collect();
    active.sort_by_key(|&(rank, draw, _)| (rank, draw));
    let order: Vec<&PartnerRow> = active.into_iter().map(|(_, _, row)| row).collect();
    let number_of: HashMap<TeamId, u32> = order.iter().map(|row| row.team).zip(0u32..).collect();
    let teams: Vec<SwissTeam> = order
        .iter()
        .zip(0u32..)
        .map(|(row, i)| SwissTeam {
            team: i,
            points: row.points,
            had_bye: row.byes > 0,
            // The drawn order breaks shared ranks, so that round 1 is a draw.
            rank: i + 1,
        })
        .collect();
    let played: Vec<(u32, u32)> = played
        .iter()
        .filter_map(|(a, b)| Some((*number_of.get(a)?, *number_of.get(b)?)))
        .collect();
    let round = pair_swiss(&teams, &played, seed);
    let team = |n: u32| order[n as usize].team;
    PartnerPairing {
        tables: round
            .pairs
            .iter()
            .map(|&(a, b)| {
                if a <= b {
                    (team(a), team(b))
                } else {
                    (team(b), team(a))
                }
            })
            .collect(),
        bye: round.bye.map(team),
        rematches: round.rematches,
        cost: round.cost,
    }
}
