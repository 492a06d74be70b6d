//! API keys (stored as SHA-256 digests, never in clear) and the token signing keys.

use crate::schema::registration::{api_keys, pin_key, signing_keys};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use catan_kit::auth::SigningKey;
use catan_kit::pin_key::PinKey;
use catan_kit::settings::SecretString;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use sha2::{Digest, Sha256};
use std::sync::{PoisonError, RwLock};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// A new secret: `ck_` and 32 random bytes.
pub fn new_secret() -> String {
    let bytes: [u8; 32] = rand::random();
    format!("ck_{}", URL_SAFE_NO_PAD.encode(bytes))
}

pub fn digest(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

/// The characters a PIN is made of: digits and capitals, without those read as one another
/// (0/O, 1/I/L) and without lower case (l and 1, o and 0). A PIN is read in upper case, so a
/// player may type it in either.
pub const PIN_ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
/// How many characters a PIN has: 31^8, about 8.5e11 PINs (39 bits).
pub const PIN_LENGTH: usize = 8;

/// A player's PIN for one event: [`PIN_LENGTH`] characters of [`PIN_ALPHABET`], each drawn
/// from the thread's CSPRNG (ChaCha, seeded from the operating system).
pub fn new_pin() -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    (0..PIN_LENGTH)
        .map(|_| char::from(PIN_ALPHABET[rng.random_range(0..PIN_ALPHABET.len())]))
        .collect()
}

/// A PIN's digest: HMAC-SHA256 under the server's PIN key, of the event, the player (so equal
/// PINs do not look equal) and the PIN as typed, in upper case.
pub fn pin_digest(key: &PinKey, event_id: Uuid, player_id: Uuid, pin: &str) -> Vec<u8> {
    key.digest(event_id, player_id, pin)
}

/// The key PIN digests are made with: `CATAN_PIN_KEY` when configured; else the one kept in the
/// database, made at the first start (every replica reads the same one).
pub fn open_pin_key(
    conn: &mut PgConnection,
    configured: Option<&SecretString>,
) -> anyhow::Result<PinKey> {
    if let Some(secret) = configured {
        return Ok(PinKey::from_secret(secret));
    }
    tracing::warn!(
        "CATAN_PIN_KEY is not set: PIN digests are keyed with a key kept in the database, beside \
         them; configure one (at least 32 characters) outside it"
    );
    diesel::insert_into(pin_key::table)
        .values(pin_key::secret.eq(rand::random::<[u8; 32]>().to_vec()))
        .on_conflict_do_nothing()
        .execute(conn)?;
    let secret: Vec<u8> = pin_key::table.select(pin_key::secret).first(conn)?;
    Ok(PinKey::from_bytes(secret))
}

/// The token signing keys: the newest signs; every key that signed within the last token
/// lifetime is still published, so tokens signed before a rotation stay valid until they expire.
/// Read from the database (every replica sees the same keys) and cached for a few seconds.
pub struct KeyRing {
    pool: catan_kit::db::PgPool,
    token_ttl: Duration,
    cache: RwLock<Option<(Instant, Vec<StoredKey>)>>,
}

#[derive(Clone)]
struct StoredKey {
    key: SigningKey,
    created_at: DateTime<Utc>,
}

/// How long a replica trusts its cached keys before reading them again.
const KEY_CACHE: Duration = Duration::from_secs(5);

impl KeyRing {
    /// The key ring, with a first key made if there is none. Replicas starting together all end
    /// up with the same first key (the insert that loses the race changes nothing).
    pub fn open(pool: catan_kit::db::PgPool, token_ttl: Duration) -> anyhow::Result<KeyRing> {
        let mut conn = pool.get()?;
        let count: i64 = signing_keys::table.count().get_result(&mut conn)?;
        if count == 0 {
            insert_key(&mut conn, &SigningKey::generate(), true)?;
        }
        let ring = KeyRing {
            pool,
            token_ttl,
            cache: RwLock::new(None),
        };
        ring.keys()?;
        Ok(ring)
    }

