//! Regions and players: the federation's people, one identity across every event.

use super::{fold_name, strpos};
use crate::schema::registration::{players, regions};
use catan_api::{Player, Region};
use catan_kit::ApiError;
use catan_kit::problem::ErrorCode;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

/// A region the request names must exist (none named is fine).
pub fn region_must_exist(conn: &mut PgConnection, region_id: Option<Uuid>) -> Result<(), ApiError> {
    if let Some(id) = region_id {
        let found: i64 = regions::table
            .filter(regions::id.eq(id))
            .count()
            .get_result(conn)?;
        if found == 0 {
            return Err(ApiError::field(
                "region_id",
                ErrorCode::UnknownRegion,
                format!("there is no region {id}"),
            ));
        }
    }
    Ok(())
}

pub fn insert_region(conn: &mut PgConnection, region: &Region) -> QueryResult<usize> {
    diesel::insert_into(regions::table)
        .values((regions::id.eq(region.id), regions::name.eq(&region.name)))
        .execute(conn)
}

/// A page of the regions, by name.
pub fn regions(conn: &mut PgConnection, limit: i64, offset: i64) -> QueryResult<Vec<Region>> {
    let rows: Vec<(Uuid, String)> = regions::table
        .select((regions::id, regions::name))
        .order((regions::name, regions::id))
        .limit(limit)
        .offset(offset)
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(id, name)| Region { id, name })
        .collect())
}

type PlayerRow = (Uuid, String, Option<Uuid>, DateTime<Utc>);

fn player_from_row((id, name, region_id, created_at): PlayerRow) -> Player {
    Player {
        id,
        name,
        region_id,
        created_at,
    }
}

/// A new player, as stored.
pub fn insert_player(
    conn: &mut PgConnection,
    name: &str,
    region_id: Option<Uuid>,
) -> QueryResult<Player> {
    diesel::insert_into(players::table)
        .values((
            players::id.eq(Uuid::new_v4()),
            players::name.eq(name),
            players::region_id.eq(region_id),
        ))
        .returning((
            players::id,
            players::name,
            players::region_id,
            players::created_at,
        ))
        .get_result(conn)
        .map(player_from_row)
}

pub fn find_player(conn: &mut PgConnection, id: Uuid) -> QueryResult<Option<Player>> {
    players::table
        .find(id)
        .select((
            players::id,
            players::name,
            players::region_id,
            players::created_at,
        ))
        .first(conn)
        .optional()
        .map(|row| row.map(player_from_row))
}

/// A page of the players whose name contains `name` (whatever the case and the accents), of
/// `region_id`, by name (case and accents aside, as they are searched).
pub fn search_players(
    conn: &mut PgConnection,
    name: Option<&str>,
    region_id: Option<Uuid>,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<Player>> {
    let mut query = players::table
        .select((
            players::id,
            players::name,
            players::region_id,
            players::created_at,
        ))
        .order((players::search_name, players::name, players::id))
        .limit(limit)
        .offset(offset)
        .into_boxed();
    if let Some(name) = name {
        query = query.filter(strpos(players::search_name.assume_not_null(), fold_name(name)).gt(0));
    }
    if let Some(region_id) = region_id {
        query = query.filter(players::region_id.eq(region_id));
    }
    Ok(query.load(conn)?.into_iter().map(player_from_row).collect())
}

/// A region.
pub fn find_region(conn: &mut PgConnection, id: Uuid) -> QueryResult<Option<Region>> {
    regions::table
        .find(id)
        .select((regions::id, regions::name))
        .first(conn)
        .optional()
        .map(|row| row.map(|(id, name)| Region { id, name }))
}

/// The position in `ids` of the first one that is no player, if any.
pub fn first_unknown_player(conn: &mut PgConnection, ids: &[Uuid]) -> QueryResult<Option<usize>> {
    let known: Vec<Uuid> = players::table
        .filter(players::id.eq_any(ids))
        .select(players::id)
        .load(conn)?;
    Ok(ids.iter().position(|p| !known.contains(p)))
}
