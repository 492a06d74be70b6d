//! Replaying ratings: a season's games played one after another through the rating model.

use catan_domain::PlayerId;
use catan_domain::ratings::{Model, RatedGame, Ratings, places_by};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::time::Instant;

/// Random tables of 3 and 4 from a pool of `players`, with VP-like finishing keys.
fn random_games(games: usize, players: usize, seed: u64) -> Vec<RatedGame> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pool: Vec<PlayerId> = (0..players as u128).map(PlayerId::from_u128).collect();
    (0..games)
        .map(|_| {
            let size = if rng.random_bool(0.25) { 3 } else { 4 };
            let seated: Vec<PlayerId> = pool.choose_multiple(&mut rng, size).copied().collect();
            let keys: Vec<i64> = (0..size).map(|_| -rng.random_range(2..=12)).collect();
            RatedGame {
                teams: seated.into_iter().map(|p| vec![p]).collect(),
                places: places_by(&keys),
            }
        })
        .collect()
}

/// Replays `games` random games of a pool of `players` and reports how long it took.
pub fn run(games: usize, players: usize, seed: u64) -> Value {
    let season = random_games(games, players, seed);
    let started = Instant::now();
    let mut ratings = Ratings::new(Model::default());
    for game in &season {
        ratings.play(game);
    }
    let seconds = started.elapsed().as_secs_f64();
    let best = (0..players as u128)
        .map(|n| ratings.of(PlayerId::from_u128(n)).ordinal())
        .fold(f64::MIN, f64::max);
    json!({
        "games": games,
        "players": players,
        "seconds": (seconds * 1000.0).round() / 1000.0,
        "games_per_second": (games as f64 / seconds).round(),
        "best_ordinal": (best * 1000.0).round() / 1000.0,
    })
}
