//! The event's projection against real playings: random legal sheets at the tables of the field.

use std::collections::HashSet;

use proptest::collection::vec;
use proptest::prelude::*;

use super::super::*;
use crate::PlayerId;
use crate::playoffs::SmallFieldRule;
use crate::seating::table_sizes;
use crate::standings::{Game, classic_standings};

/// A legal table's credited VP from raw numbers: the first seat whose flag is set won (credited
/// 10), none when no flag is set (the time limit); the others 2 to 9.
fn credited_table(raw: &[(u8, bool)], size: usize) -> Vec<u8> {
    let mut table: Vec<u8> = raw.iter().take(size).map(|&(vp, _)| 2 + vp % 8).collect();
    if let Some(seat) = raw.iter().take(size).position(|&(_, won)| won) {
        table[seat] = 10;
    }
    table
}

/// Rounds of games seating `players` in a shuffled order at the tables the seating gives them.
fn play_rounds(players: &[PlayerId], draws: &[Round]) -> Vec<Game> {
    let Ok(sizes) = table_sizes(players.len()) else {
        return Vec::new();
    };
    let mut games = Vec::new();
    for (order, raw) in draws {
        let seated: Vec<PlayerId> = order
            .iter()
            .filter(|&&k| k < players.len())
            .map(|&k| players[k])
            .collect();
        let mut rest = &seated[..];
        let mut numbers = &raw[..];
        for size in sizes.in_order() {
            let (table, tail) = rest.split_at(size);
            rest = tail;
            let credited = credited_table(numbers, size);
            numbers = &numbers[size..];
            games.push(Game {
                credited: table.iter().copied().zip(credited).collect(),
            });
        }
    }
    games
}

/// A round's seating order (of up to 22 players) and the raw numbers of its sheets.
type Round = (Vec<usize>, Vec<(u8, bool)>);

fn a_round() -> impl Strategy<Value = Round> {
    (
        Just((0..22).collect::<Vec<usize>>()).prop_shuffle(),
        vec((any::<u8>(), any::<bool>()), 22),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Played for real: the rounds so far and the remaining ones at tables of the field, every
    /// game a legal sheet. Whatever the remaining sheets say, a player called sure makes the
    /// cut, one who cannot does not, and one who scores what he needs makes it.
    #[test]
    fn sure_players_make_the_cut_whatever_the_sheets_say(
        field in 3usize..=20,
        left in 0usize..=2,
        played in vec(a_round(), 1..=4),
        remaining in vec(a_round(), 1..=2),
        ids in proptest::collection::btree_set(any::<u128>(), 22),
    ) {
        prop_assume!(field != 5 && field + left != 5);
        let ids: Vec<PlayerId> = ids.into_iter().map(PlayerId::from_u128).collect();
        let entrants = &ids[..field + left];
        let still_in = &ids[..field];
        // The players who left played the first round.
        let mut so_far = play_rounds(entrants, &played[..1]);
        so_far.extend(play_rounds(still_in, &played[1..]));
        let standings = classic_standings(entrants, &so_far);
        let rounds = u32::try_from(remaining.len()).unwrap();
        let projection =
            project_event(&standings, still_in, rounds, SmallFieldRule::FinalOfTop4).unwrap();
        let to_come = play_rounds(still_in, &remaining);
        let all: Vec<Game> = so_far.iter().chain(&to_come).cloned().collect();
        let cut = usize::try_from(projection.cut).unwrap();
        let made_it: HashSet<PlayerId> = classic_standings(entrants, &all)
            .iter()
            .filter(|row| still_in.contains(&row.player))
            .take(cut)
            .map(|row| row.player)
            .collect();
        for projected in &projection.players {
            let who = projected.player;
            let scored: Vec<u32> = to_come
                .iter()
                .filter_map(|game| game.credited.iter().find(|(p, _)| *p == who))
                .map(|&(_, vp)| u32::from(vp))
                .collect();
            match projected.outlook {
                CutOutlook::AlreadySure => prop_assert!(made_it.contains(&who)),
                CutOutlook::CannotMakeIt => prop_assert!(!made_it.contains(&who)),
                CutOutlook::CanStillMakeIt => {}
            }
            if let Some(need) = projected.need {
                if scored.iter().sum::<u32>() >= need.total_vp {
                    prop_assert!(made_it.contains(&who));
                }
                if scored.iter().all(|&vp| vp >= u32::from(need.vp_each_game)) {
                    prop_assert!(made_it.contains(&who));
                }
            }
        }
    }
}
