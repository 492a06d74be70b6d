//! The clock's webhooks: each notice the domain finds due is sent once, across replicas, by
//! whichever replica finds it first. `round.started` (and an early `round.ended`) go out in the
//! transaction of the director's action; the notices that fall due as time passes are found by a
//! ticker in every replica.

use super::store::{self, instant};
use crate::State;
use actix_web::web;
use catan_api::{RoundClockNotice, WebhookEventType};
use catan_domain::clock::{NoticeKind, RoundClock, UnixMillis};
use catan_kit::ApiError;
use diesel::PgConnection;
use std::num::NonZeroU32;
use std::time::Duration;
use uuid::Uuid;

/// How often a replica looks for notices fallen due: a `round.ending` or `round.ended` goes out at
/// most this late (plus the outbox's relay).
const TICK: Duration = Duration::from_millis(500);

/// Sends every notice of `clock` due by `now` that was not sent yet, in the caller's transaction.
pub fn send_due(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
    clock: &RoundClock,
    lead: NonZeroU32,
    now: UnixMillis,
) -> Result<(), ApiError> {
    for notice in clock.notices_due(lead, now) {
        if !store::mark_sent(conn, event_id, round, &notice)? {
            continue;
        }
        let event_type = match notice.kind {
            NoticeKind::Started => WebhookEventType::RoundStarted,
            NoticeKind::Ending => WebhookEventType::RoundEnding,
            NoticeKind::Ended => WebhookEventType::RoundEnded,
        };
        let data = RoundClockNotice {
            event_id,
            round,
            due_at: instant(notice.due_at)?,
            announces: instant(notice.announces)?,
        };
        catan_kit::webhooks::enqueue(conn, event_type, event_id, &data)?;
    }
    Ok(())
}

/// Every `TICK`, sends the notices fallen due of every round still playing.
pub async fn tick(state: web::Data<State>, lead: NonZeroU32) {
    loop {
        tokio::time::sleep(TICK).await;
        if let Err(e) = send_all_due(&state, lead).await {
            tracing::warn!(error = %e, "the round clock's notices could not be sent; retrying");
        }
    }
}

async fn send_all_due(state: &State, lead: NonZeroU32) -> Result<(), ApiError> {
    let rounds = catan_kit::db::run(&state.pool, store::rounds_to_notice).await?;
    for (event_id, round) in rounds {
        let round = u32::try_from(round).map_err(ApiError::internal)?;
        catan_kit::db::transaction(&state.pool, move |conn| {
            // Under the lock the director's actions take theirs by, the log read is every action
            // taken before `now`.
            catan_kit::db::lock_event(conn, event_id)?;
            let clock = store::clock_of(conn, event_id, round)?;
            let now = chrono::Utc::now().timestamp_millis();
            send_due(conn, event_id, round, &clock, lead, now)
        })
        .await?;
    }
    Ok(())
}
