//! Tests of the playoff plan, the players who go through and the final placements.

use proptest::prelude::*;

use super::*;
use crate::PlayerId;
use crate::results::strategies::{distinct_players, table_result_for, validated_result};
use crate::results::{Stage, TableResult};
use crate::standings::{ClassicRow, Game, classic_standings};

fn player(n: u128) -> PlayerId {
    PlayerId::from_u128(n)
}

/// Standings where `players` finish in exactly this order (distinct VP totals).
fn standings_in_order(players: &[PlayerId]) -> Vec<ClassicRow> {
    let count = u8::try_from(players.len()).unwrap();
    let games: Vec<Game> = players
        .iter()
        .zip((1..=count).rev())
        .map(|(&p, vp)| Game {
            credited: vec![(p, vp)],
        })
        .collect();
    let standings = classic_standings(players, &games);
    assert_eq!(top_of_standings(&standings, players.len()), players);
    standings
}

/// A semi-final of `table`'s four players with these actual VP, won by `table[winner]` or stopped
/// at the time limit.
fn semifinal(table: &[PlayerId], vp: [i64; 4], winner: Option<usize>) -> TableResult {
    let scores: Vec<(PlayerId, i64)> = table.iter().copied().zip(vp).collect();
    validated_result(&scores, winner.map(|seat| table[seat]), Stage::Semifinal)
}

fn players_and_stages(placements: &[Placement]) -> Vec<(u32, PlayerId, Stage)> {
    placements
        .iter()
        .map(|p| (p.place, p.player, p.stage))
        .collect()
}

#[test]
fn sixteen_or_more_play_semifinals_and_a_final() {
    for qualified in [16, 17, 40] {
        for rule in [SmallFieldRule::FinalOfTop4, SmallFieldRule::NoPlayoff] {
            assert_eq!(
                playoff_plan(qualified, rule),
                PlayoffPlan::SemifinalsAndFinal
            );
        }
    }
}

#[test]
fn small_fields_follow_the_small_field_rule() {
    let final_of_top4 = |n| playoff_plan(n, SmallFieldRule::FinalOfTop4);
    assert_eq!(final_of_top4(15), PlayoffPlan::FinalOnly { size: 4 });
    assert_eq!(final_of_top4(4), PlayoffPlan::FinalOnly { size: 4 });
    assert_eq!(final_of_top4(3), PlayoffPlan::FinalOnly { size: 3 });
    assert_eq!(final_of_top4(2), PlayoffPlan::None);
    assert_eq!(final_of_top4(0), PlayoffPlan::None);
    for qualified in [15, 4, 3, 1] {
        assert_eq!(
            playoff_plan(qualified, SmallFieldRule::NoPlayoff),
            PlayoffPlan::None
        );
    }
    assert_eq!(SmallFieldRule::default(), SmallFieldRule::FinalOfTop4);
    assert_eq!(
        serde_json::to_value(SmallFieldRule::NoPlayoff).unwrap(),
        "no_playoff"
    );
}

#[test]
fn top_of_standings_takes_the_first_players_in_order() {
    let field: Vec<PlayerId> = (1..=6).map(player).rev().collect();
    let standings = standings_in_order(&field);
    assert_eq!(top_of_standings(&standings, 4), field[..4]);
    assert_eq!(top_of_standings(&standings, 10), field);
}

#[test]
fn a_won_table_sends_its_winner_through_even_if_someone_has_more_vp() {
    let table: Vec<PlayerId> = (1..=4).map(player).collect();
    // The fourth player reached 11 on the winner's turn: the win is still the winner's.
    let won = semifinal(&table, [7, 10, 5, 11], Some(1));
    assert_eq!(table_winner(&won, &table), table[1]);
}

#[test]
fn at_the_time_limit_the_highest_actual_vp_goes_through() {
    let table: Vec<PlayerId> = (1..=4).map(player).collect();
    // Both are credited 9; only the actual VP separates them.
    let stopped = semifinal(&table, [9, 11, 5, 8], None);
    assert_eq!(table_winner(&stopped, &table), table[1]);
}

#[test]
fn equal_highest_vp_at_the_time_limit_goes_to_the_better_qualifier() {
    let table: Vec<PlayerId> = (1..=4).map(player).collect();
    let stopped = semifinal(&table, [9, 8, 9, 6], None);
    let qualifying = [table[3], table[2], table[1], table[0]];
    assert_eq!(table_winner(&stopped, &qualifying), table[2]);
    let qualifying = [table[0], table[1], table[2], table[3]];
    assert_eq!(table_winner(&stopped, &qualifying), table[0]);
}

