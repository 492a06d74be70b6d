//! A venue's rounds (issue 34) in pairing's schema: every round of an event with what pairing
//! keeps beside it, read whole, and the records a venue's copy adds, stored through the draw's
//! own code so that every reader sees them as drawn rounds.

use crate::clock::store as clock_store;
use crate::schema::pairing::participants;
use crate::store;
use catan_api::{
    ClockLogEntry, KeepApart, RoundClockLog, RoundsCounts, VenueParticipant, VenueRounds,
    WebhookEventType,
};
use catan_domain::clock::{ClockAction, RoundClock};
use catan_kit::ApiError;
use diesel::prelude::*;
use std::collections::HashSet;
use std::num::NonZeroU32;
use uuid::Uuid;

/// Who drew a venue's round or took its clock's actions, among the federation's keys: none (the
/// venue's own keys are never copied).
const AT_THE_VENUE: Uuid = Uuid::nil();

/// Every round of the event as pairing keeps it, with its participants' numbers, keep-apart
/// pairs and clock logs.
pub fn venue_rounds(conn: &mut PgConnection, event_id: Uuid) -> Result<VenueRounds, ApiError> {
    let participants: Vec<(Uuid, Uuid, i32)> = participants::table
        .filter(participants::event_id.eq(event_id))
        .select((
            participants::entry_id,
            participants::player_id,
            participants::number,
        ))
        .order(participants::number)
        .load(conn)?;
    let participants = participants
        .into_iter()
        .map(|(entry_id, player_id, number)| {
            Ok(VenueParticipant {
                entry_id,
                player_id,
                number: u32::try_from(number).map_err(ApiError::internal)?,
            })
        })
        .collect::<Result<_, ApiError>>()?;
    let keep_apart = KeepApart {
        pairs: store::keep_apart(conn, event_id)?
            .into_iter()
            .map(|(a, b)| [a, b])
            .collect(),
    };
    let rounds = store::rounds_of(conn, event_id)?;
    let mut clocks = Vec::new();
    for round in &rounds {
        let clock = clock_store::clock_of(conn, event_id, round.number)?;
        if clock.actions().is_empty() {
            continue;
        }
        let actions = clock
            .actions()
            .iter()
            .map(|a| {
                Ok(ClockLogEntry {
                    at: clock_store::instant(a.at)?,
                    action: a.action,
                })
            })
            .collect::<Result<_, ApiError>>()?;
        clocks.push(RoundClockLog {
            round: round.number,
            actions,
        });
    }
    Ok(VenueRounds {
        event_id,
        participants,
        keep_apart,
        rounds,
        clocks,
    })
}

/// Stores the records of `copy` whose keys are in `create` (see [`VenueRounds::records`]): what
/// was added, by kind. A round is stored as a draw stores it, with the `round.drawn` webhook a
/// draw sends; a clock's actions as the director's are, with the notices already due marked as
/// sent (the venue announced them) rather than sent late.
pub fn insert(
    conn: &mut PgConnection,
    copy: &VenueRounds,
    create: &HashSet<String>,
    lead: NonZeroU32,
) -> Result<RoundsCounts, ApiError> {
    let mut added = RoundsCounts::default();
    let event_id = copy.event_id;
    for participant in &copy.participants {
        if create.contains(&VenueRounds::participant_record(participant).key) {
            diesel::insert_into(participants::table)
                .values((
                    participants::event_id.eq(event_id),
                    participants::entry_id.eq(participant.entry_id),
                    participants::player_id.eq(participant.player_id),
                    participants::number
                        .eq(i32::try_from(participant.number).map_err(ApiError::internal)?),
                ))
                .execute(conn)?;
            added.participants += 1;
        }
    }
    let keep_apart = VenueRounds::keep_apart_record(&copy.keep_apart.pairs);
    if keep_apart.is_some_and(|record| create.contains(&record.key)) {
        let pairs: Vec<(Uuid, Uuid)> = copy.keep_apart.pairs.iter().map(|&[a, b]| (a, b)).collect();
        store::set_keep_apart(conn, event_id, &pairs)?;
        added.keep_apart = 1;
    }
    for round in &copy.rounds {
        let records = VenueRounds::round_records(round);
        if records.first().is_some_and(|r| create.contains(&r.key)) {
            store::insert_round(conn, round, AT_THE_VENUE)?;
            catan_kit::webhooks::enqueue(conn, WebhookEventType::RoundDrawn, event_id, round)?;
            added.rounds += 1;
            added.tables += u32::try_from(round.tables.len()).map_err(ApiError::internal)?;
        }
    }
    for (log, (round, actions)) in copy.clocks.iter().zip(copy.clock_logs()) {
        let records = VenueRounds::clock_records(log);
        let mut appended = false;
        for (seq, (record, action)) in records.iter().zip(&actions).enumerate() {
            if create.contains(&record.key) {
                clock_store::append(conn, event_id, round, seq + 1, action, AT_THE_VENUE)?;
                added.clock_actions += 1;
                appended = true;
            }
        }
        if appended {
            mark_announced(conn, event_id, round, &actions, lead)?;
        }
    }
    Ok(added)
}

/// Records every notice of the clock already due as sent, without sending it.
fn mark_announced(
    conn: &mut PgConnection,
    event_id: Uuid,
    round: u32,
    actions: &[ClockAction],
    lead: NonZeroU32,
) -> Result<(), ApiError> {
    let clock = RoundClock::from_log(actions).map_err(ApiError::internal)?;
    let now = chrono::Utc::now().timestamp_millis();
    for notice in clock.notices_due(lead, now) {
        clock_store::mark_sent(conn, event_id, round, &notice)?;
    }
    Ok(())
}
