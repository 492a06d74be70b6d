//! The change feed's rows: one per insert or update of an event, an entry or a player, written
//! by the schema's triggers (migration `changes`), numbered by their transaction and sequence.

use crate::schema::registration::changes;
use crate::schema::registration::sql_types::Xid8;
use catan_api::{Entry, Event, Player, RegistrationChange, RegistrationChangeKind};
use catan_kit::ApiError;
use catan_kit::db::enum_from_text;
use chrono::{DateTime, Utc};
use diesel::deserialize::{FromSql, FromSqlRow};
use diesel::expression::AsExpression;
use diesel::pg::{Pg, PgValue};
use diesel::prelude::*;
use diesel::serialize::{IsNull, Output, ToSql};
use std::collections::HashMap;
use std::io::Write;
use uuid::Uuid;

use RegistrationChangeKind as Kind;

/// A transaction id as PostgreSQL's `xid8` gives it: 64 bits with the epoch, never wrapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, AsExpression, FromSqlRow)]
#[diesel(sql_type = Xid8)]
pub struct TxId(pub u64);

// xid8's binary form is its 64-bit number, big-endian.
impl ToSql<Xid8, Pg> for TxId {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> diesel::serialize::Result {
        out.write_all(&self.0.to_be_bytes())?;
        Ok(IsNull::No)
    }
}

impl FromSql<Xid8, Pg> for TxId {
    fn from_sql(value: PgValue<'_>) -> diesel::deserialize::Result<Self> {
        let bytes: [u8; 8] = value.as_bytes().try_into()?;
        Ok(TxId(u64::from_be_bytes(bytes)))
    }
}

/// PostgreSQL's `pg_snapshot`.
#[derive(diesel::query_builder::QueryId, Clone, diesel::sql_types::SqlType)]
#[diesel(postgres_type(name = "pg_snapshot", schema = "pg_catalog"))]
pub struct PgSnapshot;

diesel::define_sql_function! {
    /// The snapshot the statement reads.
    fn pg_current_snapshot() -> PgSnapshot;
}

diesel::define_sql_function! {
    /// The oldest transaction still in flight in `snapshot`: every older one has ended.
    fn pg_snapshot_xmin(snapshot: PgSnapshot) -> Xid8;
}

/// Where a reader of the feed is: after the change `seq` of transaction `txid`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub txid: TxId,
    pub seq: i64,
}

/// One change: what it touched, when, and where it is in the feed.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = changes)]
pub struct ChangeRow {
    pub txid: TxId,
    pub seq: i64,
    pub kind: String,
    pub id: Uuid,
    pub changed_at: DateTime<Utc>,
}

impl ChangeRow {
    pub fn position(&self) -> Position {
        Position {
            txid: self.txid,
            seq: self.seq,
        }
    }
}

/// The first `limit` changes after `after` (from the first when none), in (txid, seq) order,
/// among those of transactions older than the oldest still in flight: in one statement, so that
/// the rows read and the snapshot that bounds them are the same. A transaction that commits late
/// is thus read after the ones before it, never passed over.
pub fn after(
    conn: &mut PgConnection,
    after: Option<Position>,
    limit: i64,
) -> Result<Vec<ChangeRow>, ApiError> {
    let mut query = changes::table
        .filter(changes::txid.lt(pg_snapshot_xmin(pg_current_snapshot())))
        .order((changes::txid, changes::seq))
        .limit(limit)
        .select(ChangeRow::as_select())
        .into_boxed();
    if let Some(Position { txid, seq }) = after {
        // (txid, seq) > (after): the first half lets the primary key's index start at `txid`.
        query = query
            .filter(changes::txid.ge(txid))
            .filter(changes::txid.gt(txid).or(changes::seq.gt(seq)));
    }
    Ok(query.load(conn)?)
}

/// Of `rows` (in feed order), the last change of each thing (kind and id), in feed order: a
/// page carries each thing once, where it last changed.
pub fn last_of_each(rows: Vec<ChangeRow>) -> Vec<ChangeRow> {
    let mut last: HashMap<(String, Uuid), usize> = HashMap::new();
    for (index, row) in rows.iter().enumerate() {
        last.insert((row.kind.clone(), row.id), index);
    }
    rows.into_iter()
        .enumerate()
        .filter(|(index, row)| last.get(&(row.kind.clone(), row.id)) == Some(index))
        .map(|(_, row)| row)
        .collect()
}

/// A page of the feed: its changes, the cursor to read on from, whether changes wait behind a
/// transaction in flight, and the last transaction the page completes.
pub struct Page {
    pub items: Vec<RegistrationChange>,
    pub next: Option<Position>,
    pub held_back: bool,
    /// Every transaction up to it has ended, and its changes are in this page or an earlier one.
    pub read_through: u64,
}