#[test]
fn placements_rank_finalists_then_semifinalists_then_the_rest() {
    let field: Vec<PlayerId> = (1..=18).map(player).collect();
    let standings = standings_in_order(&field);
    let seat = |i: usize| field[i];
    let semifinals = vec![
        semifinal(
            &[seat(0), seat(4), seat(8), seat(12)],
            [10, 8, 6, 3],
            Some(0),
        ),
        semifinal(&[seat(1), seat(5), seat(9), seat(13)], [7, 11, 8, 4], None),
        semifinal(
            &[seat(2), seat(6), seat(10), seat(14)],
            [5, 5, 10, 8],
            Some(2),
        ),
        semifinal(
            &[seat(3), seat(7), seat(11), seat(15)],
            [10, 8, 2, 8],
            Some(0),
        ),
    ];
    let finalists: Vec<PlayerId> = semifinals.iter().map(|t| table_winner(t, &field)).collect();
    assert_eq!(finalists, [seat(0), seat(5), seat(10), seat(3)]);
    let final_table = validated_result(
        &[(seat(0), 8), (seat(5), 10), (seat(10), 8), (seat(3), 9)],
        Some(seat(5)),
        Stage::Final,
    );

    let placed = placements(&standings, &semifinals, &final_table).unwrap();
    let expected_order = [
        (5, Stage::Final),
        (3, Stage::Final),
        // 8 VP each: seat 0 qualified better than seat 10.
        (0, Stage::Final),
        (10, Stage::Final),
        // Semi-final VP 8 (by qualifying position), then 7, 6, 5 and 5, 4, 3, 2.
        (4, Stage::Semifinal),
        (7, Stage::Semifinal),
        (9, Stage::Semifinal),
        (14, Stage::Semifinal),
        (15, Stage::Semifinal),
        (1, Stage::Semifinal),
        (8, Stage::Semifinal),
        (2, Stage::Semifinal),
        (6, Stage::Semifinal),
        (13, Stage::Semifinal),
        (12, Stage::Semifinal),
        (11, Stage::Semifinal),
        (16, Stage::Qualifying),
        (17, Stage::Qualifying),
    ];
    let expected: Vec<(u32, PlayerId, Stage)> = expected_order
        .iter()
        .zip(1..)
        .map(|(&(i, stage), place)| (place, seat(i), stage))
        .collect();
    assert_eq!(players_and_stages(&placed), expected);
}

#[test]
fn final_only_placements_follow_the_final_then_qualifying() {
    let field: Vec<PlayerId> = (1..=6).map(player).collect();
    let standings = standings_in_order(&field);
    let PlayoffPlan::FinalOnly { size } = playoff_plan(field.len(), SmallFieldRule::default())
    else {
        panic!("six players play a final only");
    };
    let top = top_of_standings(&standings, size);
    let final_table = validated_result(
        &[(top[0], 9), (top[1], 6), (top[2], 12), (top[3], 9)],
        Some(top[2]),
        Stage::Final,
    );
    let placed = placements(&standings, &[], &final_table).unwrap();
    assert_eq!(
        players_and_stages(&placed),
        [
            (1, field[2], Stage::Final),
            (2, field[0], Stage::Final),
            (3, field[3], Stage::Final),
            (4, field[1], Stage::Final),
            (5, field[4], Stage::Qualifying),
            (6, field[5], Stage::Qualifying),
        ]
    );
}

#[test]
fn a_final_without_a_winner_cannot_be_placed() {
    let field: Vec<PlayerId> = (1..=4).map(player).collect();
    let standings = standings_in_order(&field);
    // Only a sheet validated as a semi-final can stop at the time limit.
    let stopped = semifinal(&field, [9, 6, 5, 9], None);
    assert_eq!(
        placements(&standings, &[], &stopped),
        Err(PlayoffError::FinalWithoutWinner)
    );
}

#[test]
fn inconsistent_playoff_tables_are_errors() {
    let field: Vec<PlayerId> = (1..=8).map(player).collect();
    let standings = standings_in_order(&field);
    let stranger = player(99);
    let won = |table: [PlayerId; 4], stage| {
        validated_result(
            &[(table[0], 10), (table[1], 6), (table[2], 5), (table[3], 4)],
            Some(table[0]),
            stage,
        )
    };
    let semis = [
        won([field[0], field[2], field[4], field[6]], Stage::Semifinal),
        won([field[1], field[3], field[5], field[7]], Stage::Semifinal),
    ];

    let with_stranger = won([stranger, field[0], field[1], field[2]], Stage::Final);
    assert_eq!(
        placements(&standings, &[], &with_stranger),
        Err(PlayoffError::NotInStandings(stranger))
    );
    let skipped_semis = won([field[0], field[1], field[2], field[3]], Stage::Final);
    assert_eq!(
        placements(&standings, &semis[..1], &skipped_semis),
        Err(PlayoffError::FinalistWithoutSemifinal(field[1]))
    );
    let twice = [semis[0].clone(), semis[0].clone()];
    assert_eq!(
        placements(
            &standings,
            &twice,
            &won([field[0], field[2], field[4], field[6]], Stage::Final)
        ),
        Err(PlayoffError::SeatedTwice(field[0]))
    );
    let mut absent_winner = won([field[0], field[1], field[2], field[3]], Stage::Final);
    absent_winner.winner = Some(field[7]);
    assert_eq!(
        placements(&standings, &[], &absent_winner),
        Err(PlayoffError::WinnerNotAtFinal(field[7]))
    );
    assert!(
        placements(
            &standings,
            &semis,
            &won([field[0], field[1], field[2], field[3]], Stage::Final)
        )
        .is_ok()
    );
}

