//! Tests of the explanations: the rules' worked example, and against the standings' own order.

use std::cmp::Ordering;

use num_bigint::BigInt;
use num_rational::BigRational;
use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::PlayerId;
use crate::results::strategies::distinct_players;
use crate::season::{
    SeasonEvent, SeasonGame, SeasonRow, SeasonScoring, SeasonSeat, TieBreak, season_standings,
    validate_scoring,
};
use crate::standings::{ClassicRow, Game, classic_standings};

fn player(n: u128) -> PlayerId {
    PlayerId::from_u128(n)
}

fn exact(numerator: i64, denominator: i64) -> Figure {
    Figure::Exact(BigRational::new(
        BigInt::from(numerator),
        BigInt::from(denominator),
    ))
}

fn game(credited: &[(PlayerId, u8)]) -> Game {
    Game {
        credited: credited.to_vec(),
    }
}

#[test]
fn the_rules_worked_example_is_level_on_vp_and_separated_by_vp_share() {
    let (a, b) = (player(0xA), player(0xB));
    let o = |i: u128| player(100 + i);
    // tournament-rules-en, "Example for Percentage VP points": 28 VP each, B ahead on share.
    let games = [
        game(&[(a, 10), (o(0), 9), (o(1), 8), (o(2), 5)]),
        game(&[(a, 8), (o(3), 10), (o(4), 7), (o(5), 5)]),
        game(&[(a, 10), (o(6), 9), (o(7), 9), (o(8), 8)]),
        game(&[(b, 10), (o(9), 9), (o(10), 6), (o(11), 5)]),
        game(&[(b, 10), (o(12), 9), (o(13), 8), (o(14), 6)]),
        game(&[(b, 8), (o(15), 10), (o(16), 9), (o(17), 9)]),
    ];
    let standings = classic_standings(&[a, b], &games);
    assert_eq!((standings[0].player, standings[1].player), (b, a));
    let explained = explain_event_rows(&standings[0], &standings[1]);
    assert_eq!(
        explained,
        Explanation {
            level_on: vec![Level {
                criterion: EventCriterion::Vp,
                figure: Figure::Count(28),
            }],
            ahead_on: Some(Difference {
                criterion: EventCriterion::VpShare,
                above: Figure::Exact(standings[0].vp_share.to_rational()),
                below: exact(3085, 36),
            }),
        }
    );
    // What the API carries for the pages to word it.
    assert_eq!(
        serde_json::to_value(&explained).unwrap(),
        json!({
            "level_on": [{"criterion": "vp", "figure": 28}],
            "ahead_on": {
                "criterion": "vp_share",
                "above": {"decimal": "85.86", "exact": standings[0].vp_share.exact()},
                "below": {"decimal": "85.69", "exact": "3085/36"},
            },
        })
    );
}

#[test]
fn more_vp_needs_no_tie_break_and_equal_shares_fall_to_wins() {
    let [a, b, c, d] = [1, 2, 3, 4].map(player);
    let o = |i: u128| player(100 + i);
    // Every table totals 30: a wins with 10 then makes 4; b makes 7 twice; c makes 6 twice.
    let games = [
        game(&[(a, 10), (o(0), 9), (o(1), 6), (o(2), 5)]),
        game(&[(a, 4), (o(3), 10), (o(4), 9), (o(5), 7)]),
        game(&[(b, 7), (o(6), 10), (o(7), 8), (o(8), 5)]),
        game(&[(b, 7), (o(9), 10), (o(10), 8), (o(11), 5)]),
        game(&[(c, 6), (o(12), 10), (o(13), 9), (o(14), 5)]),
        game(&[(c, 6), (o(15), 10), (o(16), 9), (o(17), 5)]),
    ];
    let standings = classic_standings(&[a, b, c, d], &games);
    let order: Vec<PlayerId> = standings.iter().map(|row| row.player).collect();
    assert_eq!(order, [a, b, c, d]);
    let explained = explain_event_standings(&standings);
    assert_eq!(explained.len(), 4);
    assert_eq!(explained[0], None);
    let on_wins = explained[1].as_ref().unwrap();
    assert_eq!(
        on_wins
            .level_on
            .iter()
            .map(|l| l.criterion)
            .collect::<Vec<_>>(),
        [EventCriterion::Vp, EventCriterion::VpShare]
    );
    assert_eq!(
        on_wins.ahead_on,
        Some(Difference {
            criterion: EventCriterion::Wins,
            above: Figure::Count(1),
            below: Figure::Count(0),
        })
    );
    let on_vp = explained[2].as_ref().unwrap();
    assert_eq!(on_vp.level_on, []);
    assert_eq!(
        on_vp.ahead_on,
        Some(Difference {
            criterion: EventCriterion::Vp,
            above: Figure::Count(14),
            below: Figure::Count(12),
        })
    );
    assert_eq!(explained[3].as_ref().unwrap().level_on, []);
}

