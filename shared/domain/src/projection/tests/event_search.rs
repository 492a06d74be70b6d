//! The event's projection against an exhaustive search of its model on fields of up to 8
//! players and up to 2 remaining rounds.

use std::cmp::Reverse;

use proptest::collection::vec;
use proptest::prelude::*;

use super::super::game::{Figures, Tables};
use super::super::*;
use super::{every_seat_outcome, row};
use crate::PlayerId;
use crate::playoffs::{PlayoffPlan, SEMIFINALISTS, SmallFieldRule, playoff_plan};
use crate::standings::ClassicRow;

/// The playoff's cut of a field of `players` still in, as the playoffs plan it.
fn cut_of(players: usize, rule: SmallFieldRule) -> Option<usize> {
    match playoff_plan(players, rule) {
        PlayoffPlan::SemifinalsAndFinal => Some(SEMIFINALISTS),
        PlayoffPlan::FinalOnly { size } => Some(size),
        PlayoffPlan::None => None,
    }
}

/// What some remaining games add to a player's figures, with the fewest VP of any one game.
#[derive(Clone, Copy)]
struct Added {
    figures: Figures,
    fewest_in_a_game: u32,
}

/// Every sequence of `rounds` seat outcomes a legal sheet gives at these tables.
fn every_sequence(tables: Tables, rounds: u32) -> Vec<Added> {
    let outcomes = every_seat_outcome(tables);
    let mut sequences = vec![Added {
        figures: Figures::default(),
        fewest_in_a_game: u32::MAX,
    }];
    for _ in 0..rounds {
        sequences = sequences
            .iter()
            .flat_map(|so_far| {
                outcomes.iter().map(move |&game| Added {
                    figures: so_far.figures + game,
                    fewest_in_a_game: so_far.fewest_in_a_game.min(game.vp),
                })
            })
            .collect();
    }
    sequences
}

/// The projection by exhaustive search of the model: every player's remaining games are any
/// sequence of outcomes legal sheets give, each player's apart from the others'. In such a
/// product a completion where `cut` rivals finish ahead of a player exists exactly when `cut`
/// rivals each can, so for each of the player's own sequences it is enough to know each rival's
/// highest and lowest end, found here by trying every sequence too.
fn by_search(
    rows: &[ClassicRow],
    still_in: &[PlayerId],
    rounds: u32,
    rule: SmallFieldRule,
) -> Option<Vec<(CutOutlook, Option<CutNeed>)>> {
    let field: Vec<&ClassicRow> = rows
        .iter()
        .filter(|row| still_in.contains(&row.player))
        .collect();
    let cut = cut_of(field.len(), rule)?;
    let sequences = every_sequence(Tables::of_field(field.len()), rounds);
    let now = |row: &ClassicRow| Figures {
        vp: row.vp,
        share: row.vp_share,
        wins: row.wins,
    };
    let end = |row: &ClassicRow, added: &Added| (now(row) + added.figures, Reverse(row.player));
    let highest: Vec<_> = field
        .iter()
        .map(|row| sequences.iter().map(|added| end(row, added)).max().unwrap())
        .collect();
    let lowest: Vec<_> = field
        .iter()
        .map(|row| sequences.iter().map(|added| end(row, added)).min().unwrap())
        .collect();
    let outlooks = rows.iter().map(|row| {
        let Some(me) = field.iter().position(|r| r.player == row.player) else {
            return (CutOutlook::CannotMakeIt, None);
        };
        let ahead = |ends: &[_], mine| {
            (0..field.len())
                .filter(|&other| other != me && ends[other] > mine)
                .count()
        };
        let falls_short = |added: &Added| ahead(&highest, end(row, added)) >= cut;
        let sure = !sequences.iter().any(falls_short);
        let can = sequences
            .iter()
            .any(|added| ahead(&lowest, end(row, added)) < cut);
        let outlook = match (sure, can) {
            (true, _) => CutOutlook::AlreadySure,
            (false, true) => CutOutlook::CanStillMakeIt,
            (false, false) => CutOutlook::CannotMakeIt,
        };
        let need = (outlook == CutOutlook::CanStillMakeIt)
            .then(|| {
                let short: Vec<&Added> = sequences.iter().filter(|a| falls_short(a)).collect();
                let total_vp = short.iter().map(|a| a.figures.vp).max()? + 1;
                let each = short.iter().map(|a| a.fewest_in_a_game).max()? + 1;
                (total_vp <= 10 * rounds && each <= 10).then(|| CutNeed {
                    total_vp,
                    vp_each_game: u8::try_from(each).unwrap(),
                })
            })
            .flatten();
        (outlook, need)
    });
    Some(outlooks.collect())
}

/// Standings of `players` ids with `dropped` of them no longer in: each player's figures so far
/// are a few seat outcomes of legal sheets, often the same as another player's, so that players
/// are level, on VP or on everything, near the cut.
fn small_event() -> impl Strategy<Value = (Vec<ClassicRow>, Vec<PlayerId>, u32, SmallFieldRule)> {
    let outcomes = every_seat_outcome(Tables {
        four: true,
        three: true,
    });
    let history = vec(0..outcomes.len(), 0..=3);
    (
        3usize..=8,
        0usize..=2,
        vec(history.clone(), 3),
        vec((history, 0usize..6), 10),
        proptest::collection::btree_set(any::<u128>(), 10),
        0u32..=2,
        prop_oneof![
            Just(SmallFieldRule::FinalOfTop4),
            Just(SmallFieldRule::NoPlayoff)
        ],
    )
        .prop_map(move |(active, dropped, shared, own, ids, rounds, rule)| {
            let ids: Vec<PlayerId> = ids.into_iter().map(PlayerId::from_u128).collect();
            let rows: Vec<ClassicRow> = own
                .iter()
                .take(active + dropped)
                .zip(&ids)
                .map(|((history, pick), &who)| {
                    let games = shared.get(*pick).unwrap_or(history);
                    let figures = games
                        .iter()
                        .fold(Figures::default(), |sum, &g| sum + outcomes[g]);
                    row(who, figures)
                })
                .collect();
            let still_in = ids[..active].to_vec();
            (rows, still_in, rounds, rule)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_projection_is_the_exhaustive_search_of_the_model(
        (rows, still_in, rounds, rule) in small_event()
    ) {
        let projected = project_event(&rows, &still_in, rounds, rule);
        let searched = by_search(&rows, &still_in, rounds, rule);
        prop_assert_eq!(projected.is_some(), searched.is_some());
        if let (Some(projected), Some(searched)) = (projected, searched) {
            let projected: Vec<(CutOutlook, Option<CutNeed>)> =
                projected.players.iter().map(|p| (p.outlook, p.need)).collect();
            prop_assert_eq!(projected, searched);
        }
    }
}
