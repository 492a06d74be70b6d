//! The ratings, and the chances of winning predicted before each game, agree with the published
//! openskill package (its Plackett-Luce model, from PyPI, pinned in
//! `tests/python/requirements.txt`) to 1e-9 over a few hundred random games: classic
//! tables of 3 and 4 players with shared places, and partner games of two teams of two, played one
//! after another by one pool of players so that ratings drift apart.

use catan_domain::ratings::{Model, Rating, places_by};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const GAMES: usize = 400;

/// One random game of the pool: who plays, in which teams, and their places.
fn random_game(rng: &mut ChaCha8Rng, pool: usize) -> (Vec<Vec<usize>>, Vec<u32>) {
    let mut players: Vec<usize> = (0..pool).collect();
    players.shuffle(rng);
    if rng.random_bool(0.2) {
        // A partner game: two teams of two, one wins.
        let teams = vec![players[..2].to_vec(), players[2..4].to_vec()];
        let places = if rng.random_bool(0.5) {
            vec![1, 2]
        } else {
            vec![2, 1]
        };
        return (teams, places);
    }
    let size = if rng.random_bool(0.5) { 3 } else { 4 };
    let teams = players[..size].iter().map(|&p| vec![p]).collect();
    // Finishing keys from a small range, so that players often share a place.
    let keys: Vec<i64> = (0..size).map(|_| rng.random_range(0..4)).collect();
    (teams, places_by(&keys))
}

fn pairs(teams: &[Vec<Rating>]) -> serde_json::Value {
    json!(
        teams
            .iter()
            .map(|team| team.iter().map(|r| [r.mu, r.sigma]).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    )
}

#[test]
fn ratings_agree_with_openskill_to_1e_9() {
    let model = Model::default();
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut ratings = [model.new_rating(); 12];
    let mut games = Vec::with_capacity(GAMES);
    for _ in 0..GAMES {
        let (teams, places) = random_game(&mut rng, ratings.len());
        let before: Vec<Vec<Rating>> = teams
            .iter()
            .map(|team| team.iter().map(|&p| ratings[p]).collect())
            .collect();
        let after = model.rate(&before, &places);
        let chances = model.predict_win(&before);
        for (team, rated) in teams.iter().zip(&after) {
            for (&player, rating) in team.iter().zip(rated) {
                ratings[player] = *rating;
            }
        }
        games.push(json!({
            "teams": pairs(&before),
            "places": places,
            "rated": pairs(&after),
            "chances": chances,
        }));
    }
    let spread = ratings.iter().map(|r| r.mu).fold(0.0_f64, f64::max)
        - ratings.iter().map(|r| r.mu).fold(f64::MAX, f64::min);
    assert!(spread > 5.0, "the pool's ratings drifted apart ({spread})");

    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/python");
    let venv = Command::new("bash")
        .arg(python.join("venv.sh"))
        .output()
        .expect("tests/python/venv.sh runs");
    assert!(
        venv.status.success(),
        "{}",
        String::from_utf8_lossy(&venv.stderr)
    );
    let interpreter = String::from_utf8_lossy(&venv.stdout).trim().to_string();
    let mut check = Command::new(interpreter)
        .arg(python.join("openskill_check.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the check runs");
    let input = serde_json::to_vec(&json!({ "games": games })).expect("JSON");
    check
        .stdin
        .take()
        .expect("stdin")
        .write_all(&input)
        .expect("the games are sent");
    let output = check.wait_with_output().expect("the check ends");
    let report = String::from_utf8_lossy(&output.stdout);
    let _ = writeln!(std::io::stderr(), "{report}");
    assert!(output.status.success(), "{report}");
    assert!(
        report.starts_with(&format!("{GAMES} games agree")),
        "{report}"
    );
}
