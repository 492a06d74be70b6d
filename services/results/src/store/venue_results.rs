//! An event's results with their whole history (issue 34), as a venue sends them to the
//! federation: read whole, and added to with the venue's times.

use super::*;
use catan_api::{ConfirmationCopy, DisputeCopy, SheetVersionCopy, SubmitResult, TableHistoryCopy};

/// A table's history as kept, with each version's sheet as the rules recorded it (in the order
/// of `copy.versions`).
pub struct Kept {
    pub copy: TableHistoryCopy,
    pub sheets: Vec<Sheet>,
}

type ConfirmationRow = (i32, i32, i32, Uuid, DateTime<Utc>, Option<Uuid>);
type DisputeRow = (i32, i32, i32, Uuid, String, DateTime<Utc>, Option<i32>);

/// Every table of the event that has a result, by round and table: its versions oldest first,
/// its confirmations and disputes in the order they were made.
pub fn kept(conn: &mut PgConnection, event_id: Uuid) -> Result<Vec<Kept>, ApiError> {
    let rows: Vec<Row> = result_versions::table
        .filter(result_versions::event_id.eq(event_id))
        .order((
            result_versions::round,
            result_versions::table_number,
            result_versions::version,
        ))
        .select(columns!(result_versions))
        .load(conn)?;
    let confirmed: Vec<ConfirmationRow> = confirmations::table
        .filter(confirmations::event_id.eq(event_id))
        .order((confirmations::confirmed_at, confirmations::player_id))
        .select((
            confirmations::round,
            confirmations::table_number,
            confirmations::version,
            confirmations::player_id,
            confirmations::confirmed_at,
            confirmations::on_behalf_by,
        ))
        .load(conn)?;
    let disputed: Vec<DisputeRow> = disputes::table
        .filter(disputes::event_id.eq(event_id))
        .order((disputes::created_at, disputes::player_id))
        .select((
            disputes::round,
            disputes::table_number,
            disputes::version,
            disputes::player_id,
            disputes::reason,
            disputes::created_at,
            disputes::resolved_by_version,
        ))
        .load(conn)?;
    let mut kept: Vec<Kept> = Vec::new();
    for row in rows {
        let version = from_row(row)?;
        let sheet = Sheet::of(&version);
        let copy = SheetVersionCopy {
            version: version.version,
            sheet: SubmitResult::of_recorded(&version),
            recorded_by: version.recorded_by,
            recorded_at: version.recorded_at,
        };
        match kept.last_mut() {
            Some(last) if (last.copy.round, last.copy.table) == (version.round, version.table) => {
                last.copy.versions.push(copy);
                last.sheets.push(sheet);
            }
            _ => kept.push(Kept {
                copy: TableHistoryCopy {
                    round: version.round,
                    table: version.table,
                    versions: vec![copy],
                    confirmations: Vec::new(),
                    disputes: Vec::new(),
                },
                sheets: vec![sheet],
            }),
        }
    }
    fn table_of(kept: &mut [Kept], round: i32, table: i32) -> Option<&mut TableHistoryCopy> {
        kept.iter_mut()
            .map(|k| &mut k.copy)
            .find(|c| (c.round as i32, c.table as i32) == (round, table))
    }
    for (round, table, version, player_id, confirmed_at, on_behalf_by) in confirmed {
        if let Some(copy) = table_of(&mut kept, round, table) {
            copy.confirmations.push(ConfirmationCopy {
                version: version as u32,
                player_id,
                confirmed_at,
                on_behalf_by,
            });
        }
    }
    for (round, table, version, player_id, reason, created_at, resolved) in disputed {
        if let Some(copy) = table_of(&mut kept, round, table) {
            copy.disputes.push(DisputeCopy {
                version: version as u32,
                player_id,
                reason,
                created_at,
                resolved_by_version: resolved.map(|v| v as u32),
            });
        }
    }
    Ok(kept)
}

/// Records a player's confirmation as the venue made it, at its time.
pub fn confirm_at(
    conn: &mut PgConnection,
    (event_id, round, table): (Uuid, u32, u32),
    confirmation: &ConfirmationCopy,
) -> Result<(), ApiError> {
    diesel::insert_into(confirmations::table)
        .values((
            confirmations::event_id.eq(event_id),
            confirmations::round.eq(round as i32),
            confirmations::table_number.eq(table as i32),
            confirmations::version.eq(confirmation.version as i32),
            confirmations::player_id.eq(confirmation.player_id),
            confirmations::confirmed_at.eq(confirmation.confirmed_at),
            confirmations::on_behalf_by.eq(confirmation.on_behalf_by),
        ))
        .execute(conn)?;
    Ok(())
}

/// Records a player's dispute as the venue made it, at its time, open: the correction that
/// follows it resolves it as it did at the venue.
pub fn dispute_at(
    conn: &mut PgConnection,
    (event_id, round, table): (Uuid, u32, u32),
    dispute: &DisputeCopy,
) -> Result<(), ApiError> {
    diesel::insert_into(disputes::table)
        .values((
            disputes::event_id.eq(event_id),
            disputes::round.eq(round as i32),
            disputes::table_number.eq(table as i32),
            disputes::version.eq(dispute.version as i32),
            disputes::player_id.eq(dispute.player_id),
            disputes::reason.eq(&dispute.reason),
            disputes::created_at.eq(dispute.created_at),
        ))
        .execute(conn)?;
    Ok(())
}

/// Holds the event's imports of a venue's results until the transaction ends: two imports of one
/// part (a publish run again while the first is still writing) run one after the other, and the
/// second finds the first's records alike.
pub fn lock_imports(conn: &mut PgConnection, event_id: Uuid) -> Result<(), ApiError> {
    diesel::sql_query("SELECT pg_advisory_xact_lock(34, hashtext($1))")
        .bind::<Text, _>(event_id.to_string())
        .execute(conn)?;
    Ok(())
}
