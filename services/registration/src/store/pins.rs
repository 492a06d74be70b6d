//! A player's sign-in with his PIN for one event, checked against its digest. Wrong PINs are
//! limited per caller, not per player ([`catan_kit::client::ClientLimits::pin_attempt`]): a lock
//! of the player's sign-in would let anyone who knows his id (the entries are public) lock him out.

use crate::keys::pin_digest;
use crate::schema::registration::entry_players;
use catan_kit::ApiError;
use catan_kit::pin_key::PinKey;
use diesel::prelude::*;
use subtle::ConstantTimeEq;
use uuid::Uuid;

/// What a sign-in with a PIN came to.
#[derive(Debug, PartialEq, Eq)]
pub enum PinCheck {
    Good,
    Wrong,
}

/// Checks `pin` for the player in the event against its digest under `key`.
pub fn check(
    conn: &mut PgConnection,
    key: &PinKey,
    event_id: Uuid,
    player_id: Uuid,
    pin: &str,
) -> Result<PinCheck, ApiError> {
    let stored: Option<Option<Vec<u8>>> = entry_players::table
        .filter(entry_players::event_id.eq(event_id))
        .filter(entry_players::player_id.eq(player_id))
        .select(entry_players::pin_sha256)
        .first(conn)
        .optional()?;
    Ok(match stored.flatten() {
        Some(stored) if bool::from(pin_digest(key, event_id, player_id, pin).ct_eq(&stored)) => {
            PinCheck::Good
        }
        _ => PinCheck::Wrong,
    })
}
