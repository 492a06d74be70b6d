//! Seating two teams at a partner table.

use super::TeamId;
use crate::PlayerId;
use crate::seating::SeatPosition;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seat taken: where, by whom, for which team.
pub type PartnerSeat = (SeatPosition, PlayerId, TeamId);

/// Seats two teams at a table in play order N, E, S, W: one team takes N and S, the other E
/// and W, so partners sit opposite and turns alternate between the teams. The seed draws
/// which team sits N (and so moves first) and which of each team's players sits first.
pub fn seat_partner_table(
    a: (TeamId, [PlayerId; 2]),
    b: (TeamId, [PlayerId; 2]),
    seed: u64,
) -> Vec<PartnerSeat> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut first, mut second) = if rng.random_bool(0.5) { (a, b) } else { (b, a) };
    first.1.shuffle(&mut rng);
    second.1.shuffle(&mut rng);
    vec![
        (SeatPosition::N, first.1[0], first.0),
        (SeatPosition::E, second.1[0], second.0),
        (SeatPosition::S, first.1[1], first.0),
        (SeatPosition::W, second.1[1], second.0),
    ]
}
