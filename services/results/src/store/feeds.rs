//! The change feeds: every event's results, or one event's, in the order their last change
//! committed.

use super::*;
use catan_kit::feed;

/// A page of a results feed, as its routes answer it.
pub struct FeedPage {
    pub items: Vec<TableResult>,
    pub next: Cursor,
    pub held_back: bool,
    /// The last transaction the page completes ([`feed::read_through`]).
    pub read_through: u64,
}

impl FeedPage {
    pub fn answer(self) -> catan_api::ResultChanges {
        catan_api::ResultChanges {
            items: self.items,
            next: self.next.to_string(),
            held_back: self.held_back,
            position: catan_api::Position::of(catan_api::Producer::Results, self.read_through)
                .to_string(),
        }
    }
}

/// A page of a change feed after `after`: the results of finished transactions (of one event, or
/// of every event), in the order their last change committed; the cursor of the last one;
/// whether committed changes wait behind a transaction still in flight; and how far it reads.
pub fn changes(
    conn: &mut PgConnection,
    event_id: Option<Uuid>,
    after: Cursor,
    limit: i64,
) -> Result<FeedPage, ApiError> {
    conn.build_transaction()
        .repeatable_read()
        .read_only()
        .run(|conn| changes_in_one_snapshot(conn, event_id, after, limit))
}

fn changes_in_one_snapshot(
    conn: &mut PgConnection,
    event_id: Option<Uuid>,
    after: Cursor,
    limit: i64,
) -> Result<FeedPage, ApiError> {
    let finished_below = || diesel::dsl::sql::<BigInt>(feed::FINISHED_BELOW);
    // (txid, seq) > after: the `txid >= after` half lets the index start at the cursor.
    let mut page = results::table
        .filter(results::txid.ge(after.txid))
        .filter(
            results::txid
                .gt(after.txid)
                .or(results::txid.eq(after.txid).and(results::seq.gt(after.seq))),
        )
        .filter(results::txid.lt(finished_below()))
        .order((results::txid, results::seq))
        .limit(limit)
        .select((results::txid, columns!(results)))
        .into_boxed();
    // Whether the newest change is of a transaction still in flight, by the index's last entry:
    // an `EXISTS` over `txid >= xmin` is planned as a scan of every result, found empty only at
    // its end.
    let mut newest = results::table
        .select(results::txid)
        .order(results::txid.desc())
        .into_boxed();
    if let Some(event_id) = event_id {
        page = page.filter(results::event_id.eq(event_id));
        newest = newest.filter(results::event_id.eq(event_id));
    }
    let rows: Vec<(i64, Row)> = page.load(conn)?;
    let next = rows.last().map_or(after, |(txid, row)| Cursor {
        txid: *txid,
        seq: row.6,
    });
    let newest: Option<i64> = newest.first(conn).optional()?;
    let in_flight_from: i64 = diesel::select(finished_below()).get_result(conn)?;
    let held_back = newest.is_some_and(|txid| txid >= in_flight_from);
    let full = i64::try_from(rows.len()).is_ok_and(|n| n >= limit);
    let txid = |t: i64| u64::try_from(t).unwrap_or_default();
    let read_through = feed::read_through(
        full,
        rows.last().map(|(last, _)| txid(*last)),
        txid(in_flight_from),
    );
    let items = annotated(conn, rows.into_iter().map(|(_, row)| row).collect())?;
    Ok(FeedPage {
        items,
        next,
        held_back,
        read_through,
    })
}
