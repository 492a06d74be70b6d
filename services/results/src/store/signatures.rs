//! The players' signatures on a table's result: confirmations and disputes of a version.

use crate::schema::results::{confirmations, disputes};
use catan_kit::ApiError;
use diesel::prelude::*;
use uuid::Uuid;

/// Records `player`'s confirmation of `version` of a table's result, made by the director's API
/// key `on_behalf_by` when he made it for the player; whether it is new (a player who confirmed
/// already stays confirmed as he was).
pub fn confirm(
    conn: &mut PgConnection,
    (event_id, round, table): (Uuid, u32, u32),
    version: u32,
    player: Uuid,
    on_behalf_by: Option<Uuid>,
) -> Result<bool, ApiError> {
    let added = diesel::insert_into(confirmations::table)
        .values((
            confirmations::event_id.eq(event_id),
            confirmations::round.eq(round as i32),
            confirmations::table_number.eq(table as i32),
            confirmations::version.eq(version as i32),
            confirmations::player_id.eq(player),
            confirmations::on_behalf_by.eq(on_behalf_by),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(added > 0)
}

/// Records `player`'s dispute of `version` of a table's result; whether it is new (a player
/// disputes a version once).
pub fn dispute(
    conn: &mut PgConnection,
    (event_id, round, table): (Uuid, u32, u32),
    version: u32,
    player: Uuid,
    reason: &str,
) -> Result<bool, ApiError> {
    let added = diesel::insert_into(disputes::table)
        .values((
            disputes::event_id.eq(event_id),
            disputes::round.eq(round as i32),
            disputes::table_number.eq(table as i32),
            disputes::version.eq(version as i32),
            disputes::player_id.eq(player),
            disputes::reason.eq(reason),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(added > 0)
}
