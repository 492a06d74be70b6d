//! The configured admin key (`CATAN_ADMIN_KEY`): strong enough, and the only configured one that
//! works. When the configuration changes, the key configured before is revoked at start-up.

use crate::keys::digest;
use crate::schema::registration::api_keys;
use diesel::prelude::*;
use uuid::Uuid;

/// The name the configured admin key is stored under.
pub const CONFIGURED_NAME: &str = "admin (CATAN_ADMIN_KEY)";

/// Revokes every key configured before that is not `configured`, and takes back a revocation of
/// `configured` itself (an admin key configured again is the admin key): the ids revoked.
pub fn revoke_replaced(conn: &mut PgConnection, configured: &str) -> QueryResult<Vec<Uuid>> {
    let current = digest(configured);
    conn.transaction(|conn| {
        let revoked = diesel::update(
            api_keys::table
                .filter(api_keys::name.eq(CONFIGURED_NAME))
                .filter(api_keys::secret_sha256.ne(&current))
                .filter(api_keys::revoked_at.is_null()),
        )
        .set(api_keys::revoked_at.eq(diesel::dsl::now))
        .returning(api_keys::id)
        .get_results(conn)?;
        diesel::update(
            api_keys::table
                .filter(api_keys::name.eq(CONFIGURED_NAME))
                .filter(api_keys::secret_sha256.eq(&current)),
        )
        .set(api_keys::revoked_at.eq(None::<chrono::DateTime<chrono::Utc>>))
        .execute(conn)?;
        Ok(revoked)
    })
}
