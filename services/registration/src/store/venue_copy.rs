//! A venue's copy of an event (issue 34): the records the suite has under the copy's ids, and
//! the records it lacks stored under those ids. The change feed's triggers see these inserts as
//! any other, so ranking copies the event, its players and entries as it does every write.

use super::{entries, events, people};
use crate::schema::registration::{
    entries as entries_table, entry_players, events as events_table, players,
};
use catan_api::{CopyCounts, EntryCopy, EventCopy, EventFormat, PlayerCopy, VenueCopy};
use catan_domain::venue_copy::{CopyDifference, CopyRecord};
use catan_kit::ApiError;
use catan_kit::db::enum_to_text;
use diesel::prelude::*;
use std::collections::HashSet;
use uuid::Uuid;

/// The suite's records of the ids the copy names (those it has), written as the copy's are.
pub fn ours(conn: &mut PgConnection, copy: &VenueCopy) -> Result<Vec<CopyRecord>, ApiError> {
    let mut records = Vec::new();
    for region in &copy.regions {
        if let Some(ours) = people::find_region(conn, region.id)? {
            records.push(VenueCopy::region_record(&ours));
        }
    }
    if let Some(event) = events::by_ids(conn, &[copy.event.id])?.first() {
        records.push(VenueCopy::event_record(&EventCopy::from(event)));
    }
    let player_ids: Vec<Uuid> = copy.players.iter().map(|p| p.id).collect();
    for player in people::players_by_ids(conn, &player_ids)? {
        records.push(VenueCopy::player_record(&PlayerCopy::from(&player)));
    }
    let entry_ids: Vec<Uuid> = copy.entries.iter().map(|e| e.id).collect();
    for entry in entries::by_ids(conn, &entry_ids)? {
        records.push(VenueCopy::entry_record(
            entry.event_id,
            &EntryCopy::from(&entry),
        ));
    }
    Ok(records)
}

/// The entries to create whose players the suite has entered in the event already, under
/// another entry (a late entry made at the venue): each a difference on its `player_ids`.
pub fn entered_otherwise(
    conn: &mut PgConnection,
    copy: &VenueCopy,
    create: &HashSet<String>,
) -> Result<Vec<CopyDifference>, ApiError> {
    let mut differences = Vec::new();
    for entry in &copy.entries {
        let record = VenueCopy::entry_record(copy.event.id, entry);
        if !create.contains(&record.key) {
            continue;
        }
        if let Some(player) = entries::first_entered(conn, copy.event.id, &entry.player_ids)? {
            differences.push(CopyDifference {
                field: "player_ids",
                ours: Some(format!("player {player} is entered in another entry")),
                theirs: serde_json::to_string(&entry.player_ids).ok(),
                record: record.key,
            });
        }
    }
    Ok(differences)
}

/// The regions to create whose names the suite gives another region already (names are
/// unique): each a difference on its `name`.
pub fn named_otherwise(
    conn: &mut PgConnection,
    copy: &VenueCopy,
    create: &HashSet<String>,
) -> Result<Vec<CopyDifference>, ApiError> {
    use crate::schema::registration::regions;
    let mut differences = Vec::new();
    for region in &copy.regions {
        let record = VenueCopy::region_record(region);
        if !create.contains(&record.key) {
            continue;
        }
        let holder: Option<Uuid> = regions::table
            .filter(regions::name.eq(&region.name))
            .select(regions::id)
            .first(conn)
            .optional()?;
        if let Some(holder) = holder {
            differences.push(CopyDifference {
                field: "name",
                ours: Some(format!("the name of region {holder}")),
                theirs: serde_json::to_string(&region.name).ok(),
                record: record.key,
            });
        }
    }
    Ok(differences)
}

/// Stores the copy's records whose keys are in `create`, under their ids, each once (a copy
/// may name a record twice alike): the counts created.
pub fn insert(
    conn: &mut PgConnection,
    copy: &VenueCopy,
    mut create: HashSet<String>,
) -> Result<CopyCounts, ApiError> {
    let mut created = CopyCounts::default();
    let mut wanted = |record: CopyRecord, count: &mut u32| {
        let wanted = create.remove(&record.key);
        *count += u32::from(wanted);
        wanted
    };
    for region in &copy.regions {
        if wanted(VenueCopy::region_record(region), &mut created.regions) {
            people::insert_region(conn, region)?;
        }
    }
    for player in &copy.players {
        if wanted(VenueCopy::player_record(player), &mut created.players) {
            insert_player(conn, player)?;
        }
    }
    if wanted(VenueCopy::event_record(&copy.event), &mut created.events) {
        insert_event(conn, &copy.event)?;
    }
    for entry in &copy.entries {
        let record = VenueCopy::entry_record(copy.event.id, entry);
        if wanted(record, &mut created.entries) {
            insert_entry(conn, copy.event.id, entry)?;
        }
    }
    Ok(created)
}

