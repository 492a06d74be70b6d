//! The ratings replay: the games a change can move, rated again in the order of play from the
//! ratings before them, and the history and current ratings stored.

use super::*;

/// The first game the marks (event, round, table) affect; none when they name only events not
/// known yet.
pub(super) fn first_affected(
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
pub(super) fn replay_from(
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
/// event's standings do not count it (yet), or the director voided it.
pub fn rated_game(
    event: &Event,
    result: &TableResult,
    survivor: &HashMap<Uuid, Uuid>,
) -> Option<RatedGame> {
    if result.voided {
        return None;
    }
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
