//! `classic`: draw every round of an event with the engine, and with the random baseline.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use catan_domain::pairing::{
    ClassicRequest, RepeatBound, draw_classic_round, repeat_lower_bound, schedule_figures,
};
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
    let bound = lower_bound(players, rounds);
    let mut report = json!({
        "players": players,
        "rounds": rounds,
        "seed": seed,
        "repeat_meetings": figures.repeat_meetings,
        "lower_bound": bound,
        "proven_best": figures.repeat_meetings <= bound.repeats,
        "gap": figures.repeat_meetings.saturating_sub(bound.repeats),
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

fn lower_bound(players: usize, rounds: usize) -> RepeatBound {
    repeat_lower_bound(players, rounds).expect("the field can be seated")
}

/// One (N, R) of a sweep over its seeds.
struct Field {
    players: usize,
    rounds: usize,
    bound: RepeatBound,
    /// (seed, repeat meetings, slowest round in ms) per seed.
    runs: Vec<(u64, u32, f64)>,
}

impl Field {
    fn missed(&self) -> Vec<(u64, u32)> {
        self.runs
            .iter()
            .filter(|run| run.1 > self.bound.repeats)
            .map(|run| (run.0, run.1))
            .collect()
    }

    fn worst(&self) -> u32 {
        self.runs.iter().map(|run| run.1).max().unwrap_or(0)
    }

    fn slowest(&self) -> (u64, f64) {
        self.runs
            .iter()
            .map(|run| (run.0, run.2))
            .fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a })
    }
}

/// Every field size of `from..=to`, every number of rounds and every seed of the ranges: one
/// line per (N, R) on stderr, then a summary per number of rounds. The JSON says, per (N, R),
/// the lower bound, the worst result over the seeds and the seeds that miss the bound; `ok` is
/// false when any does (the command then exits non-zero).
pub fn sweep(from: usize, to: usize, rounds: (usize, usize), seeds: (u64, u64)) -> (Value, bool) {
    let mut fields = Vec::new();
    for r in rounds.0..=rounds.1 {
        for players in (from..=to).filter(|&n| n >= 3 && n != 5) {
            let bound = lower_bound(players, r);
            let mut field = Field {
                players,
                rounds: r,
                bound,
                runs: Vec::new(),
            };
            for seed in seeds.0..=seeds.1 {
                let (schedule, times) = engine_schedule(players, r, seed);
                let figures = schedule_figures(&schedule, &[]);
                let slowest = times.iter().copied().fold(0.0, f64::max);
                field.runs.push((seed, figures.repeat_meetings, slowest));
            }
            let (slow_seed, slowest) = field.slowest();
            let missed = field.missed();
            eprintln!(
                "N={players:>5} rounds={r} bound={} ({:?}) worst={} seeds_missing_bound={:?} max_ms_round={slowest:.2} (seed {slow_seed})",
                bound.repeats,
                bound.reason,
                field.worst(),
                missed.iter().map(|m| m.0).collect::<Vec<_>>(),
            );
            fields.push(field);
        }
    }
    let mut summary = Vec::new();
    eprintln!();
    eprintln!(
        "| rounds | fields | fields with repeats (N: worst) | fields missing the bound (N: worst / bound) | worst gap (N, seed) | slowest round ms (N, seed) |"
    );
    eprintln!("|---|---|---|---|---|---|");
    for r in rounds.0..=rounds.1 {
        let of_r: Vec<&Field> = fields.iter().filter(|f| f.rounds == r).collect();
        let with_repeats: Vec<String> = of_r
            .iter()
            .filter(|f| f.worst() > 0)
            .map(|f| format!("{}: {}", f.players, f.worst()))
            .collect();
        let missing: Vec<String> = of_r
            .iter()
            .filter(|f| !f.missed().is_empty())
            .map(|f| format!("{}: {} / {}", f.players, f.worst(), f.bound.repeats))
            .collect();
        let worst_gap = of_r
            .iter()
            .flat_map(|f| {
                f.missed()
                    .into_iter()
                    .map(|(seed, repeats)| (repeats - f.bound.repeats, f.players, seed))
            })
            .max();
        let slowest = of_r
            .iter()
            .map(|f| {
                let (seed, ms) = f.slowest();
                (ms, f.players, seed)
            })
            .fold((0.0, 0, 0), |a, b| if b.0 > a.0 { b } else { a });
        let gap_text = worst_gap.map_or("0".to_string(), |(gap, n, seed)| {
            format!("{gap} ({n}, {seed})")
        });
        eprintln!(
            "| {r} | {} | {} | {} | {gap_text} | {:.1} ({}, {}) |",
            of_r.len(),
            if with_repeats.is_empty() {
                "none".to_string()
            } else {
                with_repeats.join(", ")
            },
            if missing.is_empty() {
                "none".to_string()
            } else {
                missing.join(", ")
            },
            slowest.0,
            slowest.1,
            slowest.2,
        );
        summary.push(json!({
            "rounds": r,
            "fields": of_r.len(),
            "fields_with_repeats": of_r.iter().filter(|f| f.worst() > 0).map(|f| f.players).collect::<Vec<_>>(),
            "fields_missing_bound": of_r.iter().filter(|f| !f.missed().is_empty()).map(|f| f.players).collect::<Vec<_>>(),
            "worst_gap": worst_gap.map_or(0, |g| g.0),
            "slowest_round_millis": slowest.0,
        }));
    }
    let ok = fields.iter().all(|f| f.missed().is_empty());
    let report = json!({
        "players": [from, to],
        "rounds": [rounds.0, rounds.1],
        "seeds": [seeds.0, seeds.1],
        "ok": ok,
        "summary": summary,
        "fields": fields.iter().map(|f| json!({
            "players": f.players,
            "rounds": f.rounds,
            "lower_bound": f.bound,
            "worst_repeat_meetings": f.worst(),
            "seeds_missing_bound": f.missed().iter().map(|m| m.0).collect::<Vec<_>>(),
            "max_millis_per_round": f.slowest().1,
        })).collect::<Vec<_>>(),
    });
    (report, ok)
}
