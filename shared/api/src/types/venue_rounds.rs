//! The rounds of a venue's event (issue 34): pairing's part of what `catan-suite venue publish`
//! sends back to the federation, read from the venue's suite with
//! `GET /v1/events/{event_id}/venue-copy/rounds` and taken in with the `PUT` of the same path.

use super::{ClockLogEntry, Entry, Event, EventFormat, KeepApart, Round};
use catan_domain::clock::ClockAction;
use catan_domain::venue_copy::CopyRecord;
use catan_domain::venue_rounds::{EventShape, RoundShape, SeatShape, TableShape};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Every round of one event as pairing keeps it, under the venue's numbers: the rounds with
/// their seeds, tables and seats, the engine's number of each entry (what a seed draws with),
/// the director's keep-apart pairs and each round's clock log. Taken in, a round the federation
/// lacks is added as if drawn there; one it has alike changes nothing; if any record differs,
/// or the federation has one the copy lacks, nothing is taken in and the 409 lists every
/// difference.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct VenueRounds {
    pub event_id: Uuid,
    /// The engine's number of each entry the draws have seated.
    #[serde(default)]
    pub participants: Vec<VenueParticipant>,
    /// The players the event's director keeps apart.
    #[serde(default)]
    pub keep_apart: KeepApart,
    /// Every round of the event, oldest first, numbered on from 1.
    #[serde(default)]
    pub rounds: Vec<Round>,
    /// The clock log of each round whose clock was started.
    #[serde(default)]
    pub clocks: Vec<RoundClockLog>,
}

/// An entry's number for the pairing engine, stable for the whole event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VenueParticipant {
    pub entry_id: Uuid,
    pub player_id: Uuid,
    pub number: u32,
}

/// A round's clock log: the director's actions in order, with the instants they were taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RoundClockLog {
    pub round: u32,
    pub actions: Vec<ClockLogEntry>,
}

/// What taking in a venue's rounds did (with `dry_run`, would do).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VenueRoundsTaken {
    pub event_id: Uuid,
    /// True when nothing was written: the counts say what the copy would add.
    pub dry_run: bool,
    pub added: RoundsCounts,
    /// The records the federation had alike already.
    pub unchanged: RoundsCounts,
}

/// Records of a venue's rounds, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RoundsCounts {
    pub participants: u32,
    /// The keep-apart pairs, as one record (0 or 1).
    pub keep_apart: u32,
    pub rounds: u32,
    pub tables: u32,
    pub clock_actions: u32,
}

/// A value as JSON text: how a record's field is compared and shown in a difference.
fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("<{e}>"))
}

/// The event as the checks of its rounds read it: its format, its rounds, its entries.
pub fn event_shape(event: &Event, entries: &[Entry]) -> EventShape {
    EventShape {
        partner: event.format == EventFormat::Partner,
        qualifying_rounds: event.qualifying_rounds,
        swiss_rounds: event.partner_rules.as_ref().map_or(0, |rules| rules.rounds),
        entries: entries
            .iter()
            .map(|e| (e.id, e.player_ids.clone()))
            .collect(),
    }
}

/// The records of a copy are compared by what they mean: a round's `drawn_at` is kept, never
/// compared; a clock action's instant is part of what the clock did, and compared.
impl VenueRounds {
    pub fn participant_record(participant: &VenueParticipant) -> CopyRecord {
        CopyRecord::new(format!("participants[{}]", participant.entry_id))
            .with("player_id", json(&participant.player_id))
            .with("number", json(&participant.number))
    }

    /// The pairs as one record, each pair and the list in order; none when there are none.
    pub fn keep_apart_record(pairs: &[[Uuid; 2]]) -> Option<CopyRecord> {
        let mut pairs: Vec<[Uuid; 2]> = pairs.iter().map(|&[a, b]| [a.min(b), a.max(b)]).collect();
        pairs.sort_unstable();
        pairs.dedup();
        (!pairs.is_empty()).then(|| CopyRecord::new("keep_apart").with("pairs", json(&pairs)))
    }

    /// The round's own record, then one for each of its tables.
    pub fn round_records(round: &Round) -> Vec<CopyRecord> {
        let key = format!("rounds[{}]", round.number);
        let own = CopyRecord::new(key.clone())
            .with("event_id", json(&round.event_id))
            .with("format", json(&round.format))
            .with("stage", json(&round.stage))
            .with("seed", json(&round.seed))
            .with("seed_chosen", json(&round.seed_chosen))
            .with("figures", json(&round.figures))
            .with("byes", json(&round.byes))
            .with("board_mode", json(&round.board_mode))
            .with("partner_rules", json(&round.partner_rules))
            .with("player_reporting", json(&round.player_reporting))
            .with("tables", json(&round.tables.len()));
        let tables = round.tables.iter().map(|table| {
            CopyRecord::new(format!("{key}.tables[{}]", table.number))
                .with("seats", json(&table.seats))
                .with("explanation", json(&table.explanation))
        });
        std::iter::once(own).chain(tables).collect()
    }

    /// One record for each action of the log, `rounds[n].clock[seq]` (seq from 1).
    pub fn clock_records(log: &RoundClockLog) -> Vec<CopyRecord> {
        log.actions
            .iter()
            .zip(1..)
            .map(|(entry, seq): (&ClockLogEntry, u32)| {
                CopyRecord::new(format!("rounds[{}].clock[{seq}]", log.round))
                    .with("at", json(&entry.at.timestamp_millis()))
                    .with("action", json(&entry.action))
            })
            .collect()
    }

    /// Every record of the copy.
    pub fn records(&self) -> Vec<CopyRecord> {
        let participants = self.participants.iter().map(Self::participant_record);
        let keep_apart = Self::keep_apart_record(&self.keep_apart.pairs);
        let rounds = self.rounds.iter().flat_map(Self::round_records);
        let clocks = self.clocks.iter().flat_map(Self::clock_records);
        participants
            .chain(keep_apart)
            .chain(rounds)
            .chain(clocks)
            .collect()
    }

    /// The rounds as the checks read them.
    pub fn shapes(&self) -> Vec<RoundShape> {
        self.rounds
            .iter()
            .map(|round| RoundShape {
                number: round.number,
                partner: round.format == EventFormat::Partner,
                stage: round.stage,
                seed: round.seed,
                tables: round
                    .tables
                    .iter()
                    .map(|table| TableShape {
                        number: table.number,
                        seats: table
                            .seats
                            .iter()
                            .map(|seat| SeatShape {
                                position: seat.position,
                                entry: seat.entry_id,
                                player: seat.player_id,
                            })
                            .collect(),
                    })
                    .collect(),
                byes: round.byes.clone(),
            })
            .collect()
    }

    /// Each clock log as the domain's clock reads it.
    pub fn clock_logs(&self) -> Vec<(u32, Vec<ClockAction>)> {
        self.clocks
            .iter()
            .map(|log| {
                let actions = log
                    .actions
                    .iter()
                    .map(|entry| ClockAction::new(entry.at.timestamp_millis(), entry.action))
                    .collect();
                (log.round, actions)
            })
            .collect()
    }
}
