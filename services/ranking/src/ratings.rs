//! Ratings in the read model: replayed game by game, in the order the games were played (event
//! date, event, round, table), from the first game a change affects.

use crate::schema::ranking::{
    events, merges, players, rating_history, ratings, ratings_as_of, ratings_stale,
    ratings_stale_games,
};
use catan_api::{Event, Player, ResultStatus, Stage, StandingsCount, TableResult};
use catan_domain::ratings::{Model, RatedGame, Rating, Ratings};
use catan_kit::ApiError;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use uuid::Uuid;

/// Where a game falls in the order of play.
type GameKey = (NaiveDate, Uuid, i32, i32);

/// Asks for the ratings to be replayed from `event`'s round `from_round` (the nil event: from the
/// first game of all), for a change made at `changed_at`.
pub fn mark_stale(
    conn: &mut PgConnection,
    event: Uuid,
    from_round: i32,
    changed_at: DateTime<Utc>,
) -> Result<(), ApiError> {
    diesel::insert_into(ratings_stale::table)
        .values((
            ratings_stale::event_id.eq(event),
            ratings_stale::from_round.eq(from_round),
            ratings_stale::as_of.eq(changed_at),
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
        ))
        .execute(conn)?;
    Ok(())
}

/// Asks for the ratings to be replayed from each of these tables (event, round, table) on, for
/// changes made at their times. One statement for a page of results.
pub fn mark_games(
    conn: &mut PgConnection,
    tables: &[(Uuid, i32, i32)],
    changed_at: &[DateTime<Utc>],
) -> Result<(), ApiError> {
    use diesel::sql_types::{Array, Integer, Timestamptz, Uuid as SqlUuid};
    let events: Vec<Uuid> = tables.iter().map(|t| t.0).collect();
    let rounds: Vec<i32> = tables.iter().map(|t| t.1).collect();
    let numbers: Vec<i32> = tables.iter().map(|t| t.2).collect();
    // Numbered anew on conflict: a replay running meanwhile read the mark before this change.
    diesel::sql_query(
        "INSERT INTO ratings_stale_games (event_id, round, table_number, as_of) \
         SELECT * FROM unnest($1, $2, $3, $4) \
         ON CONFLICT (event_id, round, table_number) DO UPDATE SET \
            marked = nextval('ratings_stale_marked_seq'), \
            as_of = greatest(ratings_stale_games.as_of, excluded.as_of)",
    )
    .bind::<Array<SqlUuid>, _>(&events)
    .bind::<Array<Integer>, _>(&rounds)
    .bind::<Array<Integer>, _>(&numbers)
    .bind::<Array<Timestamptz>, _>(changed_at)
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
/// replays at a time; the others leave it to it.
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
        Ok(())
    })
}

/// The first game the marks (event, round, table) affect; none when they name only events not
/// known yet.
fn first_affected(
    conn: &mut PgConnection,
    marks: &[(Uuid, i32, i32)],
) -> Result<Option<GameKey>, ApiError> {
    if marks.iter().any(|(event, ..)| event.is_nil()) {
        // Before every game: the first day PostgreSQL's `date` holds (chrono's own first day is
        // out of its range).
        let first = NaiveDate::from_ymd_opt(-4713, 11, 24).unwrap_or(NaiveDate::MIN);
        return Ok(Some((first, Uuid::nil(), 0, 0)));
    }
    let ids: Vec<Uuid> = marks.iter().map(|(e, ..)| *e).collect();
    let dates: HashMap<Uuid, NaiveDate> = events::table
        .filter(events::id.eq_any(&ids))
        .select((events::id, events::starts_on))
        .load::<(Uuid, NaiveDate)>(conn)?
        .into_iter()
        .collect();
    Ok(marks
        .iter()
        .filter_map(|&(event, round, table)| Some((*dates.get(&event)?, event, round, table)))
        .min())
}

#[derive(QueryableByName)]
struct Start {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    player_id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Double)]
    mu_after: f64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    sigma_after: f64,
}

/// A result as read with its event: the event's first day and body, and the result.
#[derive(QueryableByName)]
pub struct Played {
    #[diesel(sql_type = diesel::sql_types::Date)]
    pub starts_on: NaiveDate,
    #[diesel(sql_type = diesel::sql_types::Jsonb)]
    pub event: serde_json::Value,
    #[diesel(sql_type = diesel::sql_types::Jsonb)]
    pub result: serde_json::Value,
}

