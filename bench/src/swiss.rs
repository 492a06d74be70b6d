//! `swiss`: simulate a partner event with random results, pairing each round with the engine
//! (and, for comparison, with the random baseline on the same standings).

use std::collections::HashSet;
use std::time::Instant;

use catan_domain::pairing::{BYE_POINTS, SwissTeam, pair_swiss};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use crate::baseline;

/// Points a team scores for a won game; a lost game scores 0.
const WIN_POINTS: u32 = 3;

fn point_gap_squared(pairs: &[(u32, u32)], points: &[u32]) -> u64 {
    pairs
        .iter()
        .map(|&(a, b)| u64::from(points[a as usize].abs_diff(points[b as usize])).pow(2))
        .sum()
}

pub fn run(teams: usize, rounds: usize, seed: u64, with_baseline: bool) -> Value {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut baseline_rng = ChaCha8Rng::seed_from_u64(seed ^ 0xba5e);
    // A random seeding order breaks ties in the standings.
    let mut seeding: Vec<u32> = (0..teams as u32).collect();
    seeding.shuffle(&mut rng);
    let mut points = vec![0u32; teams];
    let mut had_bye = vec![false; teams];
    let mut played: Vec<(u32, u32)> = Vec::new();
    let mut played_set: HashSet<(u32, u32)> = HashSet::new();
    let mut reports = Vec::new();
    for round in 0..rounds {
        let mut standings = seeding.clone();
        standings.sort_by_key(|&t| std::cmp::Reverse(points[t as usize]));
        let field: Vec<SwissTeam> = standings
            .iter()
            .enumerate()
            .map(|(position, &team)| SwissTeam {
                team,
                points: points[team as usize],
                had_bye: had_bye[team as usize],
                rank: position as u32 + 1,
            })
            .collect();
        let start = Instant::now();
        let drawn = pair_swiss(&field, &played, seed.wrapping_add(round as u64));
        let millis = (start.elapsed().as_secs_f64() * 1e6).round() / 1e3;
        let mut entry = json!({
            "points_before": points,
            "pairs": drawn.pairs,
            "bye": drawn.bye,
            "rematches": drawn.rematches,
            "cost": drawn.cost,
            "point_gap_squared": point_gap_squared(&drawn.pairs, &points),
            "millis": millis,
        });
        if with_baseline {
            let start = Instant::now();
            let random =
                baseline::random_swiss_pairs(&field, drawn.bye, &played_set, &mut baseline_rng);
            let millis = (start.elapsed().as_secs_f64() * 1e6).round() / 1e3;
            let rematches = random
                .iter()
                .filter(|&&(a, b)| played_set.contains(&(a.min(b), a.max(b))))
                .count();
            entry["baseline"] = json!({
                "rematches": rematches,
                "point_gap_squared": point_gap_squared(&random, &points),
                "millis": millis,
            });
        }
        reports.push(entry);
        for &(a, b) in &drawn.pairs {
            let winner = if rng.random_bool(0.5) { a } else { b };
            points[winner as usize] += WIN_POINTS;
            played.push((a, b));
            played_set.insert((a.min(b), a.max(b)));
        }
        if let Some(bye) = drawn.bye {
            points[bye as usize] += BYE_POINTS;
            had_bye[bye as usize] = true;
        }
    }
    json!({ "teams": teams, "rounds": reports })
}
