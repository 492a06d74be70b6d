//! The season's projection against real remaining events: random fields, placements and games,
//! scored and qualified by the season's own rules. Whatever they are, a player the projection
//! calls qualified is qualified at the end, and one it says cannot qualify is not.

use std::collections::HashSet;

use proptest::collection::{btree_set, vec};
use proptest::prelude::*;
use serde_json::json;

use super::super::*;
use super::season_scoring;
use crate::PlayerId;
use crate::season::{
    SeasonEvent, SeasonGame, SeasonQualification, SeasonSeat, qualify, season_standings,
};
use crate::seating::table_sizes;

/// An event's players in the order of their places, and the raw numbers of its games.
type Played = (Vec<u128>, Vec<(u8, bool)>);

/// A finished event of these players placed in their order, in which every one of them plays
/// `rounds` games at the tables of its field (a table's first flagged seat won with at least 10).
fn event(id: u128, (ids, raw): &Played, rounds: usize) -> SeasonEvent {
    let players: Vec<PlayerId> = ids.iter().map(|&n| PlayerId::from_u128(n)).collect();
    let mut numbers = raw.iter().cycle();
    let mut games = Vec::new();
    if let Ok(sizes) = table_sizes(players.len()) {
        for round in 0..rounds {
            let mut seated = players.clone();
            seated.rotate_left(round % players.len());
            let mut rest = &seated[..];
            for size in sizes.in_order() {
                let (table, tail) = rest.split_at(size);
                rest = tail;
                let mut won = false;
                let seats = table
                    .iter()
                    .map(|&player| {
                        let (vp, flag) = numbers.next().copied().unwrap_or((0, false));
                        let wins = flag && !won;
                        won |= wins;
                        let vp = 2 + u32::from(vp % 11);
                        SeasonSeat {
                            player,
                            won: wins,
                            vp: if wins { vp.max(10) } else { vp.min(9) },
                            team: None,
                        }
                    })
                    .collect();
                games.push(SeasonGame {
                    seats,
                    target_vp: 10,
                });
            }
        }
    }
    SeasonEvent {
        event: uuid::Uuid::from_u128(0xE000 + id),
        field_size: u32::try_from(players.len()).unwrap(),
        rounds_played: u32::try_from(rounds).unwrap(),
        placements_complete: true,
        placements: players.into_iter().zip(1..).collect(),
        games,
    }
}

/// `count` of the season's players 1 to 8 and newcomers 20 to 23, in a random order.
fn field(newcomers: bool) -> impl Strategy<Value = Played> {
    let pool: Vec<u128> = if newcomers {
        (1..=8).chain(20..=23).collect()
    } else {
        (1..=8).collect()
    };
    (
        Just(pool).prop_shuffle(),
        prop_oneof![Just(3usize), Just(4), Just(6), Just(7), Just(8)],
        vec((any::<u8>(), any::<bool>()), 16),
    )
        .prop_map(|(pool, size, raw)| (pool[..size].to_vec(), raw))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn qualified_players_qualify_and_those_who_cannot_do_not(
        played in vec(field(false), 1..=5),
        to_come in vec(field(true), 1..=2),
        rounds in 1usize..=2,
        points in prop_oneof![
            Just(json!({"mode": "placement", "points": [10, 6, 3, 1]})),
            Just(json!({"mode": "placement", "scaled": {"top": 16, "full_field": 8}})),
            Just(json!({"mode": "table_points"})),
        ],
        best_n in proptest::option::of(1u32..=3),
        first_only in any::<bool>(),
        tie_breaks in Just(crate::season::TieBreak::ALL.to_vec()).prop_shuffle(),
        (event_slots, season_slots, pass_down) in (0u32..=2, 0u32..=3, any::<bool>()),
        declined in btree_set(1u128..=23, 0..=2),
    ) {
        let mut scoring = points;
        let names: Vec<&str> = tie_breaks.iter().take(3).map(|t| t.name()).collect();
        if let Some(scoring) = scoring.as_object_mut() {
            scoring.insert("best_n".into(), json!(best_n));
            scoring.insert("tie_breaks".into(), json!(names));
            let eligibility = if first_only { "first_qualifier_only" } else { "every_event" };
            scoring.insert("eligibility".into(), json!(eligibility));
            scoring.insert(
                "tiers".into(),
                json!([{"name": "small", "min_players": 0, "max_players": 4, "max_counted": 1}]),
            );
        }
        let scoring = season_scoring(scoring);
        let qualification = SeasonQualification {
            event_slots,
            pass_down,
            season_slots: season_slots.max(1 - event_slots.min(1)),
        };
        let declined: HashSet<PlayerId> = declined.into_iter().map(PlayerId::from_u128).collect();
        let so_far: Vec<SeasonEvent> =
            played.iter().zip(1..).map(|(p, id)| event(id, p, rounds)).collect();
        let table = season_standings(&scoring, &so_far);
        let qualified = qualify(&qualification, &scoring, &so_far, &table, &declined);
        let remaining: Vec<RemainingEvent> = to_come
            .iter()
            .filter_map(|(ids, _)| {
                let field = u32::try_from(ids.len()).unwrap();
                RemainingEvent::under(&scoring, Some(field), u32::try_from(rounds).unwrap())
            })
            .collect();
        let projection =
            project_season(&scoring, &qualification, &table, &qualified, &declined, &remaining);

        let all: Vec<SeasonEvent> = so_far
            .iter()
            .cloned()
            .chain(to_come.iter().zip(100..).map(|(p, id)| event(id, p, rounds)))
            .collect();
        let final_table = season_standings(&scoring, &all);
        let at_the_end: HashSet<PlayerId> =
            qualify(&qualification, &scoring, &all, &final_table, &declined)
                .into_iter()
                .map(|q| q.player)
                .collect();
        for projected in &projection.players {
            match projected.outlook {
                QualificationOutlook::AlreadyQualified => {
                    prop_assert!(at_the_end.contains(&projected.player));
                }
                QualificationOutlook::CannotQualify => {
                    prop_assert!(!at_the_end.contains(&projected.player));
                }
                QualificationOutlook::CanStillQualify => {}
            }
        }
    }
}
