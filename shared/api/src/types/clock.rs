//! A round's clock (issue 32): the director's actions on it and what it reads.

use catan_domain::clock::{DirectorAction, RoundState};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// What the director does to the round's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClockActionKind {
    /// Starts the round: `minutes`, else the event's `minutes_per_game`, else the rules' default.
    Start,
    /// Stops every table's time.
    Pause,
    /// Starts every table's time again where it stopped.
    Resume,
    /// Gives every table `minutes` more.
    ExtendRound,
    /// Gives table `table` alone `minutes` more, e.g. one that started late.
    ExtendTable,
    /// Ends the round now, every table with it.
    EndEarly,
}

/// An action on a round's clock. `minutes` (1 to 1440) goes with `start` (optional),
/// `extend_round` and `extend_table`; `table` with `extend_table`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"action": "extend_table", "table": 3, "minutes": 10}))]
pub struct ClockChange {
    pub action: ClockActionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 1440)]
    pub minutes: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1)]
    pub table: Option<u32>,
}

/// One action of a round's clock log, with the instant the server took it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ClockLogEntry {
    pub at: DateTime<Utc>,
    pub action: DirectorAction,
}

/// One table's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TableClock {
    pub table: u32,
    /// The minutes given to this table alone, beyond the round's.
    pub extra_minutes: i64,
    /// Milliseconds left: frozen while paused, 0 once up; none before the start.
    pub time_left_ms: Option<i64>,
    /// When the table's time runs out if nobody touches the clock (or ran out); none before the
    /// start and while paused.
    pub ends_at: Option<DateTime<Utc>>,
    /// The table's time is up: a game still going is stopped at the time limit.
    pub time_up: bool,
}

/// A round's clock as the server reads it at `server_time`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RoundClockReading {
    pub event_id: Uuid,
    pub round: u32,
    /// The server's time when it read the clock: a client corrects its own clock by it.
    pub server_time: DateTime<Utc>,
    pub state: RoundState,
    /// The round's own time left (tables without extra minutes), as for a table.
    pub time_left_ms: Option<i64>,
    /// When the round's own time runs out (or ran out); none before the start and while paused.
    pub ends_at: Option<DateTime<Utc>>,
    /// Every table of the round.
    pub tables: Vec<TableClock>,
    /// The director's actions, oldest first: the clock reads the same from them for any instant.
    pub actions: Vec<ClockLogEntry>,
}

/// The `data` of a `round.started`, `round.ending` or `round.ended` webhook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RoundClockNotice {
    pub event_id: Uuid,
    pub round: u32,
    /// When the notice fell due.
    pub due_at: DateTime<Utc>,
    /// What it announces: the start, the end of the round's time, or the end of play.
    pub announces: DateTime<Utc>,
}

/// One server-sent event of `GET /v1/events/{id}/rounds/{n}/clock/stream`, as OpenAPI 3.1
/// describes the events of a `text/event-stream`: `event` is `clock` and `data` the clock's
/// reading as JSON. Documentation only; the stream is written by hand.
pub struct ClockEvent;

impl utoipa::PartialSchema for ClockEvent {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::Ref;
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(
                "One server-sent event: `event: clock`, `data:` the round's clock as JSON.",
            ))
            .property(
                "event",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(["clock"])),
            )
            .property(
                "data",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some("The clock, as `GET .../clock` answers it."))
                    .content_media_type("application/json")
                    .content_schema(Some(Ref::from_schema_name("RoundClockReading"))),
            )
            .property(
                "retry",
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(0))
                    .description(Some("Milliseconds a client waits before it reconnects.")),
            )
            .required("data")
            .into()
    }
}

impl ToSchema for ClockEvent {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        schemas.push((
            RoundClockReading::name().into(),
            <RoundClockReading as utoipa::PartialSchema>::schema(),
        ));
        <RoundClockReading as ToSchema>::schemas(schemas);
    }
}
