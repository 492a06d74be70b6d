//! Events and their settings.

use super::{fold_name, strpos};
use crate::schema::registration::events;
use catan_api::{
    BoardMode, CheckoutSummary, Event, EventFormat, EventStatus, PartnerSettings, SmallFieldRule,
};
use catan_domain::calendar::{EventDays, Play};
use catan_domain::clock::default_minutes_per_game;
use catan_domain::results::Stage;
use catan_kit::ApiError;
use catan_kit::db::{enum_from_text, enum_to_text};
use chrono::{DateTime, NaiveDate, Utc};
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
    starts_on: NaiveDate,
    ends_on: NaiveDate,
    venue: Option<String>,
    practice: bool,
    play_started_at: Option<DateTime<Utc>>,
    play_finished_at: Option<DateTime<Utc>>,
    minutes_per_game: Option<i32>,
    language: String,
    player_reporting: String,
    players_may_drop: bool,
    checkout_venue: Option<String>,
    checked_out_at: Option<DateTime<Utc>>,
}

/// Today, in UTC: the day an event's status is told on.
pub fn today() -> NaiveDate {
    Utc::now().date_naive()
}

/// The event a row holds, with its status on `today` and by its play.
fn event_from_row(row: EventRow, today: NaiveDate) -> Result<Event, ApiError> {
    let days = EventDays::new(row.starts_on, Some(row.ends_on)).map_err(ApiError::internal)?;
    let play = Play {
        drawn: row.play_started_at.is_some(),
        placed: row.play_finished_at.is_some(),
    };
    let partner_rules = row
        .partner_rules
        .map(serde_json::from_value::<PartnerSettings>)
        .transpose()
        .map_err(ApiError::internal)?;
    // A partner event's minutes are its rules'; a classic event's its own, else the rules'.
    let minutes_per_game = match &partner_rules {
        Some(rules) => Some(rules.minutes_per_game),
        None => row
            .minutes_per_game
            .map(u32::try_from)
            .transpose()
            .map_err(ApiError::internal)?
            .or(default_minutes_per_game(Stage::Qualifying)),
    };
    Ok(Event {
        id: row.id,
        name: row.name,
        region_id: row.region_id,
        format: enum_from_text::<EventFormat>(&row.format)?,
        starts_on: days.starts_on(),
        ends_on: days.ends_on(),
        venue: row.venue,
        status: days.status(today, play),
        qualifying_rounds: u32::try_from(row.qualifying_rounds).map_err(ApiError::internal)?,
        small_field_playoff: enum_from_text::<SmallFieldRule>(&row.small_field_playoff)?,
        board_mode: enum_from_text::<BoardMode>(&row.board_mode)?,
        standings_count: enum_from_text(&row.standings_count)?,
        partner_rules,
        minutes_per_game,
        practice: row.practice,
        language: enum_from_text(&row.language)?,
        player_reporting: enum_from_text(&row.player_reporting)?,
        players_may_drop: row.players_may_drop,
        created_at: row.created_at,
        checkout: row
            .checkout_venue
            .zip(row.checked_out_at)
            .map(|(venue, since)| CheckoutSummary { venue, since }),
    })
}

/// An event to create, checked, with its enums as their stored text.
#[derive(Debug)]
pub struct NewEvent {
    pub name: String,
    pub region_id: Option<Uuid>,
    pub format: String,
    pub days: EventDays<NaiveDate>,
    pub venue: Option<String>,
    pub qualifying_rounds: i32,
    pub small_field_playoff: String,
    pub board_mode: String,
    pub standings_count: String,
    pub partner_rules: Option<serde_json::Value>,
    pub practice: bool,
    /// A classic event's minutes a game, when it sets them.
    pub minutes_per_game: Option<i32>,
    /// The venue screen's language, as stored text.
    pub language: String,
    /// Whether players report results, as stored text.
    pub player_reporting: String,
    pub players_may_drop: bool,
}

