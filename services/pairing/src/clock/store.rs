//! A round's clock log and the notices it sent, in pairing's schema.

use super::ClockedRound;
use crate::schema::pairing::{round_clock_actions, round_clock_notices, round_tables, rounds};
use catan_domain::clock::{
    ClockAction, DirectorAction, Notice, NoticeKind, RoundClock, UnixMillis,
};
use catan_kit::ApiError;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

/// An instant of the domain's clock as a timestamp.
pub fn instant(at: UnixMillis) -> Result<DateTime<Utc>, ApiError> {
    DateTime::from_timestamp_millis(at)
        .ok_or_else(|| ApiError::internal(format!("{at} ms is not an instant")))
}

/// The clock of round `round`, replayed from its log (empty: not started).
pub fn clock_of(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
) -> Result<RoundClock, ApiError> {
    let rows: Vec<(DateTime<Utc>, serde_json::Value)> = round_clock_actions::table
        .filter(round_clock_actions::event_id.eq(event_id))
        .filter(round_clock_actions::round.eq(round as i32))
        .order(round_clock_actions::seq)
        .select((round_clock_actions::at, round_clock_actions::action))
        .load(conn)?;
    let actions = rows
        .into_iter()
        .map(|(at, action)| {
            let action: DirectorAction =
                serde_json::from_value(action).map_err(ApiError::internal)?;
            Ok(ClockAction::new(at.timestamp_millis(), action))
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    // Only actions the clock allowed were stored: a refused log is a bug, not a request's fault.
    RoundClock::from_log(&actions).map_err(ApiError::internal)
}

/// The numbers of round `round`'s tables, in order; none when the round is not drawn. What the
/// clock reads, without the seats a whole round carries (165 KB for 1,000 players).
pub fn table_numbers(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
) -> Result<Option<Vec<u32>>, ApiError> {
    let drawn: i64 = rounds::table
        .filter(rounds::event_id.eq(event_id))
        .filter(rounds::number.eq(round as i32))
        .count()
        .get_result(conn)?;
    if drawn == 0 {
        return Ok(None);
    }
    let numbers: Vec<i32> = round_tables::table
        .filter(round_tables::event_id.eq(event_id))
        .filter(round_tables::round.eq(round as i32))
        .order(round_tables::number)
        .select(round_tables::number)
        .load(conn)?;
    Ok(Some(numbers.into_iter().map(|n| n as u32).collect()))
}

/// Table `table` of round `round` alone, as its clock knows it; 404 when the round is not drawn
/// or has no such table. One probe of the table's row: the results service asks this for every
/// `time_limit` sheet, and listing a 3,000-table round's numbers each time made a round's posts
/// cost pairing in proportion to the round's size.
pub fn clocked_table(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
    table: u32,
) -> Result<ClockedRound, ApiError> {
    // Numbers past PostgreSQL's integer name no round or table there is.
    let (round_number, table_number) = (i32::try_from(round).ok(), i32::try_from(table).ok());
    let seated: bool = match (round_number, table_number) {
        (Some(round_number), Some(table_number)) => diesel::select(diesel::dsl::exists(
            round_tables::table
                .filter(round_tables::event_id.eq(event_id))
                .filter(round_tables::round.eq(round_number))
                .filter(round_tables::number.eq(table_number)),
        ))
        .get_result(conn)?,
        _ => false,
    };
    if seated {
        return Ok(ClockedRound {
            event_id,
            number: round,
            tables: vec![table],
        });
    }
    let drawn: bool = match round_number {
        Some(round_number) => diesel::select(diesel::dsl::exists(
            rounds::table
                .filter(rounds::event_id.eq(event_id))
                .filter(rounds::number.eq(round_number)),
        ))
        .get_result(conn)?,
        None => false,
    };
    Err(match drawn {
        true => ApiError::NotFound(format!("round {round} has no table {table}")),
        false => crate::routes::not_drawn(event_id, round),
    })
}

/// Round `round` as its clock knows it, or 404 when it is not drawn.
pub fn clocked(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
) -> Result<ClockedRound, ApiError> {
    let tables = table_numbers(conn, event_id, round)?
        .ok_or_else(|| crate::routes::not_drawn(event_id, round))?;
    Ok(ClockedRound {
        event_id,
        number: round,
        tables,
    })
}

/// Appends `action` as the log's action number `seq` (from 1).
pub fn append(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
    seq: usize,
    action: &ClockAction,
    taken_by: Uuid,
) -> Result<(), ApiError> {
    diesel::insert_into(round_clock_actions::table)
        .values((
            round_clock_actions::event_id.eq(event_id),
            round_clock_actions::round.eq(round as i32),
            round_clock_actions::seq.eq(i32::try_from(seq).map_err(ApiError::internal)?),
            round_clock_actions::at.eq(instant(action.at)?),
            round_clock_actions::action
                .eq(serde_json::to_value(action.action).map_err(ApiError::internal)?),
            round_clock_actions::taken_by.eq(taken_by),
        ))
        .execute(conn)?;
    Ok(())
}

/// The rounds whose clock started and whose end of play was not announced yet: those that may
/// still have notices to send.
pub fn rounds_to_notice(conn: &mut PgConnection) -> Result<Vec<(Uuid, i32)>, ApiError> {
    let ended = round_clock_notices::table
        .filter(round_clock_notices::event_id.eq(round_clock_actions::event_id))
        .filter(round_clock_notices::round.eq(round_clock_actions::round))
        .filter(round_clock_notices::kind.eq("ended"));
    Ok(round_clock_actions::table
        .filter(round_clock_actions::seq.eq(1))
        .filter(diesel::dsl::not(diesel::dsl::exists(ended)))
        .select((round_clock_actions::event_id, round_clock_actions::round))
        .load(conn)?)
}

/// Records that `notice` was sent: false when it was already (by this replica or another).
pub fn mark_sent(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
    notice: &Notice,
) -> Result<bool, ApiError> {
    let inserted = diesel::insert_into(round_clock_notices::table)
        .values((
            round_clock_notices::event_id.eq(event_id),
            round_clock_notices::round.eq(round as i32),
            round_clock_notices::kind.eq(kind_text(notice.kind)),
            round_clock_notices::announces.eq(instant(notice.announces)?),
            round_clock_notices::due_at.eq(instant(notice.due_at)?),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(inserted == 1)
}

fn kind_text(kind: NoticeKind) -> &'static str {
    match kind {
        NoticeKind::Started => "started",
        NoticeKind::Ending => "ending",
        NoticeKind::Ended => "ended",
    }
}
