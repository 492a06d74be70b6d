//! Change feeds that never skip a change that commits late.
//!
//! Each change carries the id of the transaction that wrote it. A reader reads only the changes of
//! transactions below the oldest one still in flight (`pg_snapshot_xmin`): every transaction
//! below it has finished, and every later one gets a larger id, so a cursor of (transaction id,
//! change number) never passes a change that is still to commit, however writers interleave.

use crate::ApiError;
use crate::problem::ErrorCode;
use std::fmt;

/// SQL for the id of the oldest transaction still in flight: changes below it are final.
pub const FINISHED_BELOW: &str = "pg_snapshot_xmin(pg_current_snapshot())::text::bigint";

/// SQL for the writing transaction's id, as a `bigint` column's default or a trigger's value.
pub const WRITING_TRANSACTION: &str = "pg_current_xact_id()::text::bigint";

/// A position in a feed: the last change read, as (transaction id, change number).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cursor {
    pub txid: i64,
    pub seq: i64,
}

impl Cursor {
    /// The cursor a client sent as `field`: empty for the beginning, else `<txid>.<seq>` as a
    /// page's `next` gave it.
    pub fn parse(field: &str, text: &str) -> Result<Cursor, ApiError> {
        if text.is_empty() {
            return Ok(Cursor::default());
        }
        let parsed = text
            .split_once('.')
            .and_then(|(txid, seq)| Some((txid.parse().ok()?, seq.parse().ok()?)));
        match parsed {
            Some((txid, seq)) if txid >= 0 && seq >= 0 => Ok(Cursor { txid, seq }),
            _ => Err(ApiError::field(
                field,
                ErrorCode::InvalidCursor,
                format!("{field} must be empty or a `next` of an earlier page"),
            )),
        }
    }
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Cursor::default() {
            return Ok(());
        }
        write!(f, "{}.{}", self.txid, self.seq)
    }
}

/// The last transaction a page of a feed completes (its `position`): for a full page, the one
/// before its last change's, which may have more changes on the next page; for any other, the
/// one before the oldest still in flight, since the page read every change below it.
pub fn read_through(full: bool, last_txid: Option<u64>, in_flight_from: u64) -> u64 {
    match (full, last_txid) {
        (true, Some(last)) => last.saturating_sub(1),
        _ => in_flight_from.saturating_sub(1),
    }
}

/// A feed page's size: `limit` when given, clamped to 1 to 1000; 500 when not.
pub fn page_size(limit: Option<i64>) -> i64 {
    limit.unwrap_or(500).clamp(1, 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_completes_the_transactions_it_read_whole() {
        // A full page may end inside its last transaction.
        assert_eq!(read_through(true, Some(90), 120), 89);
        // Any other read every change below the oldest transaction still in flight.
        assert_eq!(read_through(false, Some(90), 120), 119);
        assert_eq!(read_through(false, None, 120), 119);
    }

    #[test]
    fn a_cursor_reads_back_what_it_writes_and_refuses_anything_else() {
        let cursor = Cursor { txid: 812, seq: 40 };
        assert_eq!(
            Cursor::parse("after", &cursor.to_string()).ok(),
            Some(cursor)
        );
        assert_eq!(Cursor::parse("after", "").ok(), Some(Cursor::default()));
        assert_eq!(Cursor::default().to_string(), "");
        for bad in ["812", "a.b", "-1.3", "1.2.3", " 1.2"] {
            assert!(Cursor::parse("after", bad).is_err(), "{bad}");
        }
    }
}
