//! Deliveries that failed their last try: registration's own dead letters, listed and replayed.
//! Those of a deleted subscription are not: nothing more is sent to it.

use crate::schema::registration::{webhook_deliveries, webhook_messages, webhooks};
use catan_api::{DeadLetter, DeadLetterKind, WebhookEventType};
use chrono::{DateTime, Utc};
use diesel::dsl::now;
use diesel::prelude::*;
use diesel::sql_types::Timestamptz;
use uuid::Uuid;

const FAILED: &str = "failed";
const PENDING: &str = "pending";

#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_deliveries)]
struct DeliveryState {
    id: Uuid,
    webhook_id: Uuid,
    message_id: Uuid,
    #[diesel(select_expression = webhook_messages::event_type)]
    event_type: String,
    #[diesel(select_expression = webhook_messages::event_id)]
    event_id: Uuid,
    attempts: i32,
    last_error: Option<String>,
    next_attempt_at: Option<DateTime<Utc>>,
    dead_at: Option<DateTime<Utc>>,
}

impl DeliveryState {
    fn into_dead_letter(self) -> Option<DeadLetter> {
        Some(DeadLetter {
            id: self.id,
            kind: DeadLetterKind::Delivery,
            service: None,
            webhook_id: Some(self.webhook_id),
            event_type: WebhookEventType::parse(&self.event_type)?,
            message_id: self.message_id,
            event_id: self.event_id,
            attempts: u32::try_from(self.attempts).unwrap_or_default(),
            last_error: self.last_error,
            next_attempt_at: self.next_attempt_at,
            dead_at: self.dead_at,
        })
    }
}

/// The first `at_most` failed deliveries, the latest to die first.
pub fn dead(conn: &mut PgConnection, at_most: i64) -> QueryResult<Vec<DeadLetter>> {
    let rows: Vec<DeliveryState> = webhook_deliveries::table
        .inner_join(webhook_messages::table)
        .inner_join(webhooks::table)
        .filter(webhooks::deleted_at.is_null())
        .filter(webhook_deliveries::status.eq(FAILED))
        .order((
            webhook_deliveries::dead_at.desc().nulls_last(),
            webhook_deliveries::id,
        ))
        .limit(at_most)
        .select(DeliveryState::as_select())
        .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(DeliveryState::into_dead_letter)
        .collect())
}

/// Whether `id` is a delivery [`replay`] answers for: failed, or pending (replayed already).
pub fn is_replayable(conn: &mut PgConnection, id: Uuid) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        webhook_deliveries::table
            .inner_join(webhooks::table)
            .filter(webhooks::deleted_at.is_null())
            .filter(webhook_deliveries::id.eq(id))
            .filter(webhook_deliveries::status.eq_any([FAILED, PENDING])),
    ))
    .get_result(conn)
}

/// Makes the failed delivery `id` pending and due now, its tries counted from 0 (one pending
/// already stays as it is): its state now, or `None` when it is neither.
pub fn replay(conn: &mut PgConnection, id: Uuid) -> QueryResult<Option<DeadLetter>> {
    let live = webhooks::table
        .filter(webhooks::deleted_at.is_null())
        .select(webhooks::id);
    diesel::update(
        webhook_deliveries::table
            .filter(webhook_deliveries::id.eq(id))
            .filter(webhook_deliveries::status.eq(FAILED))
            .filter(webhook_deliveries::webhook_id.eq_any(live)),
    )
    .set((
        webhook_deliveries::status.eq(PENDING),
        webhook_deliveries::attempts.eq(0),
        webhook_deliveries::next_attempt_at.eq(now.into_sql::<Timestamptz>().nullable()),
        webhook_deliveries::dead_at.eq(None::<DateTime<Utc>>),
    ))
    .execute(conn)?;
    let row: Option<DeliveryState> = webhook_deliveries::table
        .inner_join(webhook_messages::table)
        .filter(webhook_deliveries::id.eq(id))
        .filter(webhook_deliveries::status.eq(PENDING))
        .select(DeliveryState::as_select())
        .first(conn)
        .optional()?;
    Ok(row.and_then(DeliveryState::into_dead_letter))
}
