//! Events and their settings.

use crate::schema::registration::events;
use catan_api::{BoardMode, Event, EventFormat, PartnerSettings, SmallFieldRule};
use catan_kit::ApiError;
use catan_kit::db::enum_from_text;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

#[derive(Queryable, Selectable)]
#[diesel(table_name = events)]
struct EventRow {
    id: Uuid,
    name: String,
    region_id: Option<Uuid>,
    format: String,
    qualifying_rounds: i32,
    small_field_playoff: String,
    board_mode: String,
    standings_count: String,
    partner_rules: Option<serde_json::Value>,
    created_at: DateTime<Utc>,
}

fn event_from_row(row: EventRow) -> Result<Event, ApiError> {
    Ok(Event {
        id: row.id,
        name: row.name,
        region_id: row.region_id,
        format: enum_from_text::<EventFormat>(&row.format)?,
        qualifying_rounds: u32::try_from(row.qualifying_rounds).map_err(ApiError::internal)?,
        small_field_playoff: enum_from_text::<SmallFieldRule>(&row.small_field_playoff)?,
        board_mode: enum_from_text::<BoardMode>(&row.board_mode)?,
        standings_count: enum_from_text(&row.standings_count)?,
        partner_rules: row
            .partner_rules
            .map(serde_json::from_value::<PartnerSettings>)
            .transpose()
            .map_err(ApiError::internal)?,
        created_at: row.created_at,
    })
}

/// An event to create, checked, with its enums as their stored text.
#[derive(Debug)]
pub struct NewEvent {
    pub name: String,
    pub region_id: Option<Uuid>,
    pub format: String,
    pub qualifying_rounds: i32,
    pub small_field_playoff: String,
    pub board_mode: String,
    pub standings_count: String,
    pub partner_rules: Option<serde_json::Value>,
}

/// Stores `event` under a new id.
pub fn insert(conn: &mut PgConnection, event: NewEvent) -> Result<Event, ApiError> {
    let row: EventRow = diesel::insert_into(events::table)
        .values((
            events::id.eq(Uuid::new_v4()),
            events::name.eq(event.name),
            events::region_id.eq(event.region_id),
            events::format.eq(event.format),
            events::qualifying_rounds.eq(event.qualifying_rounds),
            events::small_field_playoff.eq(event.small_field_playoff),
            events::board_mode.eq(event.board_mode),
            events::standings_count.eq(event.standings_count),
            events::partner_rules.eq(event.partner_rules),
        ))
        .returning(EventRow::as_returning())
        .get_result(conn)?;
    event_from_row(row)
}

/// The event; 404 when there is none.
pub fn load(conn: &mut PgConnection, id: Uuid) -> Result<Event, ApiError> {
    let row: Option<EventRow> = events::table
        .find(id)
        .select(EventRow::as_select())
        .first(conn)
        .optional()?;
    event_from_row(row.ok_or_else(|| ApiError::NotFound(format!("there is no event {id}")))?)
}

/// How many of `ids` are events.
pub fn count_known(conn: &mut PgConnection, ids: &[Uuid]) -> QueryResult<i64> {
    events::table
        .filter(events::id.eq_any(ids))
        .count()
        .get_result(conn)
}

/// Those of `ids` that are events.
pub fn known(conn: &mut PgConnection, ids: Vec<Uuid>) -> QueryResult<Vec<Uuid>> {
    events::table
        .filter(events::id.eq_any(ids))
        .select(events::id)
        .load(conn)
}