/// A page of the feed after `after`: each event, entry and player changed in the first `limit`
/// changes, once, where it last changed, as it is now; and the position of the last change read
/// (`after` when there was none). One snapshot (repeatable read) for the page and its things.
pub fn page(
    conn: &mut PgConnection,
    after_position: Option<Position>,
    limit: i64,
) -> Result<Page, ApiError> {
    conn.build_transaction()
        .repeatable_read()
        .read_only()
        .run(|conn| {
            let rows = after(conn, after_position, limit)?;
            let next = rows.last().map(ChangeRow::position).or(after_position);
            // Whether the newest change is of a transaction still in flight, by the primary
            // key's last entry: an `EXISTS` over `txid >= xmin` is planned as a scan of the whole
            // feed, found empty only at its end.
            let newest: Option<TxId> = changes::table
                .select(changes::txid)
                .order(changes::txid.desc())
                .first(conn)
                .optional()?;
            let in_flight_from: TxId =
                diesel::select(pg_snapshot_xmin(pg_current_snapshot())).get_result(conn)?;
            let held_back = newest.is_some_and(|txid| txid >= in_flight_from);
            let full = i64::try_from(rows.len()).is_ok_and(|n| n >= limit);
            let read_through = catan_kit::feed::read_through(
                full,
                rows.last().map(|row| row.txid.0),
                in_flight_from.0,
            );
            let changed = last_of_each(rows);
            Ok(Page {
                items: current_states(conn, changed)?,
                next,
                held_back,
                read_through,
            })
        })
}

/// Each change of `rows` with the current state of what it touched.
fn current_states(
    conn: &mut PgConnection,
    rows: Vec<ChangeRow>,
) -> Result<Vec<RegistrationChange>, ApiError> {
    let kinds = rows
        .iter()
        .map(|row| enum_from_text::<RegistrationChangeKind>(&row.kind))
        .collect::<Result<Vec<_>, _>>()?;
    let ids_of = |kind| -> Vec<Uuid> {
        rows.iter()
            .zip(&kinds)
            .filter(|(_, k)| **k == kind)
            .map(|(row, _)| row.id)
            .collect()
    };
    let mut events: HashMap<Uuid, Event> = super::events::by_ids(conn, &ids_of(Kind::Event))?
        .into_iter()
        .map(|event| (event.id, event))
        .collect();
    let mut entries: HashMap<Uuid, Entry> = super::entries::by_ids(conn, &ids_of(Kind::Entry))?
        .into_iter()
        .map(|entry| (entry.id, entry))
        .collect();
    let mut players: HashMap<Uuid, Player> =
        super::people::players_by_ids(conn, &ids_of(Kind::Player))?
            .into_iter()
            .map(|player| (player.id, player))
            .collect();
    rows.into_iter()
        .zip(kinds)
        .map(|(row, kind)| {
            let mut change = RegistrationChange {
                kind,
                id: row.id,
                changed_at: row.changed_at,
                event: None,
                entry: None,
                player: None,
            };
            // Nothing is ever deleted, so what changed is there.
            let gone = || ApiError::internal(format!("changed {kind:?} {} is gone", row.id));
            match kind {
                Kind::Event => change.event = Some(events.remove(&row.id).ok_or_else(gone)?),
                Kind::Entry => change.entry = Some(entries.remove(&row.id).ok_or_else(gone)?),
                Kind::Player => change.player = Some(players.remove(&row.id).ok_or_else(gone)?),
            }
            Ok(change)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(txid: u64, seq: i64, kind: &str, id: Uuid) -> ChangeRow {
        ChangeRow {
            txid: TxId(txid),
            seq,
            kind: kind.into(),
            id,
            changed_at: Utc::now(),
        }
    }

    #[test]
    fn a_page_carries_each_thing_once_where_it_last_changed() {
        let (ada, spring, same_id) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let rows = vec![
            change(7, 1, "player", ada),
            change(7, 2, "event", spring),
            change(8, 3, "player", ada),
            change(9, 4, "entry", same_id),
            // Another kind with the same id is another thing.
            change(9, 5, "player", same_id),
        ];
        let positions: Vec<(u64, i64)> = last_of_each(rows)
            .iter()
            .map(|row| (row.txid.0, row.seq))
            .collect();
        assert_eq!(positions, [(7, 2), (8, 3), (9, 4), (9, 5)]);
    }

    #[test]
    fn positions_follow_the_transactions_then_the_sequence() {
        let at = |txid, seq| Position {
            txid: TxId(txid),
            seq,
        };
        // A transaction that began first comes first, whatever its changes' numbers.
        assert!(at(7, 9) < at(8, 1));
        assert!(at(8, 1) < at(8, 2));
    }
}
