//! Builders for the season's tests.

use num_bigint::BigInt;
use num_rational::BigRational;

use super::{
    EventId, Scoring, SeasonEvent, SeasonGame, SeasonScoring, SeasonSeat, validate_scoring,
};
use crate::PlayerId;

pub(super) fn player(n: u128) -> PlayerId {
    PlayerId::from_u128(n)
}

pub(super) fn event_id(n: u128) -> EventId {
    EventId::from_u128(0xE000 + n)
}

pub(super) fn int(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

pub(super) fn ratio(n: i64, d: i64) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

/// A validated scoring from its JSON.
pub(super) fn scoring(value: serde_json::Value) -> Scoring {
    let read: SeasonScoring = serde_json::from_value(value).unwrap();
    validate_scoring(&read).unwrap()
}

/// A finished event of `field` players, 3 rounds played, placed in the order of `players`
/// (1, 2, 3, ...), without games.
pub(super) fn finished(id: u128, field: u32, players: &[PlayerId]) -> SeasonEvent {
    SeasonEvent {
        event: event_id(id),
        field_size: field,
        rounds_played: 3,
        placements_complete: true,
        placements: players.iter().copied().zip(1..).collect(),
        games: Vec::new(),
    }
}

/// A classic game (target 10): `(player, vp)` seats, the winner if it was won.
pub(super) fn classic(seats: &[(PlayerId, u32)], winner: Option<PlayerId>) -> SeasonGame {
    SeasonGame {
        seats: seats
            .iter()
            .map(|&(player, vp)| SeasonSeat {
                player,
                won: winner == Some(player),
                vp,
                team: None,
            })
            .collect(),
        target_vp: 10,
    }
}

/// A partner game (target 20): teams 0 and 1 of two `(player, vp)` each, the winning team if it
/// was won; partners sit opposite, so the seats alternate between the teams.
pub(super) fn partner(
    home: [(PlayerId, u32); 2],
    away: [(PlayerId, u32); 2],
    winner: Option<u8>,
) -> SeasonGame {
    let seat = |(player, vp): (PlayerId, u32), team: u8| SeasonSeat {
        player,
        won: winner == Some(team),
        vp,
        team: Some(team),
    };
    SeasonGame {
        seats: vec![
            seat(home[0], 0),
            seat(away[0], 1),
            seat(home[1], 0),
            seat(away[1], 1),
        ],
        target_vp: 20,
    }
}
