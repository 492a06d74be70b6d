//! The pairing schema: rounds with their tables, and participants' engine numbers.

use crate::schema::pairing::{keep_apart_pairs, participants, round_tables, rounds};
use catan_api::{Round, RoundFigures, Seat, Table};
use catan_kit::ApiError;
use catan_kit::db::{enum_from_text, enum_to_text};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use std::collections::HashMap;
use uuid::Uuid;

#[derive(Queryable, Selectable)]
#[diesel(table_name = rounds)]
struct RoundRow {
    number: i32,
    stage: String,
    seed: i64,
    figures: serde_json::Value,
    drawn_at: DateTime<Utc>,
    format: String,
    /// A SQL array's elements may be NULL; a round's byes never are.
    byes: Vec<Option<Uuid>>,
    board_mode: String,
    partner_rules: Option<serde_json::Value>,
    seed_chosen: bool,
    player_reporting: String,
    changed_by_hand: bool,
}
type TableRow = (i32, i32, serde_json::Value, serde_json::Value);

/// Every round of the event, oldest first, with its tables.
pub fn rounds_of(conn: &mut PgConnection, event_id: Uuid) -> Result<Vec<Round>, ApiError> {
    rounds_where(conn, event_id, None)
}

/// Round `number` of the event with its tables, if drawn.
pub fn round_of(
    conn: &mut PgConnection,
    event_id: Uuid,
    number: u32,
) -> Result<Option<Round>, ApiError> {
    Ok(rounds_where(conn, event_id, Some(number))?.pop())
}

/// The event's rounds (only round `number`, when given), oldest first, with their tables.
fn rounds_where(
    conn: &mut PgConnection,
    event_id: Uuid,
    number: Option<u32>,
) -> Result<Vec<Round>, ApiError> {
    let mut round_query = rounds::table
        .filter(rounds::event_id.eq(event_id))
        .select(RoundRow::as_select())
        .order(rounds::number)
        .into_boxed();
    let mut table_query = round_tables::table
        .filter(round_tables::event_id.eq(event_id))
        .into_boxed();
    if let Some(number) = number {
        round_query = round_query.filter(rounds::number.eq(number as i32));
        table_query = table_query.filter(round_tables::round.eq(number as i32));
    }
    let round_rows: Vec<RoundRow> = round_query.load(conn)?;
    let table_rows: Vec<TableRow> = table_query
        .select((
            round_tables::round,
            round_tables::number,
            round_tables::seats,
            round_tables::explanation,
        ))
        .order((round_tables::round, round_tables::number))
        .load(conn)?;
    let mut tables: HashMap<i32, Vec<Table>> = HashMap::new();
    for (round, number, seats, explanation) in table_rows {
        let seats: Vec<Seat> = serde_json::from_value(seats).map_err(ApiError::internal)?;
        tables.entry(round).or_default().push(Table {
            number: number as u32,
            seats,
            explanation,
        });
    }
    round_rows
        .into_iter()
        .map(|row| {
            Ok(Round {
                event_id,
                number: row.number as u32,
                format: enum_from_text(&row.format)?,
                stage: enum_from_text(&row.stage)?,
                seed: row.seed as u64,
                seed_chosen: row.seed_chosen,
                drawn_at: row.drawn_at,
                figures: serde_json::from_value::<RoundFigures>(row.figures)
                    .map_err(ApiError::internal)?,
                tables: tables.remove(&row.number).unwrap_or_default(),
                byes: row.byes.into_iter().flatten().collect(),
                board_mode: enum_from_text(&row.board_mode)?,
                partner_rules: row
                    .partner_rules
                    .map(serde_json::from_value)
                    .transpose()
                    .map_err(ApiError::internal)?,
                player_reporting: enum_from_text(&row.player_reporting)?,
                changed_by_hand: row.changed_by_hand,
            })
        })
        .collect()
}