/// A whole playoff as the plan for a random field dictates, from random valid sheets.
fn playoff() -> impl Strategy<Value = (Vec<ClassicRow>, Vec<TableResult>, TableResult)> {
    (3usize..=22)
        .prop_flat_map(distinct_players)
        .prop_flat_map(|field| {
            // Qualifying VP from the field's order, with ties, so positions are not ids.
            let games: Vec<Game> = field
                .iter()
                .enumerate()
                .map(|(i, &p)| Game {
                    credited: vec![(p, u8::try_from(30 - i / 2).unwrap())],
                })
                .collect();
            let standings = classic_standings(&field, &games);
            let semifinals = match playoff_plan(standings.len(), SmallFieldRule::FinalOfTop4) {
                PlayoffPlan::SemifinalsAndFinal => {
                    Just(top_of_standings(&standings, SEMIFINALISTS))
                        .prop_shuffle()
                        .prop_flat_map(|seats| {
                            seats
                                .chunks(4)
                                .map(|table| table_result_for(table.to_vec(), Stage::Semifinal))
                                .collect::<Vec<_>>()
                        })
                        .boxed()
                }
                _ => Just(Vec::new()).boxed(),
            };
            (Just(standings), semifinals)
        })
        .prop_flat_map(|(standings, semifinals)| {
            let order = top_of_standings(&standings, standings.len());
            let finalists = if semifinals.is_empty() {
                let PlayoffPlan::FinalOnly { size } =
                    playoff_plan(standings.len(), SmallFieldRule::FinalOfTop4)
                else {
                    unreachable!("3 to 15 players play a final only");
                };
                top_of_standings(&standings, size)
            } else {
                semifinals
                    .iter()
                    .map(|table| table_winner(table, &order))
                    .collect()
            };
            let final_table = Just(finalists)
                .prop_shuffle()
                .prop_flat_map(|seats| table_result_for(seats, Stage::Final));
            (Just(standings), Just(semifinals), final_table)
        })
}

proptest! {
    #[test]
    fn placements_are_the_standings_reordered_with_finalists_first(
        (standings, semifinals, final_table) in playoff()
    ) {
        let placed = placements(&standings, &semifinals, &final_table).unwrap();
        let places: Vec<u32> = placed.iter().map(|p| p.place).collect();
        let expected_places: Vec<u32> = (1..=u32::try_from(standings.len()).unwrap()).collect();
        prop_assert_eq!(places, expected_places);

        let mut placed_players: Vec<PlayerId> = placed.iter().map(|p| p.player).collect();
        placed_players.sort();
        let mut ranked: Vec<PlayerId> = standings.iter().map(|r| r.player).collect();
        ranked.sort();
        prop_assert_eq!(placed_players, ranked);

        prop_assert_eq!(Some(placed[0].player), final_table.winner);
        let finalists = final_table.scores.len();
        let semifinalists: usize = semifinals.iter().map(|t| t.scores.len()).sum();
        let losers = semifinalists.saturating_sub(finalists);
        for (index, placement) in placed.iter().enumerate() {
            let expected_stage = if index < finalists {
                Stage::Final
            } else if index < finalists + losers {
                Stage::Semifinal
            } else {
                Stage::Qualifying
            };
            prop_assert_eq!(placement.stage, expected_stage);
        }

        // Within a playoff stage, actual VP never rises as places go down.
        let stage_vp = |p: &Placement| {
            let tables: Vec<&TableResult> = match p.stage {
                Stage::Final => vec![&final_table],
                _ => semifinals.iter().collect(),
            };
            tables.iter().find_map(|t| t.score_of(p.player)).map(|s| s.vp)
        };
        for pair in placed[1..finalists].windows(2).chain(placed[finalists..finalists + losers].windows(2)) {
            prop_assert!(stage_vp(&pair[0]) >= stage_vp(&pair[1]));
        }
        // The rest keep their qualifying order.
        let rest: Vec<PlayerId> = placed[finalists + losers..].iter().map(|p| p.player).collect();
        let qualifying_rest: Vec<PlayerId> = standings
            .iter()
            .map(|r| r.player)
            .filter(|p| rest.contains(p))
            .collect();
        prop_assert_eq!(rest, qualifying_rest);
    }
}
