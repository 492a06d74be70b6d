//! Entries into events, their players and their PINs.

use crate::keys::{new_pin, pin_digest};
use crate::schema::registration::{entries, entry_players, players};
use catan_api::{Entry, EntryStatus, PlayerPin};
use catan_kit::ApiError;
use catan_kit::db::{enum_from_text, enum_to_text};
use catan_kit::pin_key::PinKey;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use std::collections::HashMap;
use uuid::Uuid;

#[derive(Queryable, Selectable)]
#[diesel(table_name = entries)]
struct EntryRow {
    id: Uuid,
    event_id: Uuid,
    player_id: Option<Uuid>,
    team_name: Option<String>,
    status: String,
    status_reason: Option<String>,
    created_at: DateTime<Utc>,
}

/// The entries `rows` with their players, in the order given.
fn with_players(conn: &mut PgConnection, rows: Vec<EntryRow>) -> Result<Vec<Entry>, ApiError> {
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let members: Vec<(Uuid, Uuid, String)> = entry_players::table
        .inner_join(players::table)
        .filter(entry_players::entry_id.eq_any(&ids))
        .order((entry_players::entry_id, entry_players::position))
        .select((entry_players::entry_id, players::id, players::name))
        .load(conn)?;
    let mut by_entry: HashMap<Uuid, Vec<(Uuid, String)>> = HashMap::new();
    for (entry, player, name) in members {
        by_entry.entry(entry).or_default().push((player, name));
    }
    rows.into_iter()
        .map(|row| {
            let players = by_entry.remove(&row.id).unwrap_or_default();
            entry_from_row(row, players)
        })
        .collect()
}

/// An entry from its row and its players `(id, name)`, in their order.
fn entry_from_row(row: EntryRow, players: Vec<(Uuid, String)>) -> Result<Entry, ApiError> {
    let name = match (&row.team_name, players.first()) {
        (Some(team), _) => team.clone(),
        (None, Some((_, player))) => player.clone(),
        (None, None) => {
            return Err(ApiError::internal(format!(
                "entry {} has no players",
                row.id
            )));
        }
    };
    Ok(Entry {
        id: row.id,
        event_id: row.event_id,
        player_id: row.player_id,
        team_name: row.team_name,
        player_ids: players.into_iter().map(|(id, _)| id).collect(),
        name,
        status: enum_from_text::<EntryStatus>(&row.status)?,
        status_reason: row.status_reason,
        created_at: row.created_at,
        pins: None,
    })
}

/// The event's entry; 404 when the event has none of that id.
pub fn load(conn: &mut PgConnection, event_id: Uuid, entry_id: Uuid) -> Result<Entry, ApiError> {
    let row: Option<EntryRow> = entries::table
        .filter(entries::id.eq(entry_id))
        .filter(entries::event_id.eq(event_id))
        .select(EntryRow::as_select())
        .first(conn)
        .optional()?;
    let row = row
        .ok_or_else(|| ApiError::NotFound(format!("there is no entry {entry_id} in this event")))?;
    with_players(conn, vec![row])?
        .pop()
        .ok_or_else(|| ApiError::internal("entry vanished"))
}

