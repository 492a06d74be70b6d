//! `classic`: draw every round of an event with the engine, and with the random baseline.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use catan_domain::pairing::{ClassicRequest, draw_classic_round, schedule_figures};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use crate::baseline;

fn millis(start: Instant) -> f64 {
    (start.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

pub fn engine_schedule(players: usize, rounds: usize, seed: u64) -> (Vec<Vec<Vec<u32>>>, Vec<f64>) {
    let active: Vec<u32> = (0..players as u32).collect();
    let mut schedule: Vec<Vec<Vec<u32>>> = Vec::new();
    let mut times = Vec::new();
    for round in 0..rounds {
        let start = Instant::now();
        let drawn = draw_classic_round(&ClassicRequest {
            active: &active,
            history: &schedule,
            total_rounds: rounds,
            keep_apart: &[],
            seed: seed.wrapping_add(round as u64),
        })
        .expect("the field can be seated");
        times.push(millis(start));
        schedule.push(drawn.tables.into_iter().map(|t| t.players).collect());
    }
    (schedule, times)
}

pub fn baseline_schedule(
    players: usize,
    rounds: usize,
    seed: u64,
) -> (Vec<Vec<Vec<u32>>>, Vec<f64>) {
    let active: Vec<u32> = (0..players as u32).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut met: HashSet<(u32, u32)> = HashSet::new();
    let mut three_player_games: HashMap<u32, u32> = HashMap::new();
    let mut schedule = Vec::new();
    let mut times = Vec::new();
    for _ in 0..rounds {
        let start = Instant::now();
        let games = |p: u32| three_player_games.get(&p).copied().unwrap_or(0);
        let tables = baseline::random_classic_round(&active, &met, &games, &mut rng);
        times.push(millis(start));
        for table in &tables {
            for (i, &a) in table.iter().enumerate() {
                if table.len() == 3 {
                    *three_player_games.entry(a).or_default() += 1;
                }
                for &b in &table[i + 1..] {
                    met.insert((a.min(b), a.max(b)));
                }
            }
        }
        schedule.push(tables);
    }
    (schedule, times)
}

pub fn run(
    players: usize,
    rounds: usize,
    seed: u64,
    with_schedule: bool,
    with_baseline: bool,
) -> Value {
    let (schedule, times) = engine_schedule(players, rounds, seed);
    let figures = schedule_figures(&schedule, &[]);
    let mut report = json!({
        "players": players,
        "rounds": rounds,
        "seed": seed,
        "repeat_meetings": figures.repeat_meetings,
        "repeat_cost_squared": figures.repeat_cost_squared,
        "three_player_spread": figures.three_player_spread,
        "position_repeats": figures.position_repeats,
        "millis_per_round": times,
    });
    if with_baseline {
        let (random, random_times) = baseline_schedule(players, rounds, seed);
        let random_figures = schedule_figures(&random, &[]);
        report["baseline"] = json!({
            "method": "random draw retried until no repeat, at most 1000 tries",
            "repeat_meetings": random_figures.repeat_meetings,
            "repeat_cost_squared": random_figures.repeat_cost_squared,
            "three_player_spread": random_figures.three_player_spread,
            "millis_per_round": random_times,
        });
    }
    if with_schedule {
        report["schedule"] = json!(schedule);
    }
    report
}

/// One line per field size: the engine's repeats and time for a whole event of `rounds`.
pub fn sweep(from: usize, to: usize, rounds: usize, seed: u64) -> Value {
    let mut fields = Vec::new();
    let mut with_repeats = Vec::new();
    for players in (from..=to).filter(|&n| n >= 3 && n != 5) {
        let start = Instant::now();
        let (schedule, times) = engine_schedule(players, rounds, seed);
        let total = millis(start);
        let figures = schedule_figures(&schedule, &[]);
        if figures.repeat_meetings > 0 {
            with_repeats.push(players);
        }
        let slowest = times.iter().copied().fold(0.0, f64::max);
        eprintln!(
            "N={players:>5} rounds={rounds} repeats={} squared={} positions={} max_ms_round={slowest:.2} total_ms={total:.1}",
            figures.repeat_meetings, figures.repeat_cost_squared, figures.position_repeats
        );
        fields.push(json!({
            "players": players,
            "repeat_meetings": figures.repeat_meetings,
            "position_repeats": figures.position_repeats,
            "max_millis_per_round": slowest,
            "total_millis": total,
        }));
    }
    json!({ "rounds": rounds, "seed": seed, "fields_with_repeats": with_repeats, "fields": fields })
}