/// A game to replay: its event's first day, its event, and the result as JSON text.
#[derive(QueryableByName)]
struct ToReplay {
    #[diesel(sql_type = diesel::sql_types::Date)]
    starts_on: NaiveDate,
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    event_id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Text)]
    result: String,
}

/// Rating history rows, column by column, inserted in one statement of arrays (a replay writes
/// thousands).
#[derive(Default)]
struct HistoryColumns {
    played_on: Vec<NaiveDate>,
    event_id: Vec<Uuid>,
    round: Vec<i32>,
    table_number: Vec<i32>,
    player_id: Vec<Uuid>,
    mu_before: Vec<f64>,
    sigma_before: Vec<f64>,
    mu_after: Vec<f64>,
    sigma_after: Vec<f64>,
}

impl HistoryColumns {
    fn push(&mut self, key: GameKey, player: Uuid, before: Rating, after: Rating) {
        let (played_on, event_id, round, table_number) = key;
        self.played_on.push(played_on);
        self.event_id.push(event_id);
        self.round.push(round);
        self.table_number.push(table_number);
        self.player_id.push(player);
        self.mu_before.push(before.mu);
        self.sigma_before.push(before.sigma);
        self.mu_after.push(after.mu);
        self.sigma_after.push(after.sigma);
    }

    /// Writes the rows: new ones inserted, ones already stored for the same game and player
    /// replaced.
    fn upsert(&self, conn: &mut PgConnection) -> Result<(), ApiError> {
        use diesel::sql_types::{Array, Date, Double, Integer, Uuid as SqlUuid};
        if self.player_id.is_empty() {
            return Ok(());
        }
        diesel::sql_query(
            "INSERT INTO rating_history (played_on, event_id, round, table_number, player_id, \
                mu_before, sigma_before, mu_after, sigma_after) \
             SELECT * FROM unnest($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (played_on, event_id, round, table_number, player_id) DO UPDATE SET \
                mu_before = excluded.mu_before, sigma_before = excluded.sigma_before, \
                mu_after = excluded.mu_after, sigma_after = excluded.sigma_after",
        )
        .bind::<Array<Date>, _>(&self.played_on)
        .bind::<Array<SqlUuid>, _>(&self.event_id)
        .bind::<Array<Integer>, _>(&self.round)
        .bind::<Array<Integer>, _>(&self.table_number)
        .bind::<Array<SqlUuid>, _>(&self.player_id)
        .bind::<Array<Double>, _>(&self.mu_before)
        .bind::<Array<Double>, _>(&self.sigma_before)
        .bind::<Array<Double>, _>(&self.mu_after)
        .bind::<Array<Double>, _>(&self.sigma_after)
        .execute(conn)?;
        Ok(())
    }
}

/// A stored history row: the game, the player, and his rating before and after.
#[derive(QueryableByName)]
#[diesel(table_name = rating_history)]
struct StoredRow {
    played_on: NaiveDate,
    event_id: Uuid,
    round: i32,
    table_number: i32,
    player_id: Uuid,
    mu_before: f64,
    sigma_before: f64,
    mu_after: f64,
    sigma_after: f64,
}

impl StoredRow {
    fn entry(self) -> ((GameKey, Uuid), (Rating, Rating)) {
        let key = (self.played_on, self.event_id, self.round, self.table_number);
        let before = Rating {
            mu: self.mu_before,
            sigma: self.sigma_before,
        };
        let after = Rating {
            mu: self.mu_after,
            sigma: self.sigma_after,
        };
        ((key, self.player_id), (before, after))
    }
}

/// A player's rating before and after each game he played, by game and player.
type History = HashMap<(GameKey, Uuid), (Rating, Rating)>;

/// The history stored from `from` on.
fn stored_history(conn: &mut PgConnection, from: GameKey) -> Result<History, ApiError> {
    use diesel::sql_types::{Date, Integer, Uuid as SqlUuid};
    let (day, event, round, table) = from;
    let rows: Vec<StoredRow> = diesel::sql_query(
        "SELECT played_on, event_id, round, table_number, player_id, mu_before, sigma_before, \
            mu_after, sigma_after FROM rating_history \
         WHERE (played_on, event_id, round, table_number) >= ($1, $2, $3, $4)",
    )
    .bind::<Date, _>(day)
    .bind::<SqlUuid, _>(event)
    .bind::<Integer, _>(round)
    .bind::<Integer, _>(table)
    .load(conn)?;
    Ok(rows.into_iter().map(StoredRow::entry).collect())
}

