//! API keys, stored as SHA-256 digests of their secrets.

use crate::schema::registration::api_keys;
use catan_api::Role;
use diesel::prelude::*;
use uuid::Uuid;

/// A key that may sign in: its id, role and the events it may act on.
pub type ActiveKey = (Uuid, String, Option<Vec<Uuid>>);

/// An active key as stored: a SQL array's elements may be NULL, a key's events never are.
type StoredKey = (Uuid, String, Option<Vec<Option<Uuid>>>);

/// The key whose secret has `digest`, unless it is revoked.
pub fn active_by_digest(
    conn: &mut PgConnection,
    digest: Vec<u8>,
) -> QueryResult<Option<ActiveKey>> {
    let key: Option<StoredKey> = api_keys::table
        .filter(api_keys::secret_sha256.eq(digest))
        .filter(api_keys::revoked_at.is_null())
        .select((api_keys::id, api_keys::role, api_keys::event_ids))
        .first(conn)
        .optional()?;
    Ok(key.map(|(id, role, events)| {
        (
            id,
            role,
            events.map(|ids| ids.into_iter().flatten().collect()),
        )
    }))
}

/// A key to store; its secret is only ever kept as `secret_sha256`.
pub struct NewApiKey {
    pub id: Uuid,
    pub name: String,
    pub role: Role,
    pub event_ids: Option<Vec<Uuid>>,
    pub secret_sha256: Vec<u8>,
}

pub fn insert(conn: &mut PgConnection, key: &NewApiKey) -> QueryResult<usize> {
    diesel::insert_into(api_keys::table)
        .values((
            api_keys::id.eq(key.id),
            api_keys::name.eq(&key.name),
            api_keys::role.eq(key.role.as_str()),
            api_keys::event_ids.eq(key
                .event_ids
                .as_ref()
                .map(|ids| ids.iter().copied().map(Some).collect::<Vec<_>>())),
            api_keys::secret_sha256.eq(&key.secret_sha256),
        ))
        .execute(conn)
}
