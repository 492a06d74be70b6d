//! The server secret players' PIN digests are keyed with (`CATAN_PIN_KEY`): a PIN has about 39
//! bits, so an unkeyed digest of it falls to a search of every PIN; keyed with HMAC-SHA256 under a
//! secret kept outside the database, a copy of the database alone gives nothing to search with.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{KeyInit, Mac};
use secrecy::{ExposeSecret, SecretSlice, SecretString};
use std::sync::Arc;
use uuid::Uuid;

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The fewest characters a configured `CATAN_PIN_KEY` may have.
pub const MIN_PIN_KEY_LENGTH: usize = 32;

/// The key PIN digests are made with. Never printed.
#[derive(Clone)]
pub struct PinKey(Arc<SecretSlice<u8>>);

impl std::fmt::Debug for PinKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PinKey(..)")
    }
}

impl PinKey {
    pub fn from_bytes(bytes: Vec<u8>) -> PinKey {
        PinKey(Arc::new(SecretSlice::from(bytes)))
    }

    /// The key a configured secret stands for (its bytes as they are).
    pub fn from_secret(secret: &SecretString) -> PinKey {
        PinKey::from_bytes(secret.expose_secret().as_bytes().to_vec())
    }

    /// A new secret to configure: `cpk_` and 32 bytes from the CSPRNG, in base64url.
    pub fn new_secret() -> SecretString {
        SecretString::from(format!(
            "cpk_{}",
            URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>())
        ))
    }

    /// The digest of the player's `pin` for the event: HMAC-SHA256 under the key of the event's
    /// and the player's ids and the PIN as typed, trimmed and in upper case.
    pub fn digest(&self, event_id: Uuid, player_id: Uuid, pin: &str) -> Vec<u8> {
        let mut mac = <HmacSha256 as KeyInit>::new_from_slice(self.0.expose_secret())
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(event_id.as_bytes());
        mac.update(player_id.as_bytes());
        mac.update(pin.trim().to_ascii_uppercase().as_bytes());
        mac.finalize().into_bytes().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_depend_on_the_key_the_event_the_player_and_the_pin() {
        let (event, player) = (Uuid::new_v4(), Uuid::new_v4());
        let one = PinKey::from_bytes(b"one key of at least thirty-two bytes".to_vec());
        let other = PinKey::from_bytes(b"another key of thirty-two bytes!".to_vec());
        let digest = one.digest(event, player, "ABCD2345");
        assert_eq!(digest.len(), 32);
        assert_eq!(digest, one.digest(event, player, " abcd2345 "), "as typed");
        assert_ne!(digest, other.digest(event, player, "ABCD2345"));
        assert_ne!(digest, one.digest(Uuid::new_v4(), player, "ABCD2345"));
        assert_ne!(digest, one.digest(event, Uuid::new_v4(), "ABCD2345"));
        assert_ne!(digest, one.digest(event, player, "ABCD2346"));
        // Not the unkeyed SHA-256 the digests were before.
        use sha2::Digest;
        let unkeyed = sha2::Sha256::new()
            .chain_update(event.as_bytes())
            .chain_update(player.as_bytes())
            .chain_update(b"ABCD2345")
            .finalize()
            .to_vec();
        assert_ne!(digest, unkeyed);
    }

    #[test]
    fn new_secrets_are_long_enough_and_never_printed() {
        let secret = PinKey::new_secret();
        assert!(secret.expose_secret().len() >= MIN_PIN_KEY_LENGTH);
        assert_ne!(secret.expose_secret(), PinKey::new_secret().expose_secret());
        let key = PinKey::from_secret(&secret);
        assert_eq!(format!("{key:?}"), "PinKey(..)");
    }
}
