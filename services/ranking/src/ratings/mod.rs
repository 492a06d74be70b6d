//! Ratings in the read model: replayed game by game, in the order the games were played (event
//! date, event, round, table), from the first game a change affects.

mod history;
mod reads;
mod replay;

pub use reads::{current, history_of, leaderboard};
pub use replay::{Played, rated_game};

use crate::pending::{Pending, least_sql, raise_sql};
use crate::schema::ranking::{
    events, merges, players, rating_history, ratings, ratings_as_of, ratings_stale,
    ratings_stale_games,
};
use catan_api::{Event, Player, ResultStatus, Stage, StandingsCount, TableResult};
use catan_domain::ratings::{Model, RatedGame, Rating, Ratings};
use catan_kit::ApiError;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use history::*;
use replay::{first_affected, replay_from};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use uuid::Uuid;

/// Where a game falls in the order of play.
type GameKey = (NaiveDate, Uuid, i32, i32);

/// Asks for the ratings to be replayed from `event`'s round `from_round` (the nil event: from the
/// first game of all), for a change made at `changed_at` that `pending` says from where.
pub fn mark_stale(
    conn: &mut PgConnection,
    event: Uuid,
    from_round: i32,
    changed_at: DateTime<Utc>,
    pending: Pending,
) -> Result<(), ApiError> {
    diesel::insert_into(ratings_stale::table)
        .values((
            ratings_stale::event_id.eq(event),
            ratings_stale::from_round.eq(from_round),
            ratings_stale::as_of.eq(changed_at),
            ratings_stale::pending_registration.eq(pending.registration),
            ratings_stale::pending_results.eq(pending.results),
        ))
        .on_conflict(ratings_stale::event_id)
        .do_update()
        .set((
            ratings_stale::from_round.eq(diesel::dsl::sql::<diesel::sql_types::Integer>(
                "least(ratings_stale.from_round, excluded.from_round)",
            )),
            ratings_stale::as_of.eq(diesel::dsl::sql::<diesel::sql_types::Timestamptz>(
                "greatest(ratings_stale.as_of, excluded.as_of)",
            )),
            // Numbered anew: a replay running meanwhile read the mark before this change.
            ratings_stale::marked.eq(diesel::dsl::sql::<diesel::sql_types::BigInt>(
                "nextval('ratings_stale_marked_seq')",
            )),
            ratings_stale::pending_registration.eq(diesel::dsl::sql::<
                diesel::sql_types::Nullable<diesel::sql_types::BigInt>,
            >(
                "least(ratings_stale.pending_registration, excluded.pending_registration)",
            )),
            ratings_stale::pending_results.eq(diesel::dsl::sql::<
                diesel::sql_types::Nullable<diesel::sql_types::BigInt>,
            >(
                "least(ratings_stale.pending_results, excluded.pending_results)",
            )),
        ))
        .execute(conn)?;
    Ok(())
}

/// Asks for the ratings to be replayed from each of these tables (event, round, table) on, for
/// changes made at their times that `pending` says from where. One statement for a page of
/// results.
pub fn mark_games(
    conn: &mut PgConnection,
    tables: &[(Uuid, i32, i32)],
    changed_at: &[DateTime<Utc>],
    pending: Pending,
) -> Result<(), ApiError> {
    use diesel::sql_types::{Array, BigInt, Integer, Nullable, Timestamptz, Uuid as SqlUuid};
    let events: Vec<Uuid> = tables.iter().map(|t| t.0).collect();
    let rounds: Vec<i32> = tables.iter().map(|t| t.1).collect();
    let numbers: Vec<i32> = tables.iter().map(|t| t.2).collect();
    // Numbered anew on conflict: a replay running meanwhile read the mark before this change.
    diesel::sql_query(format!(
        "INSERT INTO ratings_stale_games \
            (event_id, round, table_number, as_of, pending_registration, pending_results) \
         SELECT g.*, $5, $6 FROM unnest($1, $2, $3, $4) AS g \
         ON CONFLICT (event_id, round, table_number) DO UPDATE SET \
            marked = nextval('ratings_stale_marked_seq'), \
            as_of = greatest(ratings_stale_games.as_of, excluded.as_of), {}",
        least_sql("ratings_stale_games", &["registration", "results"])
    ))
    .bind::<Array<SqlUuid>, _>(&events)
    .bind::<Array<Integer>, _>(&rounds)
    .bind::<Array<Integer>, _>(&numbers)
    .bind::<Array<Timestamptz>, _>(changed_at)
    .bind::<Nullable<BigInt>, _>(pending.registration)
    .bind::<Nullable<BigInt>, _>(pending.results)
    .execute(conn)?;
    Ok(())
}