#[test]
fn players_level_on_everything_say_so() {
    let [a, b] = [1, 2].map(player);
    let standings = classic_standings(&[b, a], &[]);
    let explained = explain_event_rows(&standings[0], &standings[1]);
    assert_eq!(explained.ahead_on, None);
    assert_eq!(
        explained.level_on,
        [
            Level {
                criterion: EventCriterion::Vp,
                figure: Figure::Count(0)
            },
            Level {
                criterion: EventCriterion::VpShare,
                figure: exact(0, 1)
            },
            Level {
                criterion: EventCriterion::Wins,
                figure: Figure::Count(0)
            },
        ]
    );
    assert_eq!(
        serde_json::to_value(&explained).unwrap()["ahead_on"],
        json!(null)
    );
}

fn seat(player: PlayerId, vp: u32, won: bool) -> SeasonSeat {
    SeasonSeat {
        player,
        won,
        vp,
        team: None,
    }
}

fn season_scoring(value: serde_json::Value) -> crate::season::Scoring {
    let read: SeasonScoring = serde_json::from_value(value).unwrap();
    validate_scoring(&read).unwrap()
}

#[test]
fn a_season_row_names_the_first_tie_break_of_the_season_that_separates_it() {
    let [a, b, x, y] = [1, 2, 8, 9].map(player);
    // Tables of 3 scoring 5-3-1: a 1st and 3rd, b 2nd twice; 6 points and 13 VP each.
    let games = vec![
        SeasonGame {
            seats: vec![seat(a, 10, true), seat(x, 9, false), seat(y, 4, false)],
            target_vp: 10,
        },
        SeasonGame {
            seats: vec![seat(a, 3, false), seat(x, 10, true), seat(y, 4, false)],
            target_vp: 10,
        },
    ];
    let rules = season_scoring(json!({
        "mode": "table_points", "three": [5, 3, 1],
        "tie_breaks": ["points", "vp_capped_at_winning_total", "table_places", "vp_share"],
    }));
    let b_games = vec![
        SeasonGame {
            seats: vec![seat(b, 7, false), seat(x, 10, true), seat(y, 6, false)],
            target_vp: 10,
        },
        SeasonGame {
            seats: vec![seat(b, 6, false), seat(x, 10, true), seat(y, 2, false)],
            target_vp: 10,
        },
    ];
    let event = |games: Vec<SeasonGame>| SeasonEvent {
        event: uuid::Uuid::from_u128(0xE1),
        field_size: 4,
        rounds_played: 4,
        placements_complete: false,
        placements: Vec::new(),
        games,
    };
    let all_games: Vec<SeasonGame> = games.into_iter().chain(b_games).collect();
    let rows = season_standings(&rules, &[event(all_games)]);
    let above = rows.iter().position(|row| row.player == a).unwrap();
    assert_eq!(rows[above + 1].player, b);
    let explained = explain_season_rows(&rules.ranking, &rows[above], &rows[above + 1]);
    assert_eq!(
        explained.level_on,
        [
            Level {
                criterion: TieBreak::Points,
                figure: exact(6, 1)
            },
            Level {
                criterion: TieBreak::VpCappedAtWinningTotal,
                figure: Figure::Count(13)
            },
        ]
    );
    assert_eq!(
        explained.ahead_on,
        Some(Difference {
            criterion: TieBreak::TablePlaces,
            above: Figure::Places([1, 0, 1]),
            below: Figure::Places([0, 2, 0]),
        })
    );
    assert_eq!(
        serde_json::to_value(&explained).unwrap()["ahead_on"],
        json!({"criterion": "table_places", "above": [1, 0, 1], "below": [0, 2, 0]})
    );
}

