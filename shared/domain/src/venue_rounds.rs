//! The rounds a venue drew for an event (issue 34), as the federation takes them in: each round
//! must be one the draw could have made for the event's entries (numbered on from 1, of the
//! event's format and stages, every seat an entrant's in play order, tables of the sizes the
//! draw seats), and compared with the rounds the federation has as any copy is
//! ([`crate::venue_copy`]), except that a record only the federation has contradicts the copy
//! too: a venue's rounds are every round of the event.

use crate::clock::{ClockAction, RoundClock};
use crate::results::Stage;
use crate::seating::{SEAT_ORDER, SeatPosition, table_sizes};
use crate::venue_copy::{CopyPlan, CopyRecord, plan_copy, record_differences};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// The largest seed a draw takes: seeds stay below 2^53 so that they survive JSON numbers in
/// every language (the draw's own bound).
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// The event the rounds are of, as registration has it.
#[derive(Debug, Clone, Default)]
pub struct EventShape {
    /// A partner event (2 vs 2, Swiss), else classic.
    pub partner: bool,
    /// A classic event's qualifying rounds.
    pub qualifying_rounds: u32,
    /// A partner event's Swiss rounds.
    pub swiss_rounds: u32,
    /// Each entry of the event (dropped ones too) with its players.
    pub entries: HashMap<Uuid, Vec<Uuid>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatShape {
    pub position: SeatPosition,
    pub entry: Uuid,
    pub player: Uuid,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableShape {
    pub number: u32,
    /// In play order.
    pub seats: Vec<SeatShape>,
}

/// A round as the checks read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundShape {
    pub number: u32,
    /// Drawn as a partner event's round.
    pub partner: bool,
    pub stage: Stage,
    pub seed: u64,
    pub tables: Vec<TableShape>,
    /// The entries with a bye (partner events).
    pub byes: Vec<Uuid>,
}

/// Which rule a round breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundFaultKind {
    /// A seat or bye names no entry of the event, or a player not of its entry.
    NotEntered,
    /// A player seated twice in one round, or seated while having a bye.
    DuplicatePlayer,
    /// Tables of sizes the draw does not seat, or seats out of play order.
    Unplayable,
    /// A partner table that is not two teams with partners opposite.
    Teams,
    /// Rounds or tables not numbered on from 1, or a seed beyond [`MAX_SEED`].
    OutOfRange,
    /// A round of another format or stage than the event plays there.
    NotForFormat,
    /// A clock log the round's clock would not have taken, or of a round not drawn.
    Clock,
}

/// A broken rule, on the field that breaks it (e.g. `rounds[2].tables[0].seats[3].entry_id`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundFault {
    pub field: String,
    pub kind: RoundFaultKind,
    pub message: String,
}

fn fault(field: String, kind: RoundFaultKind, message: String) -> RoundFault {
    RoundFault {
        field,
        kind,
        message,
    }
}

/// Every rule `rounds` (every round of the event, oldest first) break for `event`; none: they
/// are rounds its draw could have made.
pub fn round_faults(event: &EventShape, rounds: &[RoundShape]) -> Vec<RoundFault> {
    let mut faults = Vec::new();
    for (i, round) in rounds.iter().enumerate() {
        let at = format!("rounds[{i}]");
        let expected = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if round.number != expected {
            faults.push(fault(
                format!("{at}.number"),
                RoundFaultKind::OutOfRange,
                format!(
                    "rounds follow on from 1: this one is round {expected}, not {}",
                    round.number
                ),
            ));
        }
        if round.seed > MAX_SEED {
            faults.push(fault(
                format!("{at}.seed"),
                RoundFaultKind::OutOfRange,
                format!("a seed is 0 to {MAX_SEED}"),
            ));
        }
        faults.extend(stage_faults(event, &rounds[..i], round, &at));
        faults.extend(seat_faults(event, round, &at));
        faults.extend(size_faults(event, round, &at));
    }
    faults
}

