//! A player's sign-in with his PIN for one event, checked against its digest, and every PIN of
//! an event reissued at once. Wrong PINs are counted per player and caller address, in memory
//! ([`catan_kit::client::ClientLimits::pin_attempt`]), never as a lock of the player's entry: a
//! lock would let anyone who knows his id (the entries are public) lock him out everywhere.

use crate::keys::{new_pin, pin_digest};
use crate::schema::registration::{entries, entry_players};
use catan_api::PlayerPin;
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

/// Gives every player entered in the event (whatever his entry's status) a new PIN, in the
/// order the entries were made: every old PIN stops signing in with this commit.
pub fn reissue_all(
    conn: &mut PgConnection,
    key: &PinKey,
    event_id: Uuid,
) -> Result<Vec<PlayerPin>, ApiError> {
    let players: Vec<Uuid> = entry_players::table
        .inner_join(entries::table)
        .filter(entry_players::event_id.eq(event_id))
        .order((entries::created_at, entries::id, entry_players::position))
        .select(entry_players::player_id)
        .load(conn)?;
    let mut pins = Vec::with_capacity(players.len());
    for player_id in players {
        let pin = new_pin();
        diesel::update(
            entry_players::table
                .filter(entry_players::event_id.eq(event_id))
                .filter(entry_players::player_id.eq(player_id)),
        )
        .set(entry_players::pin_sha256.eq(pin_digest(key, event_id, player_id, &pin)))
        .execute(conn)?;
        pins.push(PlayerPin { player_id, pin });
    }
    Ok(pins)
}