/// Each merged player's survivor, following merges of merges.
pub fn survivors(conn: &mut PgConnection) -> Result<HashMap<Uuid, Uuid>, ApiError> {
    let merged: HashMap<Uuid, Uuid> = merges::table
        .select((merges::player_id, merges::merged_into))
        .load::<(Uuid, Uuid)>(conn)?
        .into_iter()
        .collect();
    Ok(merged
        .keys()
        .map(|&player| {
            let mut survivor = player;
            // A merge chain is at most as long as there are merges.
            for _ in 0..=merged.len() {
                match merged.get(&survivor) {
                    Some(&next) => survivor = next,
                    None => break,
                }
            }
            (player, survivor)
        })
        .collect())
}

/// The last change the ratings include.
pub fn as_of(conn: &mut PgConnection) -> Result<DateTime<Utc>, ApiError> {
    Ok(ratings_as_of::table
        .select(ratings_as_of::as_of)
        .first(conn)?)
}

/// Whether a change still waits for the ratings to be replayed.
pub fn pending(conn: &mut PgConnection) -> Result<bool, ApiError> {
    let events: bool = diesel::select(diesel::dsl::exists(
        ratings_stale::table.select(ratings_stale::event_id),
    ))
    .get_result(conn)?;
    let games: bool = diesel::select(diesel::dsl::exists(
        ratings_stale_games::table.select(ratings_stale_games::event_id),
    ))
    .get_result(conn)?;
    Ok(events || games)
}

/// Replays the ratings from the earliest game a change asked for, if any asked. One replica
/// replays at a time; the others leave it to it. A mark made again meanwhile stays, waiting only
/// for what was copied after the replay began.
pub fn replay(conn: &mut PgConnection) -> Result<(), ApiError> {
    conn.transaction(|conn| {
        catan_kit::db::commit_without_flush(conn)?;
        let locked: bool = diesel::select(diesel::dsl::sql::<diesel::sql_types::Bool>(
            "pg_try_advisory_xact_lock(hashtext('ranking.ratings'))",
        ))
        .get_result(conn)?;
        if !locked {
            return Ok(());
        }
        // Before the marks and the games: what was copied through it is in what they read.
        let read = crate::store::read_through(conn)?;
        let marks: Vec<(Uuid, i32, i64, DateTime<Utc>)> = ratings_stale::table
            .select((
                ratings_stale::event_id,
                ratings_stale::from_round,
                ratings_stale::marked,
                ratings_stale::as_of,
            ))
            .load(conn)?;
        let game_marks: Vec<(Uuid, i32, i32, i64, DateTime<Utc>)> = ratings_stale_games::table
            .select((
                ratings_stale_games::event_id,
                ratings_stale_games::round,
                ratings_stale_games::table_number,
                ratings_stale_games::marked,
                ratings_stale_games::as_of,
            ))
            .load(conn)?;
        // A whole event's mark is its table 0: before every table of its round.
        let starts: Vec<(Uuid, i32, i32)> = marks
            .iter()
            .map(|&(e, r, ..)| (e, r, 0))
            .chain(game_marks.iter().map(|&(e, r, t, ..)| (e, r, t)))
            .collect();
        let Some(from) = first_affected(conn, &starts)? else {
            return Ok(());
        };
        replay_from(conn, from, &starts)?;
        let latest = marks
            .iter()
            .map(|&(.., at)| at)
            .chain(game_marks.iter().map(|&(.., at)| at))
            .max();
        if let Some(latest) = latest {
            diesel::update(ratings_as_of::table)
                .set(
                    ratings_as_of::as_of.eq(diesel::dsl::sql::<diesel::sql_types::Timestamptz>(
                        "greatest(ratings_as_of.as_of, ",
                    )
                    .bind::<diesel::sql_types::Timestamptz, _>(latest)
                    .sql(")")),
                )
                .execute(conn)?;
        }
        for (event, _, marked, _) in marks {
            diesel::delete(
                ratings_stale::table
                    .find(event)
                    .filter(ratings_stale::marked.eq(marked)),
            )
            .execute(conn)?;
        }
        let taken: Vec<i64> = game_marks
            .iter()
            .map(|&(_, _, _, marked, _)| marked)
            .collect();
        diesel::delete(
            ratings_stale_games::table.filter(ratings_stale_games::marked.eq_any(taken)),
        )
        .execute(conn)?;
        // Every mark left was made again meanwhile, or first made since the replay read the
        // marks: either way it waits only for what was copied after `read`.
        for table in ["ratings_stale", "ratings_stale_games"] {
            // Only the marks whose bounds it raises: a row rewritten to the same bounds would
            // cost a new version of it at every replay.
            diesel::sql_query(format!(
                "UPDATE {table} SET {} \
                 WHERE pending_registration <= $1 OR pending_results <= $2",
                raise_sql(&["registration", "results"], 1)
            ))
            .bind::<diesel::sql_types::BigInt, _>(read.registration)
            .bind::<diesel::sql_types::BigInt, _>(read.results)
            .execute(conn)?;
        }
        Ok(())
    })
}