/// Stores a drawn round. A concurrent draw of the same round number loses with a 409.
pub fn insert_round(
    conn: &mut PgConnection,
    round: &Round,
    drawn_by: Uuid,
) -> Result<(), ApiError> {
    let inserted = diesel::insert_into(rounds::table)
        .values((
            rounds::event_id.eq(round.event_id),
            rounds::number.eq(round.number as i32),
            rounds::stage.eq(enum_to_text(&round.stage)),
            rounds::seed.eq(round.seed as i64),
            rounds::seed_chosen.eq(round.seed_chosen),
            rounds::figures.eq(serde_json::to_value(&round.figures).map_err(ApiError::internal)?),
            rounds::drawn_at.eq(round.drawn_at),
            rounds::drawn_by.eq(drawn_by),
            rounds::format.eq(enum_to_text(&round.format)),
            rounds::byes.eq(round.byes.iter().copied().map(Some).collect::<Vec<_>>()),
            rounds::board_mode.eq(enum_to_text(&round.board_mode)),
            rounds::partner_rules.eq(round
                .partner_rules
                .map(|rules| serde_json::to_value(rules).map_err(ApiError::internal))
                .transpose()?),
            rounds::player_reporting.eq(enum_to_text(&round.player_reporting)),
            rounds::changed_by_hand.eq(round.changed_by_hand),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    if inserted == 0 {
        return Err(ApiError::Conflict(format!(
            "round {} was drawn by a concurrent request",
            round.number
        )));
    }
    insert_tables(conn, round)
}

/// Stores `round` in place of the event's round of its number, drawn again by `drawn_by`: its
/// seed, figures and tables replace the earlier draw's (which the audit trail keeps).
pub fn replace_round(
    conn: &mut PgConnection,
    round: &Round,
    drawn_by: Uuid,
) -> Result<(), ApiError> {
    let this = rounds::table
        .filter(rounds::event_id.eq(round.event_id))
        .filter(rounds::number.eq(round.number as i32));
    diesel::update(this)
        .set((
            rounds::stage.eq(enum_to_text(&round.stage)),
            rounds::seed.eq(round.seed as i64),
            rounds::seed_chosen.eq(round.seed_chosen),
            rounds::figures.eq(serde_json::to_value(&round.figures).map_err(ApiError::internal)?),
            rounds::drawn_at.eq(round.drawn_at),
            rounds::drawn_by.eq(drawn_by),
            rounds::byes.eq(round.byes.iter().copied().map(Some).collect::<Vec<_>>()),
            rounds::changed_by_hand.eq(round.changed_by_hand),
        ))
        .execute(conn)?;
    replace_tables(conn, round)
}

/// Stores `round`'s tables in place of those stored, and whether it was changed by hand.
pub fn replace_tables(conn: &mut PgConnection, round: &Round) -> Result<(), ApiError> {
    diesel::update(
        rounds::table
            .filter(rounds::event_id.eq(round.event_id))
            .filter(rounds::number.eq(round.number as i32)),
    )
    .set(rounds::changed_by_hand.eq(round.changed_by_hand))
    .execute(conn)?;
    diesel::delete(
        round_tables::table
            .filter(round_tables::event_id.eq(round.event_id))
            .filter(round_tables::round.eq(round.number as i32)),
    )
    .execute(conn)?;
    insert_tables(conn, round)
}

fn insert_tables(conn: &mut PgConnection, round: &Round) -> Result<(), ApiError> {
    for table in &round.tables {
        diesel::insert_into(round_tables::table)
            .values((
                round_tables::event_id.eq(round.event_id),
                round_tables::round.eq(round.number as i32),
                round_tables::number.eq(table.number as i32),
                round_tables::seats
                    .eq(serde_json::to_value(&table.seats).map_err(ApiError::internal)?),
                round_tables::explanation.eq(&table.explanation),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// The engine's number of each entry of the event, giving new numbers to `entries` not yet known.
/// Numbers are stable for the whole event so that the history the engine sees stays valid.
pub fn numbers_for(
    conn: &mut PgConnection,
    event_id: Uuid,
    entries: &[(Uuid, Uuid)],
) -> Result<HashMap<Uuid, u32>, ApiError> {
    let known: Vec<(Uuid, i32)> = participants::table
        .filter(participants::event_id.eq(event_id))
        .select((participants::entry_id, participants::number))
        .load(conn)?;
    let mut numbers: HashMap<Uuid, u32> = known.into_iter().map(|(e, n)| (e, n as u32)).collect();
    let mut next = numbers.values().max().map_or(0, |n| n + 1);
    for (entry_id, player_id) in entries {
        if numbers.contains_key(entry_id) {
            continue;
        }
        diesel::insert_into(participants::table)
            .values((
                participants::event_id.eq(event_id),
                participants::entry_id.eq(entry_id),
                participants::player_id.eq(player_id),
                participants::number.eq(next as i32),
            ))
            .execute(conn)?;
        numbers.insert(*entry_id, next);
        next += 1;
    }
    Ok(numbers)
}

/// The director's keep-apart pairs of the event.
pub fn keep_apart(conn: &mut PgConnection, event_id: Uuid) -> Result<Vec<(Uuid, Uuid)>, ApiError> {
    Ok(keep_apart_pairs::table
        .filter(keep_apart_pairs::event_id.eq(event_id))
        .select((keep_apart_pairs::player_a, keep_apart_pairs::player_b))
        .order((keep_apart_pairs::player_a, keep_apart_pairs::player_b))
        .load(conn)?)
}

/// Replaces the event's keep-apart pairs.
pub fn set_keep_apart(
    conn: &mut PgConnection,
    event_id: Uuid,
    pairs: &[(Uuid, Uuid)],
) -> Result<(), ApiError> {
    diesel::delete(keep_apart_pairs::table.filter(keep_apart_pairs::event_id.eq(event_id)))
        .execute(conn)?;
    for &(a, b) in pairs {
        diesel::insert_into(keep_apart_pairs::table)
            .values((
                keep_apart_pairs::event_id.eq(event_id),
                keep_apart_pairs::player_a.eq(a.min(b)),
                keep_apart_pairs::player_b.eq(a.max(b)),
            ))
            .on_conflict_do_nothing()
            .execute(conn)?;
    }
    Ok(())
}