/// Stores `event` under a new id.
pub fn insert(conn: &mut PgConnection, event: NewEvent) -> Result<Event, ApiError> {
    let row: EventRow = diesel::insert_into(events::table)
        .values((
            events::id.eq(Uuid::new_v4()),
            events::name.eq(event.name),
            events::region_id.eq(event.region_id),
            events::format.eq(event.format),
            events::starts_on.eq(event.days.starts_on()),
            events::ends_on.eq(event.days.ends_on()),
            events::venue.eq(event.venue),
            events::qualifying_rounds.eq(event.qualifying_rounds),
            events::small_field_playoff.eq(event.small_field_playoff),
            events::board_mode.eq(event.board_mode),
            events::standings_count.eq(event.standings_count),
            events::partner_rules.eq(event.partner_rules),
            events::practice.eq(event.practice),
            events::minutes_per_game.eq(event.minutes_per_game),
            events::language.eq(event.language),
            events::player_reporting.eq(event.player_reporting),
            events::players_may_drop.eq(event.players_may_drop),
        ))
        .returning(EventRow::as_returning())
        .get_result(conn)?;
    event_from_row(row, today())
}

/// The event; 404 when there is none.
pub fn load(conn: &mut PgConnection, id: Uuid) -> Result<Event, ApiError> {
    let row: Option<EventRow> = events::table
        .find(id)
        .select(EventRow::as_select())
        .first(conn)
        .optional()?;
    let row = row.ok_or_else(|| ApiError::NotFound(format!("there is no event {id}")))?;
    event_from_row(row, today())
}

/// The events of `ids`, in no particular order (those that do not exist left out).
pub fn by_ids(conn: &mut PgConnection, ids: &[Uuid]) -> Result<Vec<Event>, ApiError> {
    // The feed asks with no ids at every quiet poll: no statement for nothing.
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<EventRow> = events::table
        .filter(events::id.eq_any(ids))
        .select(EventRow::as_select())
        .load(conn)?;
    let today = today();
    rows.into_iter()
        .map(|row| event_from_row(row, today))
        .collect()
}

/// What an event search keeps, checked: every filter given must hold.
#[derive(Debug, Default)]
pub struct EventFilter {
    pub region_id: Option<Uuid>,
    /// Only these events (a season's).
    pub ids: Option<Vec<Uuid>>,
    pub format: Option<String>,
    pub status: Option<EventStatus>,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    /// A part of the name, matched case and accents aside.
    pub name: Option<String>,
}

/// A page of the events `filter` keeps, by first day, then name, then id, with their status on
/// `today`.
pub fn search(
    conn: &mut PgConnection,
    filter: EventFilter,
    today: NaiveDate,
    limit: i64,
    offset: i64,
) -> Result<Vec<Event>, ApiError> {
    let mut query = events::table
        .select(EventRow::as_select())
        .order((events::starts_on, events::name, events::id))
        .limit(limit)
        .offset(offset)
        .into_boxed();
    if let Some(region_id) = filter.region_id {
        query = query.filter(events::region_id.eq(region_id));
    }
    if let Some(ids) = filter.ids {
        query = query.filter(events::id.eq_any(ids));
    }
    if let Some(format) = filter.format {
        query = query.filter(events::format.eq(format));
    }
    // The statuses as `EventDays::status` tells them, by the events' days and play.
    let finished = events::play_finished_at
        .is_not_null()
        .or(events::ends_on.lt(today));
    let begun = events::play_started_at
        .is_not_null()
        .or(events::starts_on.le(today));
    query = match filter.status {
        None => query,
        Some(EventStatus::Planned) => query.filter(diesel::dsl::not(finished.or(begun))),
        Some(EventStatus::Running) => query.filter(begun.and(diesel::dsl::not(finished))),
        Some(EventStatus::Finished) => query.filter(finished),
    };
    // The event's days overlap [from, to].
    if let Some(from) = filter.from {
        query = query.filter(events::ends_on.ge(from));
    }
    if let Some(to) = filter.to {
        query = query.filter(events::starts_on.le(to));
    }
    if let Some(name) = filter.name {
        query = query.filter(strpos(events::search_name, fold_name(name)).gt(0));
    }
    let rows: Vec<EventRow> = query.load(conn)?;
    rows.into_iter()
        .map(|row| event_from_row(row, today))
        .collect()
}

