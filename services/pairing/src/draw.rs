//! Drawing the next round of an event: which stage it is, who plays, and the engine's tables.

use crate::State;
use crate::store;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use catan_api::{
    ApiClient, BoardMode, Entry, EntryStatus, Event, EventFormat, PlayerReporting, Round,
    RoundFigures, Seat, Stage, Table,
};
use catan_domain::pairing::{ClassicRequest, draw_classic_round, draw_playoff_tables};
use catan_domain::playoffs::{PlayoffPlan, playoff_plan, table_winner};
use catan_domain::seating::SEAT_ORDER;
use catan_kit::idempotency::Reply;
use catan_kit::problem::ErrorCode;
use catan_kit::{ApiError, IdempotentWrite, db};
use std::collections::HashMap;
use uuid::Uuid;

/// Seeds stay below 2^53 so that they survive JSON numbers in every language.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// Who plays the next round, and at which stage. Players are (entry id, player id).
struct NextDraw {
    stage: Stage,
    players: Vec<(Uuid, Uuid)>,
    /// Qualifying rounds the event plans, for the engine's look-ahead.
    qualifying_rounds: usize,
}

/// Draws and stores the event's next round from `seed`, as `write`. A seed is chosen only in a
/// practice event (422 otherwise): the engine is deterministic, so a director who chose the seeds
/// of a real event could search them offline for the tables he wants.
pub async fn draw_next_round<B>(
    state: &State,
    event_id: Uuid,
    seed: Option<u64>,
    write: IdempotentWrite<B>,
) -> Result<HttpResponse, ApiError> {
    let event = state.peers.registration.event(event_id).await?;
    let seed = drawn_seed(&event, seed)?;
    let pool = state.pool.clone();
    let existing = db::run(&pool, move |conn| store::rounds_of(conn, event_id)).await?;
    if let Some(last) = existing.last() {
        ensure_round_complete(&state.peers.results, last).await?;
    }
    let rounds_before = existing.len();
    let build = planned_round(state, &event, &existing, seed).await?;
    store_new_round(write, event_id, rounds_before, build).await
}

/// The seed to draw from: the one chosen (a practice event's only), else a fresh one from the
/// operating system's CSPRNG; and whether it was chosen.
pub fn drawn_seed(event: &Event, seed: Option<u64>) -> Result<(u64, bool), ApiError> {
    if seed.is_some() && !event.practice {
        return Err(ApiError::field(
            "seed",
            ErrorCode::NotAllowed,
            "a seed is chosen only in a practice event; this event's seeds are drawn by the server",
        ));
    }
    // ThreadRng: a CSPRNG seeded from the operating system.
    Ok((
        seed.unwrap_or_else(|| rand::random::<u64>() & MAX_SEED),
        seed.is_some(),
    ))
}

/// What makes the round after `earlier` (the event's rounds before it) in the write's
/// transaction, given the stored rounds before it: the same seed and field give the same round.
pub type Build =
    Box<dyn FnOnce(&mut diesel::PgConnection, &[Round]) -> Result<Round, ApiError> + Send>;

/// The round that follows `earlier`, drawn from `seed` (and whether it was chosen).
pub async fn planned_round(
    state: &State,
    event: &Event,
    earlier: &[Round],
    (seed, seed_chosen): (u64, bool),
) -> Result<Build, ApiError> {
    let event_id = event.id;
    let number = u32::try_from(earlier.len() + 1).map_err(ApiError::internal)?;
    match event.format {
        EventFormat::Classic => {
            let next = next_draw(state, event, earlier).await?;
            let (board_mode, player_reporting) = (event.board_mode, event.player_reporting);
            Ok(Box::new(move |conn, rounds| {
                let numbers = store::numbers_for(conn, event_id, &next.players)?;
                let keep_apart = store::keep_apart(conn, event_id)?;
                let mut round =
                    build_round(event_id, number, seed, &next, rounds, &numbers, &keep_apart)?;
                round.board_mode = board_mode;
                round.player_reporting = player_reporting;
                round.seed_chosen = seed_chosen;
                Ok(round)
            }))
        }
        EventFormat::Partner => {
            let mut round = crate::swiss::draw_swiss_round(state, event, earlier, seed).await?;
            round.seed_chosen = seed_chosen;
            Ok(Box::new(move |_, _| Ok(round)))
        }
    }
}