/// Deletes the history rows of these games and players.
fn delete_history(conn: &mut PgConnection, gone: &[(GameKey, Uuid)]) -> Result<(), ApiError> {
    use diesel::sql_types::{Array, Date, Integer, Uuid as SqlUuid};
    if gone.is_empty() {
        return Ok(());
    }
    let days: Vec<NaiveDate> = gone.iter().map(|((d, ..), _)| *d).collect();
    let events: Vec<Uuid> = gone.iter().map(|((_, e, ..), _)| *e).collect();
    let rounds: Vec<i32> = gone.iter().map(|((_, _, r, _), _)| *r).collect();
    let tables: Vec<i32> = gone.iter().map(|((.., t), _)| *t).collect();
    let players: Vec<Uuid> = gone.iter().map(|(_, p)| *p).collect();
    diesel::sql_query(
        "DELETE FROM rating_history h USING unnest($1, $2, $3, $4, $5) \
            AS g(played_on, event_id, round, table_number, player_id) \
         WHERE (h.played_on, h.event_id, h.round, h.table_number, h.player_id) = \
            (g.played_on, g.event_id, g.round, g.table_number, g.player_id)",
    )
    .bind::<Array<Date>, _>(&days)
    .bind::<Array<SqlUuid>, _>(&events)
    .bind::<Array<Integer>, _>(&rounds)
    .bind::<Array<Integer>, _>(&tables)
    .bind::<Array<SqlUuid>, _>(&players)
    .execute(conn)?;
    Ok(())
}

/// Games picked by event: a whole event from a round on (`table` 0), or one table of it.
#[derive(Default)]
struct Selection {
    /// Whole events, each from a round on.
    events: BTreeMap<Uuid, i32>,
    tables: BTreeSet<(Uuid, i32, i32)>,
}

impl Selection {
    fn push(&mut self, event: Uuid, round: i32, table: i32) {
        if table == 0 {
            let from = self.events.entry(event).or_insert(round);
            *from = (*from).min(round);
        } else {
            self.tables.insert((event, round, table));
        }
    }

    fn is_empty(&self) -> bool {
        self.events.is_empty() && self.tables.is_empty()
    }

    /// The selected rows of `select_from`, whose table of games is `alias`, each once. Both
    /// halves of the query are lookups by event that an index serves.
    fn load<T>(
        &self,
        conn: &mut PgConnection,
        select_from: &str,
        alias: &str,
    ) -> Result<Vec<T>, ApiError>
    where
        T: diesel::deserialize::QueryableByName<diesel::pg::Pg> + 'static,
    {
        use diesel::sql_types::{Array, Integer, Uuid as SqlUuid};
        // Tables a whole event already selects are left out.
        let tables: Vec<&(Uuid, i32, i32)> = self
            .tables
            .iter()
            .filter(|(event, round, _)| self.events.get(event).is_none_or(|from| round < from))
            .collect();
        let events: Vec<Uuid> = self.events.keys().copied().collect();
        let from_rounds: Vec<i32> = self.events.values().copied().collect();
        let table_events: Vec<Uuid> = tables.iter().map(|t| t.0).collect();
        let rounds: Vec<i32> = tables.iter().map(|t| t.1).collect();
        let numbers: Vec<i32> = tables.iter().map(|t| t.2).collect();
        Ok(diesel::sql_query(format!(
            "{select_from} JOIN unnest($1::uuid[], $2::int[]) AS s(event_id, round) \
                ON {alias}.event_id = s.event_id AND {alias}.round >= s.round \
             UNION ALL {select_from} \
                JOIN unnest($3::uuid[], $4::int[], $5::int[]) AS g(event_id, round, table_number) \
                ON ({alias}.event_id, {alias}.round, {alias}.table_number) = \
                   (g.event_id, g.round, g.table_number)"
        ))
        .bind::<Array<SqlUuid>, _>(&events)
        .bind::<Array<Integer>, _>(&from_rounds)
        .bind::<Array<SqlUuid>, _>(&table_events)
        .bind::<Array<Integer>, _>(&rounds)
        .bind::<Array<Integer>, _>(&numbers)
        .load(conn)?)
    }
}

