//! The playoff projection of a large event (issue 35): a classic event's qualifying standings
//! after some rounds of random legal games, and the projection of every player computed from
//! them, timed.

use catan_domain::PlayerId;
use catan_domain::playoffs::SmallFieldRule;
use catan_domain::projection::{CutOutlook, project_event};
use catan_domain::seating::table_sizes;
use catan_domain::standings::{Game, classic_standings};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::time::Instant;

/// Credited VP of a legal table: one winner with 10 (four games in five), the others 2 to 9.
fn random_table(size: usize, rng: &mut impl Rng) -> Vec<u8> {
    let mut credited: Vec<u8> = (0..size).map(|_| rng.random_range(2..=9)).collect();
    if rng.random_bool(0.8) {
        let winner = rng.random_range(0..size);
        credited[winner] = 10;
    }
    credited
}

/// `rounds` rounds of `players` seated at random at the tables the seating gives them.
fn random_rounds(players: &[PlayerId], rounds: u32, rng: &mut ChaCha8Rng) -> Vec<Game> {
    let Ok(sizes) = table_sizes(players.len()) else {
        return Vec::new();
    };
    let mut games = Vec::new();
    for _ in 0..rounds {
        let mut order = players.to_vec();
        order.shuffle(rng);
        let mut rest = &order[..];
        for size in sizes.in_order() {
            let (table, tail) = rest.split_at(size);
            rest = tail;
            let credited = random_table(size, rng);
            games.push(Game {
                credited: table.iter().copied().zip(credited).collect(),
            });
        }
    }
    games
}

/// The projection of `players` after `played` of `rounds` qualifying rounds, computed `repeats`
/// times: the fastest and the median time, and how many players each outlook holds.
pub fn run(players: usize, rounds: u32, played: u32, repeats: usize, seed: u64) -> Value {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let field: Vec<PlayerId> = (0..players as u128).map(PlayerId::from_u128).collect();
    let games = random_rounds(&field, played, &mut rng);
    let remaining = rounds.saturating_sub(played);
    let mut times = Vec::with_capacity(repeats);
    let mut projection = None;
    for _ in 0..repeats.max(1) {
        let started = Instant::now();
        // The standings are computed with it: what ranking does for every new view.
        let standings = classic_standings(&field, &games);
        projection = project_event(&standings, &field, remaining, SmallFieldRule::FinalOfTop4);
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    let count = |outlook: CutOutlook| {
        projection
            .iter()
            .flat_map(|p| &p.players)
            .filter(|p| p.outlook == outlook)
            .count()
    };
    let needs = projection
        .iter()
        .flat_map(|p| &p.players)
        .filter(|p| p.need.is_some())
        .count();
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let fastest = times[0];
    eprintln!(
        "projection: {players} players after {played} of {rounds} rounds: standings and projection in {median:.2} ms (median of {}), fastest {fastest:.2} ms; {} sure, {} can still ({needs} told what they need), {} cannot (target < 50 ms)",
        times.len(),
        count(CutOutlook::AlreadySure),
        count(CutOutlook::CanStillMakeIt),
        count(CutOutlook::CannotMakeIt),
    );
    json!({
        "players": players,
        "rounds": rounds,
        "played": played,
        "repeats": times.len(),
        "median_ms": (median * 1000.0).round() / 1000.0,
        "fastest_ms": (fastest * 1000.0).round() / 1000.0,
        "already_sure": count(CutOutlook::AlreadySure),
        "can_still_make_it": count(CutOutlook::CanStillMakeIt),
        "with_a_need": needs,
        "cannot_make_it": count(CutOutlook::CannotMakeIt),
    })
}
