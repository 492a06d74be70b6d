//! Tests of the projections. The event's: the extremes of a game against every legal sheet
//! (`event_cases`), worked cases, an exhaustive search of the model on small fields
//! (`event_search`) and random real playings (`event_play`). The season's: worked cases
//! (`season_cases`), an exhaustive search of the model (`season_search`) and random real events
//! (`season_play`).

mod event_cases;
mod event_play;
mod event_search;
mod season_cases;
mod season_play;
mod season_search;

use std::collections::BTreeSet;
use std::sync::OnceLock;

use super::game::{Figures, Tables};
use crate::PlayerId;
use crate::results::{OutcomeKind, RawScore, RawSheet, Stage, validate_sheet};
use crate::standings::{ClassicRow, Game, vp_share};

pub(super) fn player(n: u128) -> PlayerId {
    PlayerId::from_u128(n)
}

pub(super) fn row(who: PlayerId, figures: Figures) -> ClassicRow {
    ClassicRow {
        rank: 0,
        player: who,
        vp: figures.vp,
        vp_share: figures.share,
        games: 0,
        wins: figures.wins,
        three_player_games: 0,
    }
}

pub(super) fn vp(points: u32) -> Figures {
    Figures {
        vp: points,
        ..Figures::default()
    }
}

pub(super) fn outlooks(projection: &super::EventProjection) -> Vec<super::CutOutlook> {
    projection.players.iter().map(|p| p.outlook).collect()
}

/// Every seat's outcome (credited VP, share, won) of every results sheet the validator accepts
/// at the tables of `tables`. A player's VP from 2 to 10 stand for every VP: the credit depends
/// on VP above 9 only through whether he won.
pub(super) fn every_seat_outcome(tables: Tables) -> &'static [Figures] {
    static CACHE: [OnceLock<Vec<Figures>>; 4] = [const { OnceLock::new() }; 4];
    let slot = usize::from(tables.four) * 2 + usize::from(tables.three);
    CACHE[slot].get_or_init(|| {
        let sizes = [(4, tables.four), (3, tables.three)];
        let mut outcomes = BTreeSet::new();
        for size in sizes
            .iter()
            .filter(|(_, seated)| *seated)
            .map(|(size, _)| *size)
        {
            let seated: Vec<PlayerId> = (1..=size).map(|n| player(n as u128)).collect();
            let mut vps = vec![2i64; size];
            loop {
                let winners = std::iter::once(None).chain((0..size).map(Some));
                for winner in winners {
                    let sheet = RawSheet {
                        outcome: if winner.is_some() {
                            OutcomeKind::Won
                        } else {
                            OutcomeKind::TimeLimit
                        },
                        winner: winner.map(|seat| seated[seat]),
                        scores: seated
                            .iter()
                            .zip(&vps)
                            .map(|(&player, &vp)| RawScore {
                                player,
                                vp,
                                breakdown: None,
                            })
                            .collect(),
                    };
                    let Ok(result) = validate_sheet(&sheet, &seated, Stage::Qualifying) else {
                        continue;
                    };
                    let game = Game::from_result(&result);
                    let table: Vec<u8> = game.credited.iter().map(|&(_, vp)| vp).collect();
                    for &(who, credited) in &game.credited {
                        outcomes.insert(Figures {
                            vp: credited.into(),
                            share: vp_share(credited, &table),
                            wins: u32::from(result.winner == Some(who)),
                        });
                    }
                }
                // The next VP vector, like an odometer from 2 to 10.
                let Some(seat) = vps.iter().position(|&vp| vp < 10) else {
                    break;
                };
                vps[seat] += 1;
                for earlier in &mut vps[..seat] {
                    *earlier = 2;
                }
            }
        }
        outcomes.into_iter().collect()
    })
}

/// A validated season scoring from its JSON.
pub(super) fn season_scoring(value: serde_json::Value) -> crate::season::Scoring {
    let read: crate::season::SeasonScoring = serde_json::from_value(value).unwrap();
    crate::season::validate_scoring(&read).unwrap()
}

/// A finished season event of `field` players placed in the order of `players` (1, 2, ...),
/// three rounds played, without games.
pub(super) fn finished(id: u128, field: u32, players: &[PlayerId]) -> crate::season::SeasonEvent {
    crate::season::SeasonEvent {
        event: uuid::Uuid::from_u128(0xE000 + id),
        field_size: field,
        rounds_played: 3,
        placements_complete: true,
        placements: players.iter().copied().zip(1..).collect(),
        games: Vec::new(),
    }
}