/// Stores the round `build` makes, under the event's lock, unless another draw got there first;
/// with its Idempotency-Key's record in the same transaction.
async fn store_new_round<B>(
    write: IdempotentWrite<B>,
    event_id: Uuid,
    rounds_before: usize,
    build: Build,
) -> Result<HttpResponse, ApiError> {
    let drawn_by = write.principal().key_id();
    write
        .write(move |conn| {
            catan_kit::db::lock_event(conn, event_id)?;
            catan_kit::checkouts::refuse_if_checked_out(conn, event_id)?;
            let rounds = store::rounds_of(conn, event_id)?;
            if rounds.len() != rounds_before {
                return Err(ApiError::Conflict(
                    "another round was drawn meanwhile; reload and try again".into(),
                ));
            }
            let round = build(conn, &rounds)?;
            store::insert_round(conn, &round, drawn_by)?;
            catan_kit::webhooks::enqueue(
                conn,
                catan_api::WebhookEventType::RoundDrawn,
                event_id,
                &round,
            )?;
            Reply::new(StatusCode::CREATED, &round)
        })
        .await
}

/// The next round is drawn only when every table of the last one has a result.
async fn ensure_round_complete(results: &ApiClient, last: &Round) -> Result<(), ApiError> {
    let reported = results.round_results(last.event_id, last.number).await?;
    let missing: Vec<String> = last
        .tables
        .iter()
        .filter(|t| !reported.items.iter().any(|r| r.table == t.number))
        .map(|t| t.number.to_string())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(ApiError::Conflict(format!(
            "round {} is not complete: no result yet for table(s) {}",
            last.number,
            missing.join(", ")
        )))
    }
}

async fn next_draw(state: &State, event: &Event, existing: &[Round]) -> Result<NextDraw, ApiError> {
    let entries = state.peers.registration.entries(event.id).await?;
    let active: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.status == EntryStatus::Active)
        .collect();
    let qualifying_drawn = existing
        .iter()
        .filter(|r| r.stage == Stage::Qualifying)
        .count();
    if qualifying_drawn < event.qualifying_rounds as usize {
        return Ok(NextDraw {
            stage: Stage::Qualifying,
            qualifying_rounds: event.qualifying_rounds as usize,
            players: active
                .iter()
                .filter_map(|e| Some((e.id, e.player_id?)))
                .collect(),
        });
    }
    let semifinal = existing.iter().find(|r| r.stage == Stage::Semifinal);
    if existing.iter().any(|r| r.stage == Stage::Final) {
        return Err(ApiError::Conflict(
            "the event is complete: its final has been drawn".into(),
        ));
    }
    let standings = crate::record::event_record(state, event, &entries, existing)
        .await?
        .classic_standings();
    let entry_of_player: HashMap<Uuid, Uuid> = entries
        .iter()
        .filter_map(|e| Some((e.player_id?, e.id)))
        .collect();
    if let Some(semifinal) = semifinal {
        // The semi-finals' winners play the final.
        let qualifying_order: Vec<Uuid> = standings.rows.iter().map(|r| r.player_id).collect();
        let results = state
            .peers
            .results
            .round_results(event.id, semifinal.number)
            .await?;
        let players = results
            .items
            .iter()
            .map(|r| {
                let winner = table_winner(&r.to_domain(), &qualifying_order);
                (entry_of_player[&winner], winner)
            })
            .collect();
        return Ok(NextDraw {
            stage: Stage::Final,
            qualifying_rounds: event.qualifying_rounds as usize,
            players,
        });
    }
    // Only players still in the event qualify; a dropped player's place goes to the next one.
    let qualified: Vec<(Uuid, Uuid)> = standings
        .rows
        .iter()
        .filter(|r| r.status == EntryStatus::Active)
        .map(|r| (r.entry_id, r.player_id))
        .collect();
    match playoff_plan(qualified.len(), event.small_field_playoff) {
        PlayoffPlan::SemifinalsAndFinal => Ok(NextDraw {
            stage: Stage::Semifinal,
            qualifying_rounds: event.qualifying_rounds as usize,
            players: qualified.into_iter().take(16).collect(),
        }),
        PlayoffPlan::FinalOnly { size } => Ok(NextDraw {
            stage: Stage::Final,
            qualifying_rounds: event.qualifying_rounds as usize,
            players: qualified.into_iter().take(size).collect(),
        }),
        PlayoffPlan::None => Err(ApiError::Conflict(
            "the qualifying rounds are over and this event has no playoff: its standings are final"
                .into(),
        )),
    }
}