/// The round is of the event's format, at a stage its draw comes to after the earlier rounds:
/// the qualifying rounds, then one semi-final round, then one final (classic); Swiss rounds up to
/// the event's number (partner).
fn stage_faults(
    event: &EventShape,
    earlier: &[RoundShape],
    round: &RoundShape,
    at: &str,
) -> Vec<RoundFault> {
    let stage_field = format!("{at}.stage");
    if round.partner != event.partner {
        let format = if event.partner { "partner" } else { "classic" };
        return vec![fault(
            format!("{at}.format"),
            RoundFaultKind::NotForFormat,
            format!("the event is a {format} event"),
        )];
    }
    let count = |stage: Stage| {
        u32::try_from(earlier.iter().filter(|r| r.stage == stage).count()).unwrap_or(u32::MAX)
    };
    let refused = |why: String| {
        vec![fault(
            stage_field.clone(),
            RoundFaultKind::NotForFormat,
            why,
        )]
    };
    match (event.partner, round.stage) {
        (true, Stage::Swiss) if count(Stage::Swiss) < event.swiss_rounds => Vec::new(),
        (true, Stage::Swiss) => refused(format!(
            "the event plays {} Swiss rounds",
            event.swiss_rounds
        )),
        (true, _) | (false, Stage::Swiss) => refused("not a stage of this event's format".into()),
        (false, Stage::Qualifying)
            if count(Stage::Semifinal) + count(Stage::Final) == 0
                && count(Stage::Qualifying) < event.qualifying_rounds =>
        {
            Vec::new()
        }
        (false, Stage::Qualifying) => refused(format!(
            "the event plays {} qualifying rounds, before any playoff",
            event.qualifying_rounds
        )),
        (false, Stage::Semifinal)
            if count(Stage::Qualifying) == event.qualifying_rounds
                && count(Stage::Semifinal) + count(Stage::Final) == 0 =>
        {
            Vec::new()
        }
        (false, Stage::Final)
            if count(Stage::Qualifying) == event.qualifying_rounds && count(Stage::Final) == 0 =>
        {
            Vec::new()
        }
        (false, _) => refused(
            "a playoff round comes after every qualifying round: one semi-final round, then one final"
                .into(),
        ),
    }
}

/// Tables numbered on from 1, seats in play order, each an entrant's player seated once, and
/// each bye an entry not seated.
fn seat_faults(event: &EventShape, round: &RoundShape, at: &str) -> Vec<RoundFault> {
    let mut faults = Vec::new();
    let mut seated: HashSet<Uuid> = HashSet::new();
    let mut seated_entries: HashSet<Uuid> = HashSet::new();
    for (j, table) in round.tables.iter().enumerate() {
        let table_at = format!("{at}.tables[{j}]");
        let expected = u32::try_from(j + 1).unwrap_or(u32::MAX);
        if table.number != expected {
            faults.push(fault(
                format!("{table_at}.number"),
                RoundFaultKind::OutOfRange,
                format!("tables are numbered on from 1: this one is {expected}"),
            ));
        }
        for (k, seat) in table.seats.iter().enumerate() {
            let seat_at = format!("{table_at}.seats[{k}]");
            if SEAT_ORDER.get(k) != Some(&seat.position) {
                faults.push(fault(
                    format!("{seat_at}.position"),
                    RoundFaultKind::Unplayable,
                    "seats are listed in play order: N, E, S, W".into(),
                ));
            }
            match event.entries.get(&seat.entry) {
                None => faults.push(fault(
                    format!("{seat_at}.entry_id"),
                    RoundFaultKind::NotEntered,
                    format!("{} is not an entry of this event", seat.entry),
                )),
                Some(players) if !players.contains(&seat.player) => faults.push(fault(
                    format!("{seat_at}.player_id"),
                    RoundFaultKind::NotEntered,
                    format!("player {} is not of entry {}", seat.player, seat.entry),
                )),
                Some(_) => {}
            }
            seated_entries.insert(seat.entry);
            if !seated.insert(seat.player) {
                faults.push(fault(
                    format!("{seat_at}.player_id"),
                    RoundFaultKind::DuplicatePlayer,
                    format!("player {} is seated twice in this round", seat.player),
                ));
            }
        }
    }
    if !event.partner && !round.byes.is_empty() {
        faults.push(fault(
            format!("{at}.byes"),
            RoundFaultKind::NotForFormat,
            "only a partner event's round gives byes".into(),
        ));
    }
    for (b, bye) in round.byes.iter().enumerate() {
        if !event.entries.contains_key(bye) {
            faults.push(fault(
                format!("{at}.byes[{b}]"),
                RoundFaultKind::NotEntered,
                format!("{bye} is not an entry of this event"),
            ));
        } else if seated_entries.contains(bye) {
            faults.push(fault(
                format!("{at}.byes[{b}]"),
                RoundFaultKind::DuplicatePlayer,
                format!("entry {bye} has a bye and a seat in this round"),
            ));
        }
    }
    faults
}

/// A classic round seats its players at tables of 4 and as many of 3 as the head count forces,
/// as every draw does; a partner table is two teams, partners opposite (N and S, E and W).
fn size_faults(event: &EventShape, round: &RoundShape, at: &str) -> Vec<RoundFault> {
    if event.partner {
        return round
            .tables
            .iter()
            .enumerate()
            .filter(|(_, table)| !two_teams_opposite(table))
            .map(|(j, _)| {
                fault(
                    format!("{at}.tables[{j}].seats"),
                    RoundFaultKind::Teams,
                    "a partner table is two teams of two, partners opposite".into(),
                )
            })
            .collect();
    }
    let mut sizes: Vec<usize> = round.tables.iter().map(|t| t.seats.len()).collect();
    sizes.sort_unstable();
    let seated = sizes.iter().sum();
    let legal = table_sizes(seated).map(|legal| {
        let mut legal: Vec<usize> = legal.in_order().collect();
        legal.sort_unstable();
        legal
    });
    match legal {
        Ok(legal) if legal == sizes => Vec::new(),
        Ok(legal) => vec![fault(
            format!("{at}.tables"),
            RoundFaultKind::Unplayable,
            format!("{seated} players sit at tables of {legal:?} seats, not {sizes:?}"),
        )],
        Err(e) => vec![fault(
            format!("{at}.tables"),
            RoundFaultKind::Unplayable,
            e.to_string(),
        )],
    }
}