/// The results of the selected games.
fn selected_results(conn: &mut PgConnection, games: &Selection) -> Result<Vec<ToReplay>, ApiError> {
    games.load(
        conn,
        "SELECT e.starts_on, k.event_id, k.result::text AS result FROM known_results k \
         JOIN events e ON e.id = k.event_id",
        "k",
    )
}

/// Every result from `from` on.
fn results_from(conn: &mut PgConnection, from: GameKey) -> Result<Vec<ToReplay>, ApiError> {
    use diesel::sql_types::{Date, Integer, Uuid as SqlUuid};
    let (day, event, round, table) = from;
    Ok(diesel::sql_query(
        "SELECT e.starts_on, k.event_id, k.result::text AS result FROM known_results k JOIN events e ON e.id = k.event_id \
         WHERE (e.starts_on, k.event_id, k.round, k.table_number) >= ($1, $2, $3, $4)",
    )
    .bind::<Date, _>(day)
    .bind::<SqlUuid, _>(event)
    .bind::<Integer, _>(round)
    .bind::<Integer, _>(table)
    .load(conn)?)
}

/// The stored history of the selected games.
fn selected_history(conn: &mut PgConnection, games: &Selection) -> Result<History, ApiError> {
    let rows: Vec<StoredRow> = games.load(
        conn,
        "SELECT h.played_on, h.event_id, h.round, h.table_number, h.player_id, h.mu_before, \
            h.sigma_before, h.mu_after, h.sigma_after FROM rating_history h",
        "h",
    )?;
    Ok(rows.into_iter().map(StoredRow::entry).collect())
}

/// The rated games among `played`, each with its place in the order of play; each event parsed
/// once, not once a game.
fn rated_games(
    conn: &mut PgConnection,
    played: Vec<ToReplay>,
    survivor: &HashMap<Uuid, Uuid>,
) -> Result<Vec<(GameKey, RatedGame)>, ApiError> {
    let mut event_ids: Vec<Uuid> = played.iter().map(|p| p.event_id).collect();
    event_ids.sort_unstable();
    event_ids.dedup();
    let events_played: HashMap<Uuid, Event> = events::table
        .filter(events::id.eq_any(&event_ids))
        .select((
            events::id,
            diesel::dsl::sql::<diesel::sql_types::Text>("body::text"),
        ))
        .load::<(Uuid, String)>(conn)?
        .into_iter()
        .map(|(id, body)| Ok((id, serde_json::from_str(&body).map_err(ApiError::internal)?)))
        .collect::<Result<_, ApiError>>()?;
    let mut games = Vec::new();
    for p in played {
        let event = events_played
            .get(&p.event_id)
            .ok_or_else(|| ApiError::internal("a replayed game's event vanished"))?;
        let result: TableResult = serde_json::from_str(&p.result).map_err(ApiError::internal)?;
        if let Some(game) = rated_game(event, &result, survivor) {
            let key = (
                p.starts_on,
                event.id,
                i32::try_from(result.round).map_err(ApiError::internal)?,
                i32::try_from(result.table).map_err(ApiError::internal)?,
            );
            games.push((key, game));
        }
    }
    Ok(games)
}

/// The games a change can move, with their stored history: the marked tables, the marked
/// events' games from each one's first marked round (table 0), and every game from `from` on of a player they seat or seated (a
/// corrected sheet may seat someone else), and so on for the players those bring in. Each of
/// these players then has all his games from `from` on replayed; every other game keeps its
/// stored ratings, which nothing replayed reaches.
fn affected_games(
    conn: &mut PgConnection,
    from: GameKey,
    marks: &[(Uuid, i32, i32)],
    survivor: &HashMap<Uuid, Uuid>,
) -> Result<(Vec<(GameKey, RatedGame)>, History), ApiError> {
    let mut selection = Selection::default();
    for &(event, round, table) in marks {
        selection.push(event, round, table);
    }
    let marked = selected_results(conn, &selection)?;
    let mut games = rated_games(conn, marked, survivor)?;
    let mut stored = selected_history(conn, &selection)?;
    let table_of = |key: &GameKey| (key.1, key.2, key.3);
    let mut taken: HashSet<(Uuid, i32, i32)> = games.iter().map(|(k, _)| table_of(k)).collect();
    let mut asked: HashSet<Uuid> = HashSet::new();
    loop {
        let players: HashSet<Uuid> = games
            .iter()
            .flat_map(|(_, game)| game.teams.iter().flatten().copied())
            .chain(stored.keys().map(|(_, player)| *player))
            .filter(|player| !asked.contains(player))
            .collect();
        if players.is_empty() {
            return Ok((games, stored));
        }
        asked.extend(&players);
        let players: Vec<Uuid> = players.into_iter().collect();
        let mut more = Selection::default();
        for (event, round, table) in later_games(conn, &players, from)? {
            if taken.insert((event, round, table)) {
                more.push(event, round, table);
            }
        }
        if !more.is_empty() {
            let brought_in = selected_results(conn, &more)?;
            games.extend(rated_games(conn, brought_in, survivor)?);
            stored.extend(selected_history(conn, &more)?);
        }
    }
}

