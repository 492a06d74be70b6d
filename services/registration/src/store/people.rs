//! Regions and players: the federation's people, one identity across every event.

use super::{fold_name, strpos};
use crate::schema::registration::{players, regions};
use catan_api::{Player, Region};
use catan_domain::identity::Identity;
use catan_kit::ApiError;
use catan_kit::problem::{ErrorCode, FieldError};
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

#[derive(Queryable, Selectable)]
#[diesel(table_name = players)]
struct PlayerRow {
    id: Uuid,
    name: String,
    region_id: Option<Uuid>,
    merged_into: Option<Uuid>,
    created_at: DateTime<Utc>,
}

impl From<PlayerRow> for Player {
    fn from(row: PlayerRow) -> Self {
        Player {
            id: row.id,
            name: row.name,
            region_id: row.region_id,
            merged_into: row.merged_into,
            created_at: row.created_at,
        }
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
        .returning(PlayerRow::as_returning())
        .get_result::<PlayerRow>(conn)
        .map(Player::from)
}

pub fn find_player(conn: &mut PgConnection, id: Uuid) -> QueryResult<Option<Player>> {
    players::table
        .find(id)
        .select(PlayerRow::as_select())
        .first::<PlayerRow>(conn)
        .optional()
        .map(|row| row.map(Player::from))
}

/// The players of `ids`, in no particular order (those that do not exist left out).
pub fn players_by_ids(conn: &mut PgConnection, ids: &[Uuid]) -> QueryResult<Vec<Player>> {
    // The feed asks with no ids at every quiet poll: no statement for nothing.
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<PlayerRow> = players::table
        .filter(players::id.eq_any(ids))
        .select(PlayerRow::as_select())
        .load(conn)?;
    Ok(rows.into_iter().map(Player::from).collect())
}

/// The identities of the duplicate and the survivor of a merge, locked until the transaction
/// ends (in id order, so that two merges of the same pair wait rather than deadlock, and the
/// second sees the first's merge); 404 when either is no player.
pub fn lock_for_merge(
    conn: &mut PgConnection,
    duplicate: Uuid,
    survivor: Uuid,
) -> Result<(Identity, Identity), ApiError> {
    let rows: Vec<(Uuid, Option<Uuid>)> = players::table
        .filter(players::id.eq_any([duplicate, survivor]))
        .order(players::id)
        .select((players::id, players::merged_into))
        .for_update()
        .load(conn)?;
    let identity = |id: Uuid| {
        rows.iter()
            .find(|(found, _)| *found == id)
            .map(|&(id, merged_into)| Identity { id, merged_into })
    };
    // The path names the duplicate: unknown, it is 404. The survivor is a field of the body:
    // unknown, the body is refused on it (422), as any other id a body names.
    let duplicate = identity(duplicate)
        .ok_or_else(|| ApiError::NotFound(format!("there is no player {duplicate}")))?;
    let survivor = identity(survivor).ok_or_else(|| {
        crate::validate::broken_rules(vec![FieldError {
            field: "into".into(),
            code: ErrorCode::UnknownPlayer,
            message: format!("there is no player {survivor}"),
        }])
    })?;
    Ok((duplicate, survivor))
}

/// The regions of the players `ids` (`None` for a player of no region), in no particular order.
pub fn regions_of(conn: &mut PgConnection, ids: &[Uuid]) -> QueryResult<Vec<Option<Uuid>>> {
    players::table
        .filter(players::id.eq_any(ids))
        .select(players::region_id)
        .load(conn)
}

/// Marks `duplicate` as merged into `survivor`: the duplicate as he is now.
pub fn merge(conn: &mut PgConnection, duplicate: Uuid, survivor: Uuid) -> QueryResult<Player> {
    diesel::update(players::table.find(duplicate))
        .set(players::merged_into.eq(survivor))
        .returning(PlayerRow::as_returning())
        .get_result::<PlayerRow>(conn)
        .map(Player::from)
}

/// Renames the player from `old` to `new`: the player as he is now; 409 when his name is no
/// longer `old` (renamed meanwhile), 404 when there is no such player. Each classic entry of his
/// is named by his name, so each changes in the feed too (it carries them with the new name).
pub fn rename(conn: &mut PgConnection, id: Uuid, old: &str, new: &str) -> Result<Player, ApiError> {
    let renamed: Option<PlayerRow> = diesel::update(
        players::table
            .filter(players::id.eq(id))
            .filter(players::name.eq(old)),
    )
    .set(players::name.eq(new))
    .returning(PlayerRow::as_returning())
    .get_result(conn)
    .optional()?;
    let Some(renamed) = renamed else {
        return Err(match find_player(conn, id)? {
            None => ApiError::NotFound(format!("there is no player {id}")),
            Some(_) => ApiError::Conflict(
                "the player was renamed meanwhile: read him again and retry".into(),
            ),
        });
    };
    diesel::sql_query(
        "INSERT INTO changes (kind, id) SELECT 'entry', id FROM entries WHERE player_id = $1 \
         ORDER BY created_at, id",
    )
    .bind::<diesel::sql_types::Uuid, _>(id)
    .execute(conn)?;
    Ok(Player::from(renamed))
}

/// A page of the players whose name contains `name` (whatever the case and the accents), of
/// `region_id`, by name (case and accents aside, as they are searched). Merged players are left
/// out: their survivor is the one to find.
pub fn search_players(
    conn: &mut PgConnection,
    name: Option<&str>,
    region_id: Option<Uuid>,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<Player>> {
    let mut query = players::table
        .filter(players::merged_into.is_null())
        .select(PlayerRow::as_select())
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
    let rows: Vec<PlayerRow> = query.load(conn)?;
    Ok(rows.into_iter().map(Player::from).collect())
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