fn two_teams_opposite(table: &TableShape) -> bool {
    let [n, e, s, w] = table.seats.as_slice() else {
        return false;
    };
    n.entry == s.entry && e.entry == w.entry && n.entry != e.entry
}

/// Every participant (entry, player, engine number) that is not an entrant of the event, or
/// whose entry or number another participant has, or whose number is not below their count: the
/// engine numbers the entries it seats 0, 1, 2... in turn, each once.
pub fn participant_faults(
    event: &EventShape,
    participants: &[(Uuid, Uuid, u32)],
) -> Vec<RoundFault> {
    let mut faults = Vec::new();
    let count = u32::try_from(participants.len()).unwrap_or(u32::MAX);
    for (i, &(entry, player, number)) in participants.iter().enumerate() {
        if number >= count {
            faults.push(fault(
                format!("participants[{i}].number"),
                RoundFaultKind::OutOfRange,
                format!(
                    "{count} participants are numbered 0 to {}",
                    count.saturating_sub(1)
                ),
            ));
        }
        let at = format!("participants[{i}]");
        if !event
            .entries
            .get(&entry)
            .is_some_and(|players| players.contains(&player))
        {
            faults.push(fault(
                format!("{at}.entry_id"),
                RoundFaultKind::NotEntered,
                format!("entry {entry} with player {player} is not an entry of this event"),
            ));
        }
        let earlier = &participants[..i];
        if earlier.iter().any(|&(e, _, n)| e == entry || n == number) {
            faults.push(fault(
                format!("{at}.number"),
                RoundFaultKind::DuplicatePlayer,
                format!("each entry has one number, and each number one entry: {number}"),
            ));
        }
    }
    faults
}

/// Every keep-apart pair that names one player twice, or a player not entered in the event.
pub fn keep_apart_faults(event: &EventShape, pairs: &[[Uuid; 2]]) -> Vec<RoundFault> {
    let entered: HashSet<Uuid> = event.entries.values().flatten().copied().collect();
    let mut faults = Vec::new();
    for (i, &[a, b]) in pairs.iter().enumerate() {
        let field = format!("keep_apart.pairs[{i}]");
        if a == b {
            faults.push(fault(
                field,
                RoundFaultKind::DuplicatePlayer,
                "a pair needs two different players".into(),
            ));
        } else if let Some(stranger) = [a, b].into_iter().find(|p| !entered.contains(p)) {
            faults.push(fault(
                field,
                RoundFaultKind::NotEntered,
                format!("player {stranger} is not entered in this event"),
            ));
        }
    }
    faults
}

/// Every clock log of `logs` (round number, actions) that is not of one of `rounds`, or that
/// the round's clock would not have taken in its order.
pub fn clock_faults(rounds: &[u32], logs: &[(u32, Vec<ClockAction>)]) -> Vec<RoundFault> {
    let mut faults = Vec::new();
    for (i, (round, actions)) in logs.iter().enumerate() {
        let at = format!("clocks[{i}]");
        if !rounds.contains(round) || logs[..i].iter().any(|(r, _)| r == round) {
            faults.push(fault(
                format!("{at}.round"),
                RoundFaultKind::Clock,
                format!("one clock log for each round drawn: round {round}"),
            ));
        }
        if let Err(invalid) = RoundClock::from_log(actions) {
            faults.push(fault(
                format!("{at}.actions[{}]", invalid.index),
                RoundFaultKind::Clock,
                invalid.error.to_string(),
            ));
        }
    }
    faults
}

/// How the copy `theirs` of every record of a venue's rounds is taken in, given `ours`: as
/// [`plan_copy`] plans it, and a record only we have is a difference too (each of its fields
/// against nothing), since the copy carries the whole event.
pub fn plan_rounds_copy(ours: &[CopyRecord], theirs: &[CopyRecord]) -> CopyPlan {
    let ours_only = ours
        .iter()
        .filter(|record| !theirs.iter().any(|t| t.key == record.key))
        .flat_map(|record| record_differences(record, &CopyRecord::new(record.key.clone())));
    let ours_only: Vec<_> = ours_only.collect();
    match plan_copy(ours, theirs) {
        CopyPlan::Create(_) if !ours_only.is_empty() => CopyPlan::Refuse(ours_only),
        CopyPlan::Refuse(mut differences) => {
            differences.extend(ours_only);
            CopyPlan::Refuse(differences)
        }
        create => create,
    }
}

#[cfg(test)]
#[path = "venue_rounds_tests.rs"]
mod tests;