/// The games from `from` on that these players have ratings of.
fn later_games(
    conn: &mut PgConnection,
    players: &[Uuid],
    from: GameKey,
) -> Result<Vec<(Uuid, i32, i32)>, ApiError> {
    use diesel::sql_types::{Array, Date, Integer, Uuid as SqlUuid};
    #[derive(QueryableByName)]
    struct Later {
        #[diesel(sql_type = SqlUuid)]
        event_id: Uuid,
        #[diesel(sql_type = Integer)]
        round: i32,
        #[diesel(sql_type = Integer)]
        table_number: i32,
    }
    let (day, event, round, table) = from;
    let later: Vec<Later> = diesel::sql_query(
        "SELECT DISTINCT event_id, round, table_number FROM rating_history \
         WHERE player_id = ANY($1) AND (played_on, event_id, round, table_number) >= ($2, $3, $4, $5)",
    )
    .bind::<Array<SqlUuid>, _>(players)
    .bind::<Date, _>(day)
    .bind::<SqlUuid, _>(event)
    .bind::<Integer, _>(round)
    .bind::<Integer, _>(table)
    .load(conn)?;
    Ok(later
        .into_iter()
        .map(|l| (l.event_id, l.round, l.table_number))
        .collect())
}

/// Each player's rating after his last game before `from`: of these players, or of everyone.
fn ratings_before(
    conn: &mut PgConnection,
    from: GameKey,
    players: Option<&[Uuid]>,
) -> Result<Vec<Start>, ApiError> {
    use diesel::sql_types::{Array, Date, Integer, Uuid as SqlUuid};
    let (day, event, round, table) = from;
    let whose = if players.is_some() {
        "player_id = ANY($5) AND"
    } else {
        ""
    };
    let query = diesel::sql_query(format!(
        "SELECT DISTINCT ON (player_id) player_id, mu_after, sigma_after FROM rating_history \
         WHERE {whose} (played_on, event_id, round, table_number) < ($1, $2, $3, $4) \
         ORDER BY player_id, played_on DESC, event_id DESC, round DESC, table_number DESC"
    ))
    .bind::<Date, _>(day)
    .bind::<SqlUuid, _>(event)
    .bind::<Integer, _>(round)
    .bind::<Integer, _>(table);
    Ok(match players {
        Some(players) => query.bind::<Array<SqlUuid>, _>(players).load(conn)?,
        None => query.load(conn)?,
    })
}

