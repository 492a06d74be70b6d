//! One schedule for every seed: the best of a fixed portfolio of searches, relabelled by the
//! seed's draw.
//!
//! The search's result depends on its random choices, so some seeds found a repeat-free event
//! where others repeated a meeting (18 players over 4 rounds: seeds 5 and 7 of 1–10). Instead,
//! for a field of `PLAYERS` seated every round, the whole event is planned once per process
//! from the empty history by the search with the fixed seeds of `PORTFOLIO` in turn, stopping
//! at the first plan that meets the lower bound (else the best; events of more than
//! `LONG_EVENT` player-rounds take the first search only); that plan is the template.
//! Every seed then gets the template with its players relabelled: round 1 is the template's
//! round 1 under a random permutation of the field (so it is a uniformly random split, the
//! seed's draw), and the players map onto the template's through round 1 (see `map_through`),
//! so later calls continue it from the history. Any relabelling keeps who meets whom how often
//! and every play-order position count, so every seed gets the same figures. The template is
//! a deterministic function of (N, R): the same seed still gives the same draw.
//!
//! Not used (the seed's own search plans instead) with keep-apart pairs, drops, late entries
//! or a history that is not the template's.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::bound::lower_bound;
use super::effort::{Effort, PLAN_BUDGET};
use super::layout::Layout;
use super::shipped;
use crate::pairing::plan_input::{PlanInput, index_u32};

/// Fields planned through the template: where the search works (larger fields reach the bound
/// by construction).
const PLAYERS: std::ops::RangeInclusive<usize> = 6..=200;

/// The seeds of the portfolio's searches, tried in turn.
pub(super) const PORTFOLIO: [u64; 3] = [0x9e37_79b9, 0x7f4a_7c15, 0x94d0_49bb];

/// Plans of more player-rounds than this take one search of the portfolio.
const LONG_EVENT: usize = 150;

/// A whole event's slot orders (tables of 4 first, each table in play order), players `0..n`.
type Template = Arc<Vec<Vec<u32>>>;

/// The planned rounds from the template, or None where it does not apply.
pub(super) fn plan(input: &PlanInput, layout: &Layout) -> Option<Vec<Vec<u32>>> {
    let n = input.players;
    let total = input.history.len() + input.plan_rounds;
    if !PLAYERS.contains(&n) || total < 2 || input.keep_apart.iter().any(|k| !k.is_empty()) {
        return None;
    }
    let template = template(input, layout, total);
    if template.len() != total {
        return None;
    }
    let first: Vec<Vec<u32>> = match input.history.first() {
        Some(round) => round.clone(),
        None => {
            let mut relabel: Vec<u32> = (0..index_u32(n)).collect();
            relabel.shuffle(&mut ChaCha8Rng::seed_from_u64(input.seed));
            tables(&template[0], layout)
                .iter()
                .map(|table| table.iter().map(|&p| relabel[p as usize]).collect())
                .collect()
        }
    };
    let player_of = map_through(&first, &template[0], layout, n)?;
    let mapped = |round: usize| -> Vec<u32> {
        template[round]
            .iter()
            .map(|&p| player_of[p as usize])
            .collect()
    };
    for (round, played) in input.history.iter().enumerate().skip(1) {
        if as_sets(played.clone()) != as_sets(tables(&mapped(round), layout)) {
            return None;
        }
    }
    Some((input.history.len()..total).map(mapped).collect())
}

/// A slot order cut into its tables.
fn tables(slots: &[u32], layout: &Layout) -> Vec<Vec<u32>> {
    layout
        .table_start
        .iter()
        .zip(&layout.table_size)
        .map(|(&start, &size)| slots[start..start + size].to_vec())
        .collect()
}

fn as_sets(tables: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    let mut sets: Vec<Vec<u32>> = tables
        .into_iter()
        .map(|mut table| {
            table.sort_unstable();
            table
        })
        .collect();
    sets.sort_unstable();
    sets
}

/// The template's player → the event's player, read from round 1: its tables of each size,
/// sorted by their lowest player, take the template's round-1 tables of that size in order,
/// seat by seat. None if round 1 does not seat the whole field at the forced table sizes.
fn map_through(
    first: &[Vec<u32>],
    template_first: &[u32],
    layout: &Layout,
    players: usize,
) -> Option<Vec<u32>> {
    let mut player_of = vec![u32::MAX; players];
    for size in [4, 3] {
        let mut played: Vec<&Vec<u32>> = first.iter().filter(|t| t.len() == size).collect();
        played.sort_by_key(|table| table.iter().min().copied());
        let planned: Vec<Vec<u32>> = tables(template_first, layout)
            .into_iter()
            .filter(|t| t.len() == size)
            .collect();
        if played.len() != planned.len() {
            return None;
        }
        for (played, planned) in played.iter().zip(&planned) {
            for (&player, &point) in played.iter().zip(planned) {
                *player_of.get_mut(point as usize)? = player;
            }
        }
    }
    if first.len() != layout.table_size.len() {
        return None;
    }
    let mut seen = vec![false; players];
    for &player in &player_of {
        let slot = seen.get_mut(player as usize)?;
        if *slot {
            return None;
        }
        *slot = true;
    }
    Some(player_of)
}

/// The template of (N, R), computed once per process.
#[expect(
    clippy::expect_used,
    reason = "a poisoned lock means a planner thread panicked; the draw cannot go on either"
)]
fn template(input: &PlanInput, layout: &Layout, total: usize) -> Template {
    static TEMPLATES: OnceLock<Mutex<HashMap<(usize, usize), Template>>> = OnceLock::new();
    let key = (input.players, total);
    let cache = TEMPLATES.get_or_init(Mutex::default);
    if let Some(found) = cache.lock().expect("the template cache").get(&key) {
        return Arc::clone(found);
    }
    // Computed outside the lock: two draws at once may both compute it, to the same result.
    let computed = Arc::new(
        shipped::template(input.players, total).unwrap_or_else(|| portfolio(input, layout, total)),
    );
    cache
        .lock()
        .expect("the template cache")
        .entry(key)
        .or_insert(computed)
        .clone()
}

/// The portfolio's best plan of a whole event of `total` rounds from the empty history.
fn portfolio(input: &PlanInput, layout: &Layout, total: usize) -> Vec<Vec<u32>> {
    let n = input.players;
    let mut best: Option<(Vec<Vec<u32>>, u64)> = None;
    // Long events search once: each search there already runs its restarts for seconds.
    let searches = if n * total <= LONG_EVENT {
        PORTFOLIO.len()
    } else {
        1
    };
    // One budget for every search: the template is computed while round 1 is drawn.
    let mut effort = Effort::new(PLAN_BUDGET);
    for &seed in &PORTFOLIO[..searches] {
        let fresh = PlanInput {
            players: n,
            sizes: input.sizes,
            history: Vec::new(),
            plan_rounds: total,
            three_player_games: vec![0; n],
            positions_before: vec![[0; 4]; n],
            keep_apart: vec![Vec::new(); n],
            seed,
        };
        let found = super::search(&fresh, layout, &mut effort);
        let done = found.1 <= lower_bound(&fresh);
        if best.as_ref().is_none_or(|b| found.1 < b.1) {
            best = Some(found);
        }
        if done {
            break;
        }
    }
    best.map(|b| b.0).unwrap_or_default()
}
