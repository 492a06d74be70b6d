//! What a stale mark does not include yet, so that a read can tell whether a write is in what it
//! serves (`Catan-Position`, see `crate::progress`).
//!
//! Every mark (an event's views, a season's table, the ratings) keeps, for each producer, a lower
//! bound of the transactions of the changes it still waits for: `NULL` when it waits for none of
//! that producer's. A mark made again keeps the lowest bound (`least` ignores `NULL`); a
//! computation that could not clear its mark (a change came meanwhile) raises the bounds to just
//! past what it read, since it included everything up to there.

use catan_api::{Position, Producer};
use catan_kit::ApiError;
use diesel::prelude::*;
use diesel::sql_types::BigInt;

/// For each producer, the lowest transaction of a change a mark does not include yet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pending {
    pub registration: Option<i64>,
    pub results: Option<i64>,
    pub ranking: Option<i64>,
}

impl Pending {
    /// Changes of `producer` from transaction `from` on.
    pub fn from(producer: Producer, from: i64) -> Pending {
        let mut pending = Pending::default();
        match producer {
            Producer::Registration => pending.registration = Some(from),
            Producer::Results => pending.results = Some(from),
            Producer::Ranking => pending.ranking = Some(from),
        }
        pending
    }

    /// The changes of ranking's own transaction in flight on `conn` (a season's write).
    pub fn own_write(conn: &mut PgConnection) -> Result<Pending, ApiError> {
        let txid: i64 = diesel::select(diesel::dsl::sql::<BigInt>(
            catan_kit::feed::WRITING_TRANSACTION,
        ))
        .get_result(conn)?;
        Ok(Pending::from(Producer::Ranking, txid))
    }

    /// Whether a read that must include `position` waits for this mark.
    pub fn holds_back(&self, position: &Position) -> bool {
        let waits = |bound: Option<i64>, wanted: u64| {
            wanted > 0 && bound.is_some_and(|b| u64::try_from(b).map_or(true, |b| b <= wanted))
        };
        waits(self.registration, position.registration)
            || waits(self.results, position.results)
            || waits(self.ranking, position.ranking)
    }
}

/// SQL that sets a mark's bounds on conflict: the lowest of the kept and the new (`table` the
/// marks' table, the new ones `excluded`).
pub fn least_sql(table: &str, producers: &[&str]) -> String {
    producers
        .iter()
        .map(|p| format!("pending_{p} = least({table}.pending_{p}, excluded.pending_{p})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// SQL that raises a mark's bounds past `$n`, `$n+1`, ... (one a producer, in `producers`' order)
/// where it has one: a computation that read everything up to those included it.
pub fn raise_sql(producers: &[&str], first_param: usize) -> String {
    producers
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let n = first_param + i;
            format!(
                "pending_{p} = CASE WHEN pending_{p} IS NULL THEN NULL \
                 ELSE greatest(pending_{p}, ${n}::bigint + 1) END"
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// How far a computation read: for each producer, the last transaction whose changes it
/// includes (ranking's own, for a season's table).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadThrough {
    pub registration: i64,
    pub results: i64,
    pub ranking: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(registration: u64, results: u64, ranking: u64) -> Position {
        Position {
            registration,
            results,
            ranking,
        }
    }

    #[test]
    fn a_mark_holds_back_only_the_writes_at_or_past_its_bound() {
        let mark = Pending {
            registration: None,
            results: Some(100),
            ranking: None,
        };
        // A write of results before the first change the mark waits for is in what it serves.
        assert!(!mark.holds_back(&position(0, 99, 0)));
        assert!(mark.holds_back(&position(0, 100, 0)));
        assert!(mark.holds_back(&position(0, 250, 0)));
        // The mark waits for no registration change, however recent.
        assert!(!mark.holds_back(&position(5_000, 0, 0)));
        assert!(!mark.holds_back(&Position::default()));
    }
}