/// Replays the games from `from` on that the marks can move (all of them when `from` is the
/// first game of all), writing only the history rows whose ratings change.
fn replay_from(
    conn: &mut PgConnection,
    from: GameKey,
    marks: &[(Uuid, i32, i32)],
) -> Result<(), ApiError> {
    let survivor = survivors(conn)?;
    let full = from.1.is_nil();
    // What is stored of the replayed games: a replay writes only the rows it changes. A new game
    // changes its players' later games only, so most of a day's history stays as it is.
    let (mut games, mut stored, players) = if full {
        let played = results_from(conn, from)?;
        let games = rated_games(conn, played, &survivor)?;
        (games, stored_history(conn, from)?, None)
    } else {
        let (games, stored) = affected_games(conn, from, marks, &survivor)?;
        let mut players: Vec<Uuid> = games
            .iter()
            .flat_map(|(_, game)| game.teams.iter().flatten().copied())
            .collect();
        players.sort_unstable();
        players.dedup();
        (games, stored, Some(players))
    };
    games.sort_by_key(|(key, _)| *key);
    let mut known = Ratings::new(Model::default());
    for s in ratings_before(conn, from, players.as_deref())? {
        let player = survivor.get(&s.player_id).copied().unwrap_or(s.player_id);
        known.set(
            player,
            Rating {
                mu: s.mu_after,
                sigma: s.sigma_after,
            },
        );
    }
    let mut touched: Vec<Uuid> = Vec::new();
    let mut rows = HistoryColumns::default();
    for (key, game) in &games {
        for (player, before, after) in known.play(game).into_iter().flatten() {
            // Computed the same way from the same ratings: equal to the last bit.
            if stored.remove(&(*key, player)) == Some((before, after)) {
                if full {
                    touched.push(player);
                }
                continue;
            }
            touched.push(player);
            rows.push(*key, player, before, after);
        }
    }
    // Rows of games no longer rated (or of players merged away) go.
    let gone: Vec<(GameKey, Uuid)> = stored.into_keys().collect();
    touched.extend(gone.iter().map(|(_, player)| *player));
    delete_history(conn, &gone)?;
    rows.upsert(conn)?;
    if full {
        // A full replay: players merged away keep no rating of their own.
        diesel::delete(ratings::table).execute(conn)?;
    }
    touched.sort_unstable();
    touched.dedup();
    refresh_current(conn, &touched)
}

/// Each touched player's current rating: the last game's, with his count of games; none for a
/// player left with no game.
fn refresh_current(conn: &mut PgConnection, players: &[Uuid]) -> Result<(), ApiError> {
    for chunk in players.chunks(5000) {
        diesel::sql_query(
            "DELETE FROM ratings r WHERE r.player_id = ANY($1) \
             AND NOT EXISTS (SELECT 1 FROM rating_history h WHERE h.player_id = r.player_id)",
        )
        .bind::<diesel::sql_types::Array<diesel::sql_types::Uuid>, _>(chunk)
        .execute(conn)?;
        diesel::sql_query(
            "INSERT INTO ratings (player_id, mu, sigma, rating, games) \
             SELECT DISTINCT ON (player_id) player_id, mu_after, sigma_after, mu_after - 3 * sigma_after, \
                    count(*) OVER (PARTITION BY player_id) \
             FROM rating_history WHERE player_id = ANY($1) \
             ORDER BY player_id, played_on DESC, event_id DESC, round DESC, table_number DESC \
             ON CONFLICT (player_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, \
                    rating = excluded.rating, games = excluded.games",
        )
        .bind::<diesel::sql_types::Array<diesel::sql_types::Uuid>, _>(chunk)
        .execute(conn)?;
    }
    Ok(())
}

/// A result as the ratings play it, with merged players as their survivors; none when the
/// event's standings do not count it (yet).
pub fn rated_game(
    event: &Event,
    result: &TableResult,
    survivor: &HashMap<Uuid, Uuid>,
) -> Option<RatedGame> {
    if event.standings_count == StandingsCount::Confirmed
        && !matches!(
            result.status,
            ResultStatus::Confirmed | ResultStatus::Resolved
        )
    {
        return None;
    }
    let mut game = if result.stage == Stage::Swiss {
        RatedGame::partner(&result.to_partner_game()?)
    } else {
        RatedGame::classic(&result.to_domain())
    };
    for team in &mut game.teams {
        for player in team.iter_mut() {
            *player = survivor.get(player).copied().unwrap_or(*player);
        }
    }
    Some(game)
}

#[derive(QueryableByName)]
struct Ranked {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    player_id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Jsonb)]
    player: serde_json::Value,
    #[diesel(sql_type = diesel::sql_types::Double)]
    rating: f64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    mu: f64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    sigma: f64,
    #[diesel(sql_type = diesel::sql_types::Integer)]
    games: i32,
}