fn insert_player(conn: &mut PgConnection, player: &PlayerCopy) -> QueryResult<usize> {
    diesel::insert_into(players::table)
        .values((
            players::id.eq(player.id),
            players::name.eq(&player.name),
            players::region_id.eq(player.region_id),
            players::created_at.eq(player.created_at),
        ))
        .execute(conn)
}

fn insert_event(conn: &mut PgConnection, event: &EventCopy) -> Result<usize, ApiError> {
    let partner_rules = event
        .partner_rules
        .as_ref()
        .map(serde_json::to_value)
        .transpose()
        .map_err(ApiError::internal)?;
    // A partner event's minutes are its rules'; a classic event keeps its own.
    let minutes_per_game = match event.format {
        EventFormat::Classic => event
            .minutes_per_game
            .map(i32::try_from)
            .transpose()
            .map_err(ApiError::internal)?,
        EventFormat::Partner => None,
    };
    let qualifying_rounds = i32::try_from(event.qualifying_rounds).map_err(ApiError::internal)?;
    Ok(diesel::insert_into(events_table::table)
        .values((
            events_table::id.eq(event.id),
            events_table::name.eq(&event.name),
            events_table::region_id.eq(event.region_id),
            events_table::format.eq(enum_to_text(&event.format)),
            events_table::starts_on.eq(event.starts_on),
            events_table::ends_on.eq(event.ends_on),
            events_table::venue.eq(&event.venue),
            events_table::qualifying_rounds.eq(qualifying_rounds),
            events_table::small_field_playoff.eq(enum_to_text(&event.small_field_playoff)),
            events_table::board_mode.eq(enum_to_text(&event.board_mode)),
            events_table::standings_count.eq(enum_to_text(&event.standings_count)),
            events_table::partner_rules.eq(partner_rules),
            events_table::practice.eq(event.practice),
            events_table::minutes_per_game.eq(minutes_per_game),
            events_table::language.eq(enum_to_text(&event.language)),
            events_table::player_reporting.eq(enum_to_text(&event.player_reporting)),
            events_table::players_may_drop.eq(event.players_may_drop),
            events_table::created_at.eq(event.created_at),
        ))
        .execute(conn)?)
}

/// Ends the entries of `keys` (as the copy's records name them) with the copy's status and
/// reason: they left the event at the venue. Only an active entry ends, as a drop does.
pub fn end_entries(
    conn: &mut PgConnection,
    copy: &VenueCopy,
    keys: &[String],
) -> Result<(), ApiError> {
    for entry in &copy.entries {
        let record = VenueCopy::entry_record(copy.event.id, entry);
        if keys.contains(&record.key) {
            diesel::update(
                entries_table::table
                    .filter(entries_table::id.eq(entry.id))
                    .filter(entries_table::event_id.eq(copy.event.id))
                    .filter(entries_table::status.eq("active")),
            )
            .set((
                entries_table::status.eq(enum_to_text(&entry.status)),
                entries_table::status_reason.eq(&entry.status_reason),
                entries_table::left_at.eq(diesel::dsl::now),
            ))
            .execute(conn)?;
        }
    }
    Ok(())
}

/// The entry and its players, without PINs: the federation's PINs are not copied, and the
/// venue's director issues each player a PIN of the venue's own.
fn insert_entry(
    conn: &mut PgConnection,
    event_id: Uuid,
    entry: &EntryCopy,
) -> Result<(), ApiError> {
    let single = entry.team_name.is_none();
    diesel::insert_into(entries_table::table)
        .values((
            entries_table::id.eq(entry.id),
            entries_table::event_id.eq(event_id),
            entries_table::player_id.eq(entry.player_ids.first().copied().filter(|_| single)),
            entries_table::team_name.eq(&entry.team_name),
            entries_table::status.eq(enum_to_text(&entry.status)),
            entries_table::status_reason.eq(&entry.status_reason),
            entries_table::created_at.eq(entry.created_at),
        ))
        .execute(conn)?;
    for (position, player) in entry.player_ids.iter().enumerate() {
        diesel::insert_into(entry_players::table)
            .values((
                entry_players::event_id.eq(event_id),
                entry_players::entry_id.eq(entry.id),
                entry_players::player_id.eq(player),
                entry_players::position.eq(i32::try_from(position).map_err(ApiError::internal)?),
            ))
            .execute(conn)?;
    }
    Ok(())
}
