//! A player's sign-in with his PIN for one event: checked against its digest, with wrong tries
//! counted and the sign-in locked after too many in a row.

use crate::keys::pin_digest;
use crate::schema::registration::entry_players;
use catan_kit::ApiError;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

/// Wrong PINs in a row before a player's sign-in is locked, and for how long.
const PIN_ATTEMPTS: i32 = 5;
const PIN_LOCK_MINUTES: i64 = 15;

/// A player's stored PIN digest, wrong tries in a row, and lock.
type PinRow = (Option<Vec<u8>>, i32, Option<DateTime<Utc>>);

/// What a sign-in with a PIN came to.
#[derive(Debug, PartialEq, Eq)]
pub enum PinCheck {
    Good,
    Wrong,
    Locked { seconds: u64 },
}

/// After a wrong PIN that follows `failed` wrong ones: the wrong tries to remember and the lock,
/// if this one locks the sign-in (the count starts again after a lock).
fn after_wrong_pin(failed: i32, now: DateTime<Utc>) -> (i32, Option<DateTime<Utc>>) {
    let failed = failed.saturating_add(1);
    if failed >= PIN_ATTEMPTS {
        (0, Some(now + chrono::Duration::minutes(PIN_LOCK_MINUTES)))
    } else {
        (failed, None)
    }
}

/// Seconds left of a lock ending `until`, if it has not ended: at least one.
fn locked_for(until: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Option<u64> {
    let until = until.filter(|until| *until > now)?;
    Some(u64::try_from((until - now).num_seconds()).map_or(1, |seconds| seconds.max(1)))
}

/// Checks `pin` for the player in the event, counting a wrong one; call it in a transaction, so
/// that the count commits even though the answer is an error.
pub fn check(
    conn: &mut PgConnection,
    event_id: Uuid,
    player_id: Uuid,
    pin: &str,
) -> Result<PinCheck, ApiError> {
    let target = || {
        entry_players::table
            .filter(entry_players::event_id.eq(event_id))
            .filter(entry_players::player_id.eq(player_id))
    };
    let row: Option<PinRow> = target()
        .select((
            entry_players::pin_sha256,
            entry_players::failed_pin_attempts,
            entry_players::pin_locked_until,
        ))
        .for_update()
        .first(conn)
        .optional()?;
    let Some((Some(stored), failed, locked_until)) = row else {
        return Ok(PinCheck::Wrong);
    };
    let now = Utc::now();
    if let Some(seconds) = locked_for(locked_until, now) {
        return Ok(PinCheck::Locked { seconds });
    }
    let good = pin_digest(event_id, player_id, pin) == stored;
    let (failed, lock) = if good {
        (0, None)
    } else {
        after_wrong_pin(failed, now)
    };
    diesel::update(target())
        .set((
            entry_players::failed_pin_attempts.eq(failed),
            entry_players::pin_locked_until.eq(lock),
        ))
        .execute(conn)?;
    Ok(if good {
        PinCheck::Good
    } else {
        PinCheck::Wrong
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fifth_wrong_pin_in_a_row_locks_for_fifteen_minutes() {
        let now = Utc::now();
        assert_eq!(after_wrong_pin(0, now), (1, None));
        assert_eq!(after_wrong_pin(3, now), (4, None));
        assert_eq!(
            after_wrong_pin(4, now),
            (0, Some(now + chrono::Duration::minutes(15)))
        );
    }

    #[test]
    fn a_lock_counts_down_to_its_end() {
        let now = Utc::now();
        assert_eq!(locked_for(None, now), None);
        assert_eq!(
            locked_for(Some(now - chrono::Duration::seconds(1)), now),
            None
        );
        assert_eq!(locked_for(Some(now), now), None);
        assert_eq!(
            locked_for(Some(now + chrono::Duration::seconds(90)), now),
            Some(90)
        );
        assert_eq!(
            locked_for(Some(now + chrono::Duration::milliseconds(200)), now),
            Some(1)
        );
    }
}
