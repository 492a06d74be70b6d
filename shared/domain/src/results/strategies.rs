//! Generators of valid sheets, and a sheet validated by hand, shared with the standings and
//! playoff tests.

use proptest::collection::{btree_set, vec};
use proptest::prelude::*;

use super::validate::breakdown_vp;
use super::*;
use crate::PlayerId;

/// A sheet that must validate, with the table and stage it belongs to.
#[derive(Debug, Clone)]
pub(crate) struct ValidSheet {
    pub sheet: RawSheet,
    pub seated: Vec<PlayerId>,
    pub stage: Stage,
}

pub(crate) fn player_id() -> impl Strategy<Value = PlayerId> {
    any::<u128>().prop_map(PlayerId::from_u128)
}

/// `count` distinct players, in a random order.
pub(crate) fn distinct_players(count: usize) -> impl Strategy<Value = Vec<PlayerId>> {
    btree_set(player_id(), count)
        .prop_flat_map(|set| Just(set.into_iter().collect()).prop_shuffle())
}

pub(crate) fn stage() -> impl Strategy<Value = Stage> {
    prop_oneof![
        Just(Stage::Qualifying),
        Just(Stage::Semifinal),
        Just(Stage::Final)
    ]
}

/// A valid sheet of a 3- or 4-player table at any stage.
pub(crate) fn valid_sheet() -> impl Strategy<Value = ValidSheet> {
    (3usize..=4, stage())
        .prop_flat_map(|(size, stage)| (distinct_players(size), Just(stage)))
        .prop_flat_map(|(players, stage)| valid_sheet_for(players, stage))
}

/// A valid sheet for these players: real breakdowns (some withheld from the sheet), the
/// shared cards given to at most one player each, and a winner with at least 10 VP.
pub(crate) fn valid_sheet_for(
    players: Vec<PlayerId>,
    stage: Stage,
) -> impl Strategy<Value = ValidSheet> {
    let size = players.len();
    let outcome = if stage == Stage::Final {
        Just(OutcomeKind::Won).boxed()
    } else {
        prop_oneof![Just(OutcomeKind::Won), Just(OutcomeKind::TimeLimit)].boxed()
    };
    (
        vec((0..=MAX_SETTLEMENTS, 0..=MAX_CITIES), size),
        vec(0..size, 0..=usize::try_from(VP_CARDS_IN_DECK).unwrap()),
        proptest::option::of(0..size),
        proptest::option::of(0..size),
        vec(any::<bool>(), size),
        outcome,
        0..size,
        Just(players.clone()).prop_shuffle(),
    )
        .prop_map(
            move |(
                buildings,
                vp_card_owners,
                road_holder,
                army_holder,
                breakdown_shown,
                outcome,
                winner_index,
                seated,
            )| {
                let winner_index = (outcome == OutcomeKind::Won).then_some(winner_index);
                let scores = players
                    .iter()
                    .enumerate()
                    .map(|(index, &player)| {
                        let (settlements, cities) = buildings[index];
                        let mut breakdown = RawBreakdown {
                            // Nobody loses the two settlements of the set-up.
                            settlements: settlements.max(MIN_BUILDINGS - cities),
                            cities,
                            vp_cards: vp_card_owners.iter().filter(|&&o| o == index).count() as i64,
                            longest_road: road_holder == Some(index),
                            largest_army: army_holder == Some(index),
                        };
                        // The winner builds on until he reaches 10: a settlement while he
                        // has one left, otherwise a city in place of a settlement.
                        while winner_index == Some(index)
                            && breakdown_vp(&breakdown) < i64::from(WINNING_VP)
                        {
                            if breakdown.settlements < MAX_SETTLEMENTS {
                                breakdown.settlements += 1;
                            } else {
                                breakdown.settlements -= 1;
                                breakdown.cities += 1;
                            }
                        }
                        RawScore {
                            player,
                            vp: breakdown_vp(&breakdown),
                            breakdown: breakdown_shown[index].then_some(breakdown),
                        }
                    })
                    .collect();
                ValidSheet {
                    sheet: RawSheet {
                        outcome,
                        winner: winner_index.map(|index| players[index]),
                        scores,
                    },
                    seated,
                    stage,
                }
            },
        )
}

/// The validated result of a valid sheet for these players.
pub(crate) fn table_result_for(
    players: Vec<PlayerId>,
    stage: Stage,
) -> impl Strategy<Value = TableResult> {
    valid_sheet_for(players, stage).prop_map(|valid| {
        validate_sheet(&valid.sheet, &valid.seated, valid.stage)
            .expect("generated sheets are valid")
    })
}

/// The validated result of `table` as (player, actual VP), won by `winner` or stopped at the time
/// limit when there is none.
pub(crate) fn validated_result(
    table: &[(PlayerId, i64)],
    winner: Option<PlayerId>,
    stage: Stage,
) -> TableResult {
    let sheet = RawSheet {
        outcome: if winner.is_some() {
            OutcomeKind::Won
        } else {
            OutcomeKind::TimeLimit
        },
        winner,
        scores: table
            .iter()
            .map(|&(player, vp)| RawScore {
                player,
                vp,
                breakdown: None,
            })
            .collect(),
    };
    let seated: Vec<PlayerId> = table.iter().map(|&(player, _)| player).collect();
    validate_sheet(&sheet, &seated, stage).expect("the sheet is valid")
}
