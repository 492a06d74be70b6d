//! What the read model knows of a player across events: the games he shared with another.

use crate::ratings::{Played, rated_game, survivors};
use crate::schema::ranking::players;
use catan_api::{Event, HeadToHead, SharedGame, TableResult};
use catan_kit::ApiError;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use std::cmp::Ordering;
use std::collections::HashMap;
use uuid::Uuid;

/// The identities that are `player` once merges are followed: himself and everyone merged into
/// him.
fn identities(survivor: &HashMap<Uuid, Uuid>, player: Uuid) -> Vec<String> {
    let mut ids: Vec<Uuid> = survivor
        .iter()
        .filter(|(_, s)| **s == player)
        .map(|(merged, _)| *merged)
        .collect();
    ids.push(player);
    ids.iter().map(Uuid::to_string).collect()
}

/// The games `player` and `opponent` shared, oldest first; `None` when either is unknown.
pub fn head_to_head(
    conn: &mut PgConnection,
    player: Uuid,
    opponent: Uuid,
) -> Result<Option<HeadToHead>, ApiError> {
    let known: Vec<DateTime<Utc>> = players::table
        .filter(players::id.eq_any([player, opponent]))
        .select(players::changed_at)
        .load(conn)?;
    if known.len() < if player == opponent { 1 } else { 2 } {
        return Ok(None);
    }
    let survivor = survivors(conn)?;
    let canonical = |p: Uuid| survivor.get(&p).copied().unwrap_or(p);
    let (player, opponent) = (canonical(player), canonical(opponent));
    let seated = "EXISTS (SELECT 1 FROM jsonb_array_elements(k.result->'scores') s WHERE s->>'player_id' = ANY($1)) \
                  AND EXISTS (SELECT 1 FROM jsonb_array_elements(k.result->'scores') s WHERE s->>'player_id' = ANY($2))";
    let rows: Vec<Played> = diesel::sql_query(format!(
        "SELECT e.starts_on, e.body AS event, k.result FROM known_results k JOIN events e ON e.id = k.event_id \
         WHERE {seated} ORDER BY e.starts_on, k.event_id, k.round, k.table_number"
    ))
    .bind::<diesel::sql_types::Array<diesel::sql_types::Text>, _>(identities(&survivor, player))
    .bind::<diesel::sql_types::Array<diesel::sql_types::Text>, _>(identities(&survivor, opponent))
    .load(conn)?;
    let mut answer = HeadToHead {
        player_id: player,
        opponent_id: opponent,
        ahead: 0,
        behind: 0,
        level: 0,
        games: Vec::new(),
        as_of: known.into_iter().max().unwrap_or_default(),
    };
    for row in rows {
        let event: Event = serde_json::from_value(row.event).map_err(ApiError::internal)?;
        let result: TableResult = serde_json::from_value(row.result).map_err(ApiError::internal)?;
        answer.as_of = answer.as_of.max(result.recorded_at);
        let Some(game) = rated_game(&event, &result, &survivor) else {
            continue;
        };
        let place_of = |p: Uuid| {
            game.teams
                .iter()
                .zip(&game.places)
                .find(|(team, _)| team.contains(&p))
                .map(|(_, place)| *place)
        };
        let vp_of = |p: Uuid| {
            result
                .scores
                .iter()
                .find(|s| canonical(s.player_id) == p)
                .map_or(0, |s| u32::from(s.vp))
        };
        let (Some(place), Some(opponent_place)) = (place_of(player), place_of(opponent)) else {
            continue;
        };
        match place.cmp(&opponent_place) {
            Ordering::Less => answer.ahead += 1,
            Ordering::Greater => answer.behind += 1,
            Ordering::Equal => answer.level += 1,
        }
        answer.games.push(SharedGame {
            event_id: event.id,
            event_name: event.name,
            played_on: row.starts_on,
            round: result.round,
            table: result.table,
            place,
            opponent_place,
            vp: vp_of(player),
            opponent_vp: vp_of(opponent),
        });
    }
    Ok(Some(answer))
}
