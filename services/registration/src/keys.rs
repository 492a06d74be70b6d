//! API keys (stored as SHA-256 digests, never in clear) and the token signing key.

use crate::schema::{api_keys, signing_keys};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use catan_kit::auth::SigningKey;
use diesel::prelude::*;
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// A new secret: `ck_` and 32 random bytes.
pub fn new_secret() -> String {
    let bytes: [u8; 32] = rand::random();
    format!("ck_{}", URL_SAFE_NO_PAD.encode(bytes))
}

pub fn digest(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

/// The key tokens are signed with: the newest stored one, or a new one. Replicas starting together
/// all end up with the same key (the insert that loses the race changes nothing).
pub fn current_signing_key(conn: &mut PgConnection) -> anyhow::Result<SigningKey> {
    let newest = |conn: &mut PgConnection| -> QueryResult<Option<Vec<u8>>> {
        signing_keys::table
            .select(signing_keys::seed)
            .order((signing_keys::created_at.desc(), signing_keys::kid))
            .first::<Vec<u8>>(conn)
            .optional()
    };
    let seed = match newest(conn)? {
        Some(seed) => seed,
        None => {
            let key = SigningKey::generate();
            diesel::insert_into(signing_keys::table)
                .values((
                    signing_keys::kid.eq(&key.kid),
                    signing_keys::seed.eq(key.seed().to_vec()),
                ))
                .on_conflict_do_nothing()
                .execute(conn)?;
            newest(conn)?.ok_or_else(|| anyhow::anyhow!("signing key vanished"))?
        }
    };
    let seed: [u8; 32] = seed
        .try_into()
        .map_err(|_| anyhow::anyhow!("stored signing key is not 32 bytes"))?;
    Ok(SigningKey::from_seed(seed))
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