/// Records that play reached the events of `drawn` (a round drawn) and of `placed` (placements
/// complete), where it had not before: only the first news of each changes an event (and its
/// feed).
pub fn record_play(conn: &mut PgConnection, drawn: &[Uuid], placed: &[Uuid]) -> QueryResult<()> {
    if !drawn.is_empty() || !placed.is_empty() {
        diesel::update(
            events::table
                .filter(events::id.eq_any(drawn).or(events::id.eq_any(placed)))
                .filter(events::play_started_at.is_null()),
        )
        .set(events::play_started_at.eq(diesel::dsl::now))
        .execute(conn)?;
    }
    if !placed.is_empty() {
        diesel::update(
            events::table
                .filter(events::id.eq_any(placed))
                .filter(events::play_finished_at.is_null()),
        )
        .set(events::play_finished_at.eq(diesel::dsl::now))
        .execute(conn)?;
    }
    Ok(())
}

/// The events `player_id` is entered in (alone or in a team), by first day, then name.
pub fn of_player(
    conn: &mut PgConnection,
    player_id: Uuid,
    today: NaiveDate,
) -> Result<Vec<Event>, ApiError> {
    use crate::schema::registration::entry_players;
    let rows: Vec<EventRow> = events::table
        .filter(
            events::id.eq_any(
                entry_players::table
                    .filter(entry_players::player_id.eq(player_id))
                    .select(entry_players::event_id),
            ),
        )
        .order((events::starts_on, events::name, events::id))
        .select(EventRow::as_select())
        .load(conn)?;
    rows.into_iter()
        .map(|row| event_from_row(row, today))
        .collect()
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

/// The region of each of `ids` that is an event (`None`: an event of no region).
pub fn regions_of(conn: &mut PgConnection, ids: &[Uuid]) -> QueryResult<Vec<(Uuid, Option<Uuid>)>> {
    events::table
        .filter(events::id.eq_any(ids))
        .select((events::id, events::region_id))
        .load(conn)
}

/// The events of `regions`.
pub fn of_regions(conn: &mut PgConnection, regions: &[Uuid]) -> QueryResult<Vec<Uuid>> {
    events::table
        .filter(events::region_id.eq_any(regions))
        .select(events::id)
        .load(conn)
}

/// An event's edit, checked: each field changed when given.
#[derive(Debug, Default)]
pub struct EventEdit {
    pub name: Option<String>,
    pub venue: Option<String>,
    /// Whether players report results, as stored text.
    pub player_reporting: Option<String>,
    pub players_may_drop: Option<bool>,
}

/// Changes the event's name, venue and players' options, each when given: the event as edited;
/// 404 when there is none.
pub fn edit(conn: &mut PgConnection, id: Uuid, edit: EventEdit) -> Result<Event, ApiError> {
    let current = load(conn, id)?;
    let row: EventRow = diesel::update(events::table.find(id))
        .set((
            events::name.eq(edit.name.unwrap_or(current.name)),
            events::venue.eq(edit.venue.or(current.venue)),
            events::player_reporting.eq(edit
                .player_reporting
                .unwrap_or_else(|| enum_to_text(&current.player_reporting))),
            events::players_may_drop.eq(edit.players_may_drop.unwrap_or(current.players_may_drop)),
        ))
        .returning(EventRow::as_returning())
        .get_result(conn)?;
    event_from_row(row, today())
}