/// A page of the leaderboard, best rating first, of one region or of everyone.
pub fn leaderboard(
    conn: &mut PgConnection,
    region: Option<Uuid>,
    min_games: u32,
    (limit, offset): (i64, i64),
) -> Result<catan_api::RatingsLeaderboard, ApiError> {
    use diesel::sql_types::{BigInt, Nullable, Text};
    // Read before the rows: a replay committing in between makes the rows newer than it says.
    let as_of = as_of(conn)?;
    let rows: Vec<Ranked> = diesel::sql_query(
        "SELECT r.player_id, p.body AS player, r.rating, r.mu, r.sigma, r.games \
         FROM ratings r JOIN players p ON p.id = r.player_id \
         WHERE $1::text IS NULL OR p.body->>'region_id' = $1 \
         ORDER BY r.rating DESC, r.player_id LIMIT $2 OFFSET $3",
    )
    .bind::<Nullable<Text>, _>(region.map(|r| r.to_string()))
    .bind::<BigInt, _>(limit)
    .bind::<BigInt, _>(offset)
    .load(conn)?;
    let rows = rows
        .into_iter()
        .zip(offset.max(0)..)
        .map(|(row, index)| {
            let player: Player = serde_json::from_value(row.player).map_err(ApiError::internal)?;
            let games = u32::try_from(row.games).unwrap_or(0);
            Ok(catan_api::RatingRow {
                rank: u32::try_from(index + 1).unwrap_or(u32::MAX),
                player_id: row.player_id,
                name: player.name,
                region_id: player.region_id,
                rating: row.rating,
                mu: row.mu,
                sigma: row.sigma,
                games,
                provisional: games < min_games,
            })
        })
        .collect::<Result<_, ApiError>>()?;
    Ok(catan_api::RatingsLeaderboard { as_of, rows })
}

/// A player's rating history, oldest game first; `None` for a player ranking does not know.
pub fn history_of(
    conn: &mut PgConnection,
    player: Uuid,
) -> Result<Option<catan_api::PlayerRatings>, ApiError> {
    let known: Option<Uuid> = players::table
        .find(player)
        .select(players::id)
        .first(conn)
        .optional()?;
    if known.is_none() {
        return Ok(None);
    }
    // A merged player's history is his survivor's.
    let player = survivors(conn)?.get(&player).copied().unwrap_or(player);
    let as_of = as_of(conn)?;
    type Row = (NaiveDate, Uuid, i32, i32, f64, f64, f64, f64);
    let rows: Vec<Row> = rating_history::table
        .filter(rating_history::player_id.eq(player))
        .order((
            rating_history::played_on,
            rating_history::event_id,
            rating_history::round,
            rating_history::table_number,
        ))
        .select((
            rating_history::played_on,
            rating_history::event_id,
            rating_history::round,
            rating_history::table_number,
            rating_history::mu_before,
            rating_history::sigma_before,
            rating_history::mu_after,
            rating_history::sigma_after,
        ))
        .load(conn)?;
    let now = rows.last().map_or_else(
        || Model::default().new_rating(),
        |r| Rating {
            mu: r.6,
            sigma: r.7,
        },
    );
    Ok(Some(catan_api::PlayerRatings {
        player_id: player,
        as_of,
        rating: now.ordinal(),
        mu: now.mu,
        sigma: now.sigma,
        games: rows
            .into_iter()
            .map(
                |(
                    played_on,
                    event_id,
                    round,
                    table,
                    mu_before,
                    sigma_before,
                    mu_after,
                    sigma_after,
                )| {
                    catan_api::RatedGameRow {
                        played_on,
                        event_id,
                        round: u32::try_from(round).unwrap_or(0),
                        table: u32::try_from(table).unwrap_or(0),
                        mu_before,
                        sigma_before,
                        mu_after,
                        sigma_after,
                        rating_after: mu_after - 3.0 * sigma_after,
                    }
                },
            )
            .collect(),
    }))
}

/// The current ratings of `players` (a new player's for one who has not played).
pub fn current(conn: &mut PgConnection, players: &[Uuid]) -> Result<Vec<Rating>, ApiError> {
    let survivor = survivors(conn)?;
    let canonical: Vec<Uuid> = players
        .iter()
        .map(|p| survivor.get(p).copied().unwrap_or(*p))
        .collect();
    let known: HashMap<Uuid, Rating> = ratings::table
        .filter(ratings::player_id.eq_any(&canonical))
        .select((ratings::player_id, ratings::mu, ratings::sigma))
        .load::<(Uuid, f64, f64)>(conn)?
        .into_iter()
        .map(|(p, mu, sigma)| (p, Rating { mu, sigma }))
        .collect();
    Ok(canonical
        .iter()
        .map(|p| {
            known
                .get(p)
                .copied()
                .unwrap_or_else(|| Model::default().new_rating())
        })
        .collect())
}