fn build_round(
    event_id: Uuid,
    number: u32,
    seed: u64,
    next: &NextDraw,
    earlier: &[Round],
    numbers: &HashMap<Uuid, u32>,
    keep_apart: &[(Uuid, Uuid)],
) -> Result<Round, ApiError> {
    let by_number: HashMap<u32, (Uuid, Uuid)> = next
        .players
        .iter()
        .map(|&(e, p)| (numbers[&e], (e, p)))
        .collect();
    let active: Vec<u32> = next.players.iter().map(|(e, _)| numbers[e]).collect();
    let (tables, figures): (Vec<(Vec<u32>, serde_json::Value)>, RoundFigures) = match next.stage {
        Stage::Qualifying => {
            let history: Vec<Vec<Vec<u32>>> = earlier
                .iter()
                .filter(|r| r.stage == Stage::Qualifying)
                .map(|r| {
                    r.tables
                        .iter()
                        .map(|t| {
                            t.seats
                                .iter()
                                .filter_map(|s| numbers.get(&s.entry_id).copied())
                                .collect()
                        })
                        .collect()
                })
                .collect();
            // The director's keep-apart pairs among the players of this round, as engine numbers.
            let number_of_player: HashMap<Uuid, u32> = next
                .players
                .iter()
                .map(|&(e, p)| (p, numbers[&e]))
                .collect();
            let keep_apart_numbers: Vec<(u32, u32)> = keep_apart
                .iter()
                .filter_map(|(a, b)| Some((*number_of_player.get(a)?, *number_of_player.get(b)?)))
                .collect();
            let drawn = draw_classic_round(&ClassicRequest {
                active: &active,
                history: &history,
                total_rounds: next.qualifying_rounds,
                keep_apart: &keep_apart_numbers,
                seed,
            })
            .map_err(|e| ApiError::Conflict(format!("cannot draw round {number}: {e}")))?;
            let figures = RoundFigures {
                repeat_meetings: drawn.figures.repeat_meetings,
                repeat_cost_squared: drawn.figures.repeat_cost_squared,
                three_player_spread: drawn.figures.three_player_spread,
                keep_apart_broken: drawn.figures.keep_apart_broken,
                cost: drawn.figures.cost,
            };
            let tables = drawn
                .tables
                .into_iter()
                .map(|t| {
                    Ok((
                        t.players,
                        serde_json::to_value(&t.explanation).map_err(ApiError::internal)?,
                    ))
                })
                .collect::<Result<_, ApiError>>()?;
            (tables, figures)
        }
        stage => {
            let why = match stage {
                Stage::Semifinal => {
                    "semi-final: the top 16 of the standings drawn at random into tables; qualifying rank does not decide the table"
                }
                _ => "final: the playoff's qualifiers; seats drawn at random",
            };
            let tables = draw_playoff_tables(&active, seed)
                .into_iter()
                .map(|t| (t, serde_json::json!({ "notes": [why] })))
                .collect();
            (tables, RoundFigures::default())
        }
    };
    let tables = tables
        .into_iter()
        .zip(1..)
        .map(|((players, explanation), number)| Table {
            number,
            seats: players
                .iter()
                .zip(SEAT_ORDER)
                .map(|(n, position)| {
                    let (entry_id, player_id) = by_number[n];
                    Seat {
                        position,
                        entry_id,
                        player_id,
                    }
                })
                .collect(),
            explanation,
        })
        .collect();
    Ok(Round {
        event_id,
        number,
        format: EventFormat::Classic,
        stage: next.stage,
        seed,
        seed_chosen: false,
        changed_by_hand: false,
        // As PostgreSQL keeps it (microseconds): the answer equals every later read.
        drawn_at: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 6),
        figures,
        tables,
        byes: Vec::new(),
        board_mode: BoardMode::default(),
        partner_rules: None,
        player_reporting: PlayerReporting::default(),
    })
}
