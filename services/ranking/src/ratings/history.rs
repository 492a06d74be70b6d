//! The stored rating history: each player's rating before and after each game, written as a
//! replay changes it.

use super::*;

/// Rating history rows, column by column, inserted in one statement of arrays (a replay writes
/// thousands).
#[derive(Default)]
pub(super) struct HistoryColumns {
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
    pub(super) fn push(&mut self, key: GameKey, player: Uuid, before: Rating, after: Rating) {
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
    pub(super) fn upsert(&self, conn: &mut PgConnection) -> Result<(), ApiError> {
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
pub(super) struct StoredRow {
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
    pub(super) fn entry(self) -> ((GameKey, Uuid), (Rating, Rating)) {
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
pub(super) type History = HashMap<(GameKey, Uuid), (Rating, Rating)>;

/// The history stored from `from` on.
pub(super) fn stored_history(conn: &mut PgConnection, from: GameKey) -> Result<History, ApiError> {
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
pub(super) fn delete_history(
    conn: &mut PgConnection,
    gone: &[(GameKey, Uuid)],
) -> Result<(), ApiError> {
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
