//! The simplest alternatives the engine is measured against.

use std::collections::HashSet;

use catan_domain::pairing::SwissTeam;
use catan_domain::seating::table_sizes;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

const TRIES: usize = 1_000;

fn pair(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

/// A random classic round that keeps the hard rules (players with the fewest 3-player games
/// take the tables of 3), retried until no pair meets again, keeping the try with the fewest
/// new repeats after at most 1,000 tries.
pub fn random_classic_round(
    players: &[u32],
    met: &HashSet<(u32, u32)>,
    three_player_games: &dyn Fn(u32) -> u32,
    rng: &mut ChaCha8Rng,
) -> Vec<Vec<u32>> {
    let sizes = table_sizes(players.len()).expect("the field can be seated");
    let mut best: Option<(usize, Vec<Vec<u32>>)> = None;
    for _ in 0..TRIES {
        let mut order = players.to_vec();
        order.shuffle(rng);
        order.sort_by_key(|&p| three_player_games(p));
        let (threes, fours) = order.split_at(3 * sizes.threes);
        let mut fours = fours.to_vec();
        fours.shuffle(rng);
        let mut threes = threes.to_vec();
        threes.shuffle(rng);
        let seated: Vec<u32> = fours.into_iter().chain(threes).collect();
        let mut rest = seated.as_slice();
        let tables: Vec<Vec<u32>> = sizes
            .in_order()
            .map(|size| {
                let (table, tail) = rest.split_at(size);
                rest = tail;
                table.to_vec()
            })
            .collect();
        let repeats = tables
            .iter()
            .flat_map(|t| {
                t.iter()
                    .enumerate()
                    .flat_map(move |(i, &a)| t[i + 1..].iter().map(move |&b| pair(a, b)))
            })
            .filter(|p| met.contains(p))
            .count();
        if best.as_ref().is_none_or(|(fewest, _)| repeats < *fewest) {
            best = Some((repeats, tables));
        }
        if repeats == 0 {
            break;
        }
    }
    best.expect("at least one try").1
}

/// Random pairs, retried until no rematch (at most 1,000 tries, keeping the fewest rematches).
/// The bye goes to the same team as the engine's, so only the pairing differs.
pub fn random_swiss_pairs(
    teams: &[SwissTeam],
    bye: Option<u32>,
    played: &HashSet<(u32, u32)>,
    rng: &mut ChaCha8Rng,
) -> Vec<(u32, u32)> {
    let field: Vec<u32> = teams
        .iter()
        .map(|t| t.team)
        .filter(|&t| Some(t) != bye)
        .collect();
    let mut best: Option<(usize, Vec<(u32, u32)>)> = None;
    for _ in 0..TRIES {
        let mut order = field.clone();
        order.shuffle(rng);
        let pairs: Vec<(u32, u32)> = order.chunks(2).map(|c| (c[0], c[1])).collect();
        let rematches = pairs
            .iter()
            .filter(|&&(a, b)| played.contains(&pair(a, b)))
            .count();
        if best.as_ref().is_none_or(|(fewest, _)| rematches < *fewest) {
            best = Some((rematches, pairs));
        }
        if rematches == 0 {
            break;
        }
    }
    best.map(|(_, pairs)| pairs).unwrap_or_default()
}
