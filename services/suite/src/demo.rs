//! `catan-suite demo`: a whole classic event played through the API with random but legal results.

use catan_api::{
    ApiClient, ClientError, CreateApiKey, CreateEntry, CreateEvent, CreatePlayer, DrawRound,
    EventFormat, OutcomeKind, Placements, Role, Round, ScoreInput, Stage, Standings, SubmitResult,
};
use rand::Rng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use uuid::Uuid;

/// A legal results sheet for players seated at one table: at a final, or four games in five, a
/// winner with 10 to 12 VP and the others 2 to 9; otherwise the game ends at the time limit.
pub fn random_sheet(seated: &[Uuid], stage: Stage, rng: &mut impl Rng) -> SubmitResult {
    let finished = stage == Stage::Final || rng.random_bool(0.8);
    let winner = finished.then(|| *seated.choose(rng).expect("a table has players"));
    SubmitResult {
        outcome: if finished {
            OutcomeKind::Won
        } else {
            OutcomeKind::TimeLimit
        },
        winner_player_id: winner,
        scores: seated
            .iter()
            .map(|&player_id| ScoreInput {
                player_id,
                vp: if Some(player_id) == winner {
                    rng.random_range(10..=12)
                } else {
                    rng.random_range(2..=9)
                },
                breakdown: None,
            })
            .collect(),
    }
}

/// What a played event leaves.
pub struct PlayedEvent {
    pub event_id: Uuid,
    pub rounds: Vec<Round>,
    pub standings: Standings,
    pub placements: Placements,
}

/// Plays a classic event of `players` players through the API at `base_url` with the admin key.
pub async fn play_classic_event(
    base_url: &str,
    admin_key: &str,
    players: usize,
    seed: u64,
) -> Result<PlayedEvent, ClientError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let anonymous = ApiClient::new(base_url);
    let admin = anonymous.with_token(anonymous.token(admin_key).await?.access_token);
    let region = admin
        .create_region(&format!("Demo region {}", Uuid::new_v4().simple()))
        .await?;
    let event = admin
        .create_event(&CreateEvent {
            name: format!("Demo open ({players} players)"),
            region_id: Some(region.id),
            format: EventFormat::Classic,
            qualifying_rounds: None,
            small_field_playoff: None,
        })
        .await?;
    let key_for = |role: Role, name: &str| CreateApiKey {
        name: name.to_string(),
        role,
        event_ids: Some(vec![event.id]),
    };
    let director_key = admin
        .create_api_key(&key_for(Role::Director, "demo director"))
        .await?;
    let scorer_key = admin
        .create_api_key(&key_for(Role::Scorer, "demo table app"))
        .await?;
    let director = anonymous.with_token(anonymous.token(&director_key.api_key).await?.access_token);
    let scorer = anonymous.with_token(anonymous.token(&scorer_key.api_key).await?.access_token);
    for i in 1..=players {
        let player = director
            .create_player(&CreatePlayer {
                name: format!("Player {i:02}"),
                region_id: Some(region.id),
            })
            .await?;
        director
            .create_entry(
                event.id,
                &CreateEntry {
                    player_id: player.id,
                },
            )
            .await?;
    }
    let mut rounds = Vec::new();
    loop {
        let round = match director
            .draw_round(
                event.id,
                &DrawRound {
                    seed: Some(rng.random_range(0..1 << 53)),
                },
            )
            .await
        {
            Ok(round) => round,
            // 409 once the final is drawn and played, or when the event has no playoff.
            Err(ClientError::Problem { problem })
                if problem.status == 409 && !rounds.is_empty() =>
            {
                break;
            }
            Err(e) => return Err(e),
        };
        for table in &round.tables {
            let seated: Vec<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
            let sheet = random_sheet(&seated, round.stage, &mut rng);
            scorer
                .submit_result(event.id, round.number, table.number, &sheet)
                .await?;
        }
        let last = round.stage == Stage::Final;
        rounds.push(round);
        if last {
            break;
        }
    }
    Ok(PlayedEvent {
        event_id: event.id,
        rounds,
        standings: anonymous.standings(event.id).await?,
        placements: anonymous.placements(event.id).await?,
    })
}

/// The standings and placements as text.
pub fn report(played: &PlayedEvent) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "Event {}\n\nQualifying standings after round {}\n",
        played.event_id, played.standings.after_round
    ));
    out.push_str("rank  name         VP  VP share  games  3p\n");
    for r in &played.standings.rows {
        out.push_str(&format!(
            "{:>4}  {:<10} {:>4}  {:>8}  {:>5}  {:>2}\n",
            r.rank, r.name, r.vp, r.vp_share, r.games, r.three_player_games
        ));
    }
    out.push_str("\nFinal placements\nplace  name        reached\n");
    for p in &played.placements.rows {
        out.push_str(&format!("{:>5}  {:<10}  {:?}\n", p.place, p.name, p.stage));
    }
    out
}