    /// The cached keys, unless they are older than [`KEY_CACHE`].
    fn cached(&self) -> Option<Vec<StoredKey>> {
        match &*self.cache.read().unwrap_or_else(PoisonError::into_inner) {
            Some((read_at, keys)) if read_at.elapsed() < KEY_CACHE => Some(keys.clone()),
            _ => None,
        }
    }

    /// Newest first (blocking: reads the database when the cache is stale).
    fn keys(&self) -> anyhow::Result<Vec<StoredKey>> {
        if let Some(keys) = self.cached() {
            return Ok(keys);
        }
        let mut conn = self.pool.get()?;
        let rows: Vec<(Vec<u8>, DateTime<Utc>)> = signing_keys::table
            .select((signing_keys::seed, signing_keys::created_at))
            .order((signing_keys::created_at.desc(), signing_keys::kid))
            .load(&mut conn)?;
        let keys = rows
            .into_iter()
            .map(|(seed, created_at)| {
                let seed: [u8; 32] = seed
                    .try_into()
                    .map_err(|_| anyhow::anyhow!("a stored signing key is not 32 bytes"))?;
                Ok(StoredKey {
                    key: SigningKey::from_seed(seed),
                    created_at,
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        *self.cache.write().unwrap_or_else(PoisonError::into_inner) =
            Some((Instant::now(), keys.clone()));
        Ok(keys)
    }

    /// The key new tokens are signed with.
    pub fn current(&self) -> anyhow::Result<SigningKey> {
        self.keys()?
            .into_iter()
            .next()
            .map(|k| k.key)
            .ok_or_else(|| anyhow::anyhow!("no signing key"))
    }

    /// The public keys tokens may be verified with: the current key, and each older key whose
    /// successor came less than a token lifetime ago (its tokens may still be valid).
    pub fn published(&self) -> anyhow::Result<Vec<jsonwebtoken::jwk::Jwk>> {
        let keys = self.keys()?;
        let horizon =
            Utc::now() - chrono::Duration::from_std(self.token_ttl)? - chrono::Duration::minutes(1);
        Ok(keys
            .iter()
            .enumerate()
            .filter(|(i, _)| *i == 0 || keys[i - 1].created_at > horizon)
            .map(|(_, k)| k.key.jwk())
            .collect())
    }

    /// The published keys as the database has them now, for verifying a token whose key this
    /// replica has not seen yet.
    pub fn published_now(&self) -> anyhow::Result<Vec<jsonwebtoken::jwk::Jwk>> {
        *self.cache.write().unwrap_or_else(PoisonError::into_inner) = None;
        self.published()
    }

    /// Makes a new key the current one, in the caller's transaction (`conn`; then
    /// [`KeyRing::forget_cached`]); the old one stays published until its tokens expire.
    pub fn rotate(conn: &mut PgConnection) -> anyhow::Result<SigningKey> {
        let key = SigningKey::generate();
        insert_key(conn, &key, false)?;
        Ok(key)
    }

    /// Retires the key `kid` in the caller's transaction (`conn`; then
    /// [`KeyRing::forget_cached`]): it leaves the JWKS, so its tokens stop verifying everywhere
    /// at each verifier's next refresh. The current key is never retired (rotate first): a key
    /// never becomes current again once another was made after it, so the check cannot race a
    /// rotation.
    pub fn retire(conn: &mut PgConnection, kid: &str) -> anyhow::Result<Retirement> {
        let current: String = signing_keys::table
            .select(signing_keys::kid)
            .order((signing_keys::created_at.desc(), signing_keys::kid))
            .first(conn)?;
        if current == kid {
            return Ok(Retirement::Current);
        }
        let removed = diesel::delete(signing_keys::table.find(kid)).execute(conn)?;
        Ok(if removed == 0 {
            Retirement::Unknown
        } else {
            Retirement::Retired
        })
    }

    /// Reads the keys again at the next use: a rotation or retirement committed.
    pub fn forget_cached(&self) {
        *self.cache.write().unwrap_or_else(PoisonError::into_inner) = None;
    }
}

/// What [`KeyRing::retire`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retirement {
    Retired,
    /// The key signs new tokens; it may be retired once another is current.
    Current,
    Unknown,
}

fn insert_key(
    conn: &mut PgConnection,
    key: &SigningKey,
    only_if_first: bool,
) -> QueryResult<usize> {
    let insert = diesel::insert_into(signing_keys::table).values((
        signing_keys::kid.eq(&key.kid),
        signing_keys::seed.eq(key.seed().to_vec()),
    ));
    if only_if_first {
        insert.on_conflict_do_nothing().execute(conn)
    } else {
        insert.execute(conn)
    }
}

/// Makes sure an admin key exists: `configured` when given, else a generated one printed once.
pub fn ensure_admin_key(conn: &mut PgConnection, configured: Option<&str>) -> anyhow::Result<()> {
    if let Some(secret) = configured {
        diesel::insert_into(api_keys::table)
            .values((
                api_keys::id.eq(Uuid::new_v4()),
                api_keys::name.eq("admin (CATAN_ADMIN_KEY)"),
                api_keys::role.eq("admin"),
                api_keys::secret_sha256.eq(digest(secret)),
            ))
            .on_conflict(api_keys::secret_sha256)
            .do_nothing()
            .execute(conn)?;
        return Ok(());
    }
    let admins: i64 = api_keys::table
        .filter(api_keys::role.eq("admin"))
        .filter(api_keys::revoked_at.is_null())
        .count()
        .get_result(conn)?;
    if admins == 0 {
        let secret = new_secret();
        diesel::insert_into(api_keys::table)
            .values((
                api_keys::id.eq(Uuid::new_v4()),
                api_keys::name.eq("admin (generated)"),
                api_keys::role.eq("admin"),
                api_keys::secret_sha256.eq(digest(&secret)),
            ))
            .execute(conn)?;
        // Printed once, on the first start; only its digest is stored.
        println!("\n  Admin API key (shown once, store it now): {secret}\n");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_have_eight_characters_of_an_unambiguous_alphabet() {
        for confusable in b"0O1IlLo" {
            assert!(
                !PIN_ALPHABET.contains(confusable),
                "{}",
                char::from(*confusable)
            );
        }
        assert_eq!(PIN_ALPHABET.len(), 31);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..2000 {
            let pin = new_pin();
            assert_eq!(pin.len(), 8);
            assert!(pin.bytes().all(|c| PIN_ALPHABET.contains(&c)), "{pin}");
            seen.extend(pin.bytes());
            assert!(seen.len() <= PIN_ALPHABET.len());
        }
        // 16,000 draws from 31 characters use every one of them.
        assert_eq!(seen.len(), PIN_ALPHABET.len());
    }

    #[test]
    fn the_contract_s_pin_patterns_are_this_alphabet() {
        use utoipa::PartialSchema;
        let pattern = |schema: utoipa::openapi::RefOr<utoipa::openapi::Schema>| {
            let schema = serde_json::to_value(schema).unwrap();
            schema["properties"]["pin"]["pattern"].clone()
        };
        let upper = std::str::from_utf8(PIN_ALPHABET).unwrap();
        let lower: String = upper
            .chars()
            .filter(char::is_ascii_uppercase)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        assert_eq!(
            pattern(catan_api::PlayerPin::schema()),
            format!("^[{upper}]{{{PIN_LENGTH}}}$"),
            "the PINs given"
        );
        assert_eq!(
            pattern(catan_api::PlayerTokenRequest::schema()),
            format!("^[{upper}{lower}]{{{PIN_LENGTH}}}$"),
            "the PINs taken, in either case"
        );
    }
}