/// Entrants and qualifying games among them: 3- or 4-player tables, at most one winner, credited
/// VP from a narrow range so that rows are often level on VP, and players without games.
fn event_field() -> impl Strategy<Value = (Vec<PlayerId>, Vec<Game>)> {
    (4usize..=10)
        .prop_flat_map(distinct_players)
        .prop_flat_map(|entrants| {
            let game = (
                Just(entrants.clone()).prop_shuffle(),
                3usize..=4,
                vec(6u8..=9, 4),
                proptest::option::of(0usize..4),
            )
                .prop_map(|(seats, size, mut vps, winner)| {
                    if let Some(winner) = winner.filter(|&w| w < size) {
                        vps[winner] = 10;
                    }
                    Game {
                        credited: seats.into_iter().zip(vps).take(size).collect(),
                    }
                });
            (Just(entrants), vec(game, 0..6))
        })
}

/// The event standings' sort keys in their order, larger is better, computed here from the rows.
fn event_keys(row: &ClassicRow) -> [BigRational; 3] {
    let whole = |n: u32| BigRational::from_integer(BigInt::from(n));
    [whole(row.vp), row.vp_share.to_rational(), whole(row.wins)]
}

/// A season's sort key on one tie-break, larger is better, computed here from the row.
fn season_key(tie_break: TieBreak, row: &SeasonRow) -> Vec<BigRational> {
    let whole = |n: u64| BigRational::from_integer(BigInt::from(n));
    match tie_break {
        TieBreak::Points => vec![row.points.clone()],
        TieBreak::Wins => vec![whole(row.wins.into())],
        TieBreak::Vp | TieBreak::VpCappedAtWinningTotal => vec![whole(row.vp)],
        TieBreak::VpShare => vec![row.vp_share.clone()],
        // No place is worse than any place: as a place beyond every field.
        TieBreak::BestPlace => vec![-whole(row.best_place.map_or(u64::MAX, u64::from))],
        TieBreak::FewerEvents => vec![-whole(row.events_played.into())],
        TieBreak::TablePlaces => row.table_places.iter().map(|&n| whole(n.into())).collect(),
    }
}

