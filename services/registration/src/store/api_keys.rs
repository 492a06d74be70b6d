//! API keys, stored as SHA-256 digests of their secrets.

use crate::schema::registration::api_keys;
use catan_api::Role;
use diesel::prelude::*;
use uuid::Uuid;

/// A key that may sign in: its id, role, the events it may act on and the regions it runs.
pub type ActiveKey = (Uuid, String, Option<Vec<Uuid>>, Option<Vec<Uuid>>);

/// An active key as stored: a SQL array's elements may be NULL, a key's events never are.
type StoredKey = (
    Uuid,
    String,
    Option<Vec<Option<Uuid>>>,
    Option<Vec<Option<Uuid>>>,
);

/// The key whose secret has `digest`, unless it is revoked.
pub fn active_by_digest(
    conn: &mut PgConnection,
    digest: Vec<u8>,
) -> QueryResult<Option<ActiveKey>> {
    let key: Option<StoredKey> = api_keys::table
        .filter(api_keys::secret_sha256.eq(digest))
        .filter(api_keys::revoked_at.is_null())
        .select((
            api_keys::id,
            api_keys::role,
            api_keys::event_ids,
            api_keys::region_ids,
        ))
        .first(conn)
        .optional()?;
    Ok(key.map(|(id, role, events, regions)| (id, role, flat(events), flat(regions))))
}

/// A key to store; its secret is only ever kept as `secret_sha256`.
pub struct NewApiKey {
    pub id: Uuid,
    pub name: String,
    pub role: Role,
    pub event_ids: Option<Vec<Uuid>>,
    pub region_ids: Option<Vec<Uuid>>,
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
            api_keys::region_ids.eq(key
                .region_ids
                .as_ref()
                .map(|ids| ids.iter().copied().map(Some).collect::<Vec<_>>())),
            api_keys::secret_sha256.eq(&key.secret_sha256),
        ))
        .execute(conn)
}

/// A live key's role, the events it may act on and the regions it runs.
pub type KeyScope = (Role, Option<Vec<Uuid>>, Option<Vec<Uuid>>);

/// A key's role, events and regions as stored.
type StoredScope = (String, Option<Vec<Option<Uuid>>>, Option<Vec<Option<Uuid>>>);

/// The scope of the live key `id`, if it is one.
pub fn live_scope(conn: &mut PgConnection, id: Uuid) -> QueryResult<Option<KeyScope>> {
    let key: Option<StoredScope> = api_keys::table
        .filter(api_keys::id.eq(id))
        .filter(api_keys::revoked_at.is_null())
        .select((api_keys::role, api_keys::event_ids, api_keys::region_ids))
        .first(conn)
        .optional()?;
    Ok(key.and_then(|(role, events, regions)| {
        Some((Role::parse(&role)?, flat(events), flat(regions)))
    }))
}

/// A SQL array of ids, whose elements may be NULL (a key's never are).
fn flat(ids: Option<Vec<Option<Uuid>>>) -> Option<Vec<Uuid>> {
    ids.map(|ids| ids.into_iter().flatten().collect())
}

/// A key as listed: id, name, role, events, regions, made and revoked when.
type ListedKey = (
    Uuid,
    String,
    String,
    Option<Vec<Option<Uuid>>>,
    Option<Vec<Option<Uuid>>>,
    chrono::DateTime<chrono::Utc>,
    Option<chrono::DateTime<chrono::Utc>>,
);

/// A page of the keys, revoked ones included, the oldest first: every key, or with
/// `acting_on_any_of`, the director and scorer keys that name one of those events at least.
pub fn page(
    conn: &mut PgConnection,
    acting_on_any_of: Option<&[Uuid]>,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<catan_api::ListedApiKey>> {
    let mut query = api_keys::table.into_boxed();
    if let Some(events) = acting_on_any_of {
        let events: Vec<Option<Uuid>> = events.iter().copied().map(Some).collect();
        query = query
            .filter(api_keys::role.eq_any([Role::Director.as_str(), Role::Scorer.as_str()]))
            .filter(api_keys::event_ids.overlaps_with(events));
    }
    let rows: Vec<ListedKey> = query
        .order((api_keys::created_at.asc(), api_keys::id.asc()))
        .limit(limit)
        .offset(offset)
        .select((
            api_keys::id,
            api_keys::name,
            api_keys::role,
            api_keys::event_ids,
            api_keys::region_ids,
            api_keys::created_at,
            api_keys::revoked_at,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(
            |(id, name, role, events, regions, created_at, revoked_at)| {
                Some(catan_api::ListedApiKey {
                    id,
                    name,
                    role: Role::parse(&role)?,
                    event_ids: flat(events),
                    region_ids: flat(regions),
                    created_at,
                    revoked_at,
                })
            },
        )
        .collect())
}

/// What a revocation came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Revocation {
    Revoked,
    /// No live key of that id.
    Unknown,
    /// The configured admin key: it changes with the configuration only.
    Configured,
}

/// Revokes the key `id`, unless it is the configured admin key.
pub fn revoke(conn: &mut PgConnection, id: Uuid) -> QueryResult<Revocation> {
    let name: Option<String> = api_keys::table
        .filter(api_keys::id.eq(id))
        .filter(api_keys::revoked_at.is_null())
        .select(api_keys::name)
        .first(conn)
        .optional()?;
    match name.as_deref() {
        None => return Ok(Revocation::Unknown),
        Some(crate::admin_key::CONFIGURED_NAME) => return Ok(Revocation::Configured),
        Some(_) => {}
    }
    let revoked = diesel::update(
        api_keys::table
            .filter(api_keys::id.eq(id))
            .filter(api_keys::revoked_at.is_null()),
    )
    .set(api_keys::revoked_at.eq(diesel::dsl::now))
    .execute(conn)?;
    Ok(if revoked > 0 {
        Revocation::Revoked
    } else {
        Revocation::Unknown
    })
}

/// The keys revoked since `since`: tokens of keys revoked earlier have all expired.
pub fn revoked_since(
    conn: &mut PgConnection,
    since: chrono::DateTime<chrono::Utc>,
) -> QueryResult<Vec<Uuid>> {
    api_keys::table
        .filter(api_keys::revoked_at.gt(since))
        .select(api_keys::id)
        .load(conn)
}