/// A page of the event's entries, in the order they were made.
pub fn page(
    conn: &mut PgConnection,
    event_id: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<Entry>, ApiError> {
    let rows: Vec<EntryRow> = entries::table
        .filter(entries::event_id.eq(event_id))
        .order((entries::created_at, entries::id))
        .limit(limit)
        .offset(offset)
        .select(EntryRow::as_select())
        .load(conn)?;
    with_players(conn, rows)
}

/// The entries of `ids`, in no particular order (those that do not exist left out).
pub fn by_ids(conn: &mut PgConnection, ids: &[Uuid]) -> Result<Vec<Entry>, ApiError> {
    // The feed asks with no ids at every quiet poll: no statement for nothing.
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<EntryRow> = entries::table
        .filter(entries::id.eq_any(ids))
        .select(EntryRow::as_select())
        .load(conn)?;
    with_players(conn, rows)
}

/// The events in which both players have an entry, by id.
pub fn shared_events(conn: &mut PgConnection, one: Uuid, other: Uuid) -> QueryResult<Vec<Uuid>> {
    let events_of_one: Vec<Uuid> = entry_players::table
        .filter(entry_players::player_id.eq(one))
        .select(entry_players::event_id)
        .load(conn)?;
    entry_players::table
        .filter(entry_players::player_id.eq(other))
        .filter(entry_players::event_id.eq_any(events_of_one))
        .select(entry_players::event_id)
        .order(entry_players::event_id)
        .load(conn)
}

/// The first of `players` already entered in the event, if any.
pub fn first_entered(
    conn: &mut PgConnection,
    event_id: Uuid,
    players: &[Uuid],
) -> QueryResult<Option<Uuid>> {
    let entered: Vec<Uuid> = entry_players::table
        .filter(entry_players::event_id.eq(event_id))
        .filter(entry_players::player_id.eq_any(players))
        .select(entry_players::player_id)
        .load(conn)?;
    Ok(entered.first().copied())
}

/// Enters `members` (one player, or a team named `team_name`) into the event: the entry as
/// stored, with each player's new PIN (kept only as a digest).
pub fn insert(
    conn: &mut PgConnection,
    key: &PinKey,
    event_id: Uuid,
    team_name: Option<String>,
    members: &[Uuid],
) -> Result<Entry, ApiError> {
    let id = Uuid::new_v4();
    diesel::insert_into(entries::table)
        .values((
            entries::id.eq(id),
            entries::event_id.eq(event_id),
            entries::player_id.eq(if team_name.is_none() {
                members.first().copied()
            } else {
                None
            }),
            entries::team_name.eq(&team_name),
        ))
        .execute(conn)?;
    let mut pins = Vec::with_capacity(members.len());
    for (position, player) in members.iter().enumerate() {
        let pin = new_pin();
        diesel::insert_into(entry_players::table)
            .values((
                entry_players::event_id.eq(event_id),
                entry_players::entry_id.eq(id),
                entry_players::player_id.eq(player),
                entry_players::position.eq(i32::try_from(position).map_err(ApiError::internal)?),
                entry_players::pin_sha256.eq(pin_digest(key, event_id, *player, &pin)),
            ))
            .execute(conn)?;
        pins.push(PlayerPin {
            player_id: *player,
            pin,
        });
    }
    Ok(Entry {
        pins: Some(pins),
        ..load(conn, event_id, id)?
    })
}

/// Drops or excludes the event's entry if it is active: whether it changed.
pub fn end(
    conn: &mut PgConnection,
    event_id: Uuid,
    entry_id: Uuid,
    status: EntryStatus,
    reason: &str,
) -> QueryResult<bool> {
    let changed = diesel::update(
        entries::table
            .filter(entries::id.eq(entry_id))
            .filter(entries::event_id.eq(event_id)),
    )
    .filter(entries::status.eq("active"))
    .set((
        entries::status.eq(enum_to_text(&status)),
        entries::status_reason.eq(reason),
        entries::left_at.eq(diesel::dsl::now),
    ))
    .execute(conn)?;
    Ok(changed > 0)
}

/// When the event's entry left it, locked until the transaction ends (a drop or a second
/// reinstatement waits): `None` when it is active (an entry that left before the time was kept
/// left when it was made); 404 when the event has no such entry.
pub fn lock_left_at(
    conn: &mut PgConnection,
    event_id: Uuid,
    entry_id: Uuid,
) -> Result<Option<DateTime<Utc>>, ApiError> {
    let row: Option<(String, Option<DateTime<Utc>>, DateTime<Utc>)> = entries::table
        .filter(entries::id.eq(entry_id))
        .filter(entries::event_id.eq(event_id))
        .select((entries::status, entries::left_at, entries::created_at))
        .for_update()
        .first(conn)
        .optional()?;
    let (status, left_at, created_at) = row
        .ok_or_else(|| ApiError::NotFound(format!("there is no entry {entry_id} in this event")))?;
    Ok((status != "active").then(|| left_at.unwrap_or(created_at)))
}

/// Makes the event's dropped or excluded entry active again, its reason gone.
pub fn reinstate(conn: &mut PgConnection, event_id: Uuid, entry_id: Uuid) -> QueryResult<usize> {
    diesel::update(
        entries::table
            .filter(entries::id.eq(entry_id))
            .filter(entries::event_id.eq(event_id)),
    )
    .set((
        entries::status.eq("active"),
        entries::status_reason.eq(None::<String>),
        entries::left_at.eq(None::<DateTime<Utc>>),
    ))
    .execute(conn)
}

/// The events the player has an entry in.
pub fn events_of(conn: &mut PgConnection, player_id: Uuid) -> QueryResult<Vec<Uuid>> {
    entry_players::table
        .filter(entry_players::player_id.eq(player_id))
        .select(entry_players::event_id)
        .load(conn)
}

/// Gives the player a new PIN for the event, which replaces his old one at once (the old one
/// stops signing in with this commit); 404 when he has no entry in the event.
pub fn reissue_pin(
    conn: &mut PgConnection,
    key: &PinKey,
    event_id: Uuid,
    player_id: Uuid,
) -> Result<PlayerPin, ApiError> {
    let pin = new_pin();
    let changed = diesel::update(
        entry_players::table
            .filter(entry_players::event_id.eq(event_id))
            .filter(entry_players::player_id.eq(player_id)),
    )
    .set(entry_players::pin_sha256.eq(pin_digest(key, event_id, player_id, &pin)))
    .execute(conn)?;
    if changed == 0 {
        return Err(ApiError::NotFound(format!(
            "player {player_id} has no entry in this event"
        )));
    }
    Ok(PlayerPin { player_id, pin })
}