/// A season of finished events among players 1 to 8: placements, and games at which the first
/// three or four placed sat.
fn season_events() -> impl Strategy<Value = Vec<SeasonEvent>> {
    let event = (
        Just((1u128..=8).collect::<Vec<u128>>()).prop_shuffle(),
        3usize..=8,
        vec(
            (
                vec(2u32..=12, 4),
                proptest::option::of(0usize..4),
                3usize..=4,
            ),
            0..3,
        ),
    );
    vec(event, 1..5).prop_map(|events| {
        events
            .into_iter()
            .zip(1u128..)
            .map(|((ids, field, games), id)| {
                let players: Vec<PlayerId> = ids[..field].iter().map(|&n| player(n)).collect();
                let games = games
                    .into_iter()
                    .map(|(vps, winner, size)| SeasonGame {
                        seats: (0..size.min(field))
                            .map(|k| seat(players[k], vps[k], winner == Some(k)))
                            .collect(),
                        target_vp: 10,
                    })
                    .collect();
                SeasonEvent {
                    event: uuid::Uuid::from_u128(0xE000 + id),
                    field_size: u32::try_from(field).unwrap(),
                    rounds_played: 3,
                    placements_complete: true,
                    placements: players.iter().copied().zip(1..).collect(),
                    games,
                }
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn an_event_explanation_names_the_first_key_on_which_the_rows_differ(
        (entrants, games) in event_field()
    ) {
        let standings = classic_standings(&entrants, &games);
        let explained = explain_event_standings(&standings);
        prop_assert_eq!(explained.len(), standings.len());
        for (pair, explanation) in standings.windows(2).zip(explained.iter().skip(1)) {
            let explanation = explanation.as_ref().unwrap();
            let (above, below) = (event_keys(&pair[0]), event_keys(&pair[1]));
            let first = (0..3).find(|&k| above[k] != below[k]);
            let level: Vec<EventCriterion> = explanation.level_on.iter().map(|l| l.criterion).collect();
            match first {
                Some(k) => {
                    prop_assert!(above[k] > below[k]);
                    prop_assert_eq!(&level[..], &EVENT_CRITERIA[..k]);
                    let ahead = explanation.ahead_on.as_ref().unwrap();
                    prop_assert_eq!(ahead.criterion, EVENT_CRITERIA[k]);
                    prop_assert_ne!(&ahead.above, &ahead.below);
                }
                None => {
                    prop_assert_eq!(&level[..], &EVENT_CRITERIA[..]);
                    prop_assert!(explanation.ahead_on.is_none());
                    prop_assert!(pair[0].player < pair[1].player);
                    prop_assert_eq!(pair[0].rank, pair[1].rank);
                }
            }
            // The figures of the level criteria are both rows'.
            let swapped = explain_event_rows(&pair[1], &pair[0]);
            prop_assert_eq!(&swapped.level_on, &explanation.level_on);
        }
    }

    #[test]
    fn a_season_explanation_names_the_first_tie_break_on_which_the_rows_differ(
        events in season_events(),
        tie_breaks in Just(TieBreak::ALL.to_vec()).prop_shuffle(),
        listed in 0usize..=8,
    ) {
        let names: Vec<&str> = tie_breaks[..listed].iter().map(|t| t.name()).collect();
        let rules = season_scoring(json!({
            "mode": "placement", "points": [10, 6, 3, 1], "best_n": 2, "tie_breaks": names,
        }));
        let rows = season_standings(&rules, &events);
        let explained = explain_season_standings(&rules.ranking, &rows);
        prop_assert_eq!(explained.len(), rows.len());
        for (pair, explanation) in rows.windows(2).zip(explained.iter().skip(1)) {
            let explanation = explanation.as_ref().unwrap();
            let first = rules
                .ranking
                .iter()
                .position(|&t| season_key(t, &pair[0]) != season_key(t, &pair[1]));
            let level: Vec<TieBreak> = explanation.level_on.iter().map(|l| l.criterion).collect();
            match first {
                Some(k) => {
                    let tie_break = rules.ranking[k];
                    prop_assert_eq!(
                        season_key(tie_break, &pair[0]).cmp(&season_key(tie_break, &pair[1])),
                        Ordering::Greater
                    );
                    prop_assert_eq!(&level[..], &rules.ranking[..k]);
                    let ahead = explanation.ahead_on.as_ref().unwrap();
                    prop_assert_eq!(ahead.criterion, tie_break);
                    prop_assert_ne!(&ahead.above, &ahead.below);
                }
                None => {
                    prop_assert_eq!(&level[..], &rules.ranking[..]);
                    prop_assert!(explanation.ahead_on.is_none());
                    prop_assert!(pair[0].player < pair[1].player);
                    prop_assert_eq!(pair[0].rank, pair[1].rank);
                }
            }
            let swapped = explain_season_rows(&rules.ranking, &pair[1], &pair[0]);
            prop_assert_eq!(&swapped.level_on, &explanation.level_on);
        }
    }
}
