//! The ratings as read: the leaderboard, a player's history, current ratings.

use super::*;

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
