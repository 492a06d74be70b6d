//! A venue's results taken into the federation (issue 34): every version of each table's results
//! sheet, with its players' confirmations and disputes, under the venue's version numbers and
//! times. What the federation lacks is added, in the order the venue made it, so that its change
//! feed and webhooks say what ordinary writes would have said; what it has alike changes nothing;
//! anything that differs refuses the whole part, listing every difference.
//!
//! Times are the caller's type `T` (the rules never read a clock): anything ordered, shown as
//! its `Debug` text in a difference.

use crate::results::{RuleCode, Violation};
use crate::venue_copy::{CopyDifference, CopyRecord, record_differences};
use std::collections::HashSet;
use std::fmt::Debug;
use uuid::Uuid;

/// One version of a table's sheet: `sheet` is the sheet as the rules checked it, written out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionOf<T> {
    pub version: u32,
    pub sheet: String,
    pub recorded_by: Uuid,
    pub recorded_at: T,
}

/// A player's confirmation of a version; `on_behalf_by` the director's key that made it for him.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmationOf<T> {
    pub version: u32,
    pub player: Uuid,
    pub confirmed_at: T,
    pub on_behalf_by: Option<Uuid>,
}

/// A player's dispute of a version, and the correction that resolved it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisputeOf<T> {
    pub version: u32,
    pub player: Uuid,
    pub reason: String,
    pub created_at: T,
    pub resolved_by_version: Option<u32>,
}

/// Everything kept of one table's sheet: its versions (oldest first), confirmations and disputes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableHistory<T> {
    pub round: u32,
    pub table: u32,
    pub versions: Vec<VersionOf<T>>,
    pub confirmations: Vec<ConfirmationOf<T>>,
    pub disputes: Vec<DisputeOf<T>>,
}

/// One thing that happened to a table's sheet, as it is replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// The version was recorded (a first sheet or a director's correction).
    Version(u32),
    Confirmation {
        version: u32,
        player: Uuid,
    },
    Dispute {
        version: u32,
        player: Uuid,
    },
}

impl<T> TableHistory<T> {
    /// How the table is named in fields and differences: `rounds[2].tables[5]`.
    pub fn key(&self) -> String {
        format!("rounds[{}].tables[{}]", self.round, self.table)
    }

    fn version_key(&self, version: u32) -> String {
        format!("{}.versions[{version}]", self.key())
    }

    fn confirmation_key(&self, version: u32, player: Uuid) -> String {
        format!("{}.confirmations[{player}]", self.version_key(version))
    }

    fn dispute_key(&self, version: u32, player: Uuid) -> String {
        format!("{}.disputes[{player}]", self.version_key(version))
    }

    fn step_key(&self, step: Step) -> String {
        match step {
            Step::Version(version) => self.version_key(version),
            Step::Confirmation { version, player } => self.confirmation_key(version, player),
            Step::Dispute { version, player } => self.dispute_key(version, player),
        }
    }
}

/// Where a step falls when replayed: when it can have happened (not before its version), the
/// version it concerns, 0 for the version itself, its own time, its player.
type ReplayKey<T> = (T, u32, u8, T, Uuid);

/// The order in which a table's history happened: by time, each version after the one before
/// it, and whatever concerns a version after that version (a reporting player's confirmation can
/// carry a time a moment before its sheet's); at one time, a version before what concerns it,
/// then what concerns an earlier version first.
pub fn replay_order<T: Ord + Copy>(history: &TableHistory<T>) -> Vec<Step> {
    let mut versions: Vec<&VersionOf<T>> = history.versions.iter().collect();
    versions.sort_by_key(|v| v.version);
    let mut recorded: Vec<(u32, T)> = Vec::with_capacity(versions.len());
    for version in versions {
        let at = match recorded.last() {
            Some(&(_, before)) => before.max(version.recorded_at),
            None => version.recorded_at,
        };
        recorded.push((version.version, at));
    }
    let when = |version: u32| {
        recorded
            .iter()
            .find(|(v, _)| *v == version)
            .map(|(_, t)| *t)
    };
    let mut steps: Vec<(ReplayKey<T>, Step)> = recorded
        .iter()
        .map(|&(version, at)| ((at, version, 0, at, Uuid::nil()), Step::Version(version)))
        .collect();
    for c in &history.confirmations {
        if let Some(at) = when(c.version) {
            let step = Step::Confirmation {
                version: c.version,
                player: c.player,
            };
            steps.push((
                (
                    at.max(c.confirmed_at),
                    c.version,
                    1,
                    c.confirmed_at,
                    c.player,
                ),
                step,
            ));
        }
    }
    for d in &history.disputes {
        if let Some(at) = when(d.version) {
            let step = Step::Dispute {
                version: d.version,
                player: d.player,
            };
            steps.push((
                (at.max(d.created_at), d.version, 1, d.created_at, d.player),
                step,
            ));
        }
    }
    steps.sort_by_key(|(key, _)| *key);
    steps.into_iter().map(|(_, step)| step).collect()
}

/// The correction that resolves each dispute when the history is replayed: the first version
/// recorded after it (a director's correction resolves every open dispute of its table), or
/// `None` while none is. In the order of `history.disputes`.
pub fn resolutions<T: Ord + Copy>(history: &TableHistory<T>) -> Vec<Option<u32>> {
    let mut open: Vec<(u32, Uuid)> = Vec::new();
    let mut resolved: Vec<((u32, Uuid), u32)> = Vec::new();
    for step in replay_order(history) {
        match step {
            Step::Version(version) => {
                resolved.extend(open.drain(..).map(|dispute| (dispute, version)));
            }
            Step::Dispute { version, player } => open.push((version, player)),
            Step::Confirmation { .. } => {}
        }
    }
    history
        .disputes
        .iter()
        .map(|d| {
            resolved
                .iter()
                .find(|(dispute, _)| *dispute == (d.version, d.player))
                .map(|(_, by)| *by)
        })
        .collect()
}

/// Every way the histories are not ones the results service makes: a table given twice;
/// versions not numbered 1, 2, 3... in order; a confirmation or dispute of a version the table
/// lacks, by a player not seated there (`seated(round, table)`), or made twice; a dispute's
/// `resolved_by_version` other than the correction that follows it. Each names its table.
pub fn history_faults<T: Ord + Copy>(
    histories: &[TableHistory<T>],
    seated: impl Fn(u32, u32) -> Vec<Uuid>,
) -> Vec<Violation> {
    let mut faults = Vec::new();
    let mut fault = |field: String, code: RuleCode, message: String| {
        faults.push(Violation {
            field,
            code,
            message,
        })
    };
    let mut tables = HashSet::new();
    for history in histories {
        if !tables.insert((history.round, history.table)) {
            fault(
                history.key(),
                RuleCode::DuplicatePlayer,
                format!("{} is given twice", history.key()),
            );
            continue;
        }
        if history.versions.is_empty() {
            fault(
                format!("{}.versions", history.key()),
                RuleCode::OutOfRange,
                format!("{} has no version of its sheet", history.key()),
            );
        }
        for (expected, version) in (1_u32..).zip(&history.versions) {
            if version.version != expected {
                fault(
                    history.version_key(version.version),
                    RuleCode::OutOfRange,
                    format!(
                        "{}: versions are numbered 1, 2, 3... oldest first; this one is {expected}",
                        history.key()
                    ),
                );
            }
        }
        let has_version = |v: u32| history.versions.iter().any(|x| x.version == v);
        let seats = seated(history.round, history.table);
        let mut signed = HashSet::new();
        let signatures = history
            .confirmations
            .iter()
            .map(|c| {
                (
                    history.confirmation_key(c.version, c.player),
                    c.version,
                    c.player,
                )
            })
            .chain(history.disputes.iter().map(|d| {
                (
                    history.dispute_key(d.version, d.player),
                    d.version,
                    d.player,
                )
            }));
        for (key, version, player) in signatures {
            if !has_version(version) {
                fault(
                    key,
                    RuleCode::OutOfRange,
                    format!("{} has no version {version}", history.key()),
                );
            } else if !seats.contains(&player) {
                fault(
                    key,
                    RuleCode::UnknownPlayer,
                    format!("player {player} is not seated at {}", history.key()),
                );
            } else if !signed.insert(key.clone()) {
                fault(
                    key,
                    RuleCode::DuplicatePlayer,
                    format!("player {player} signs version {version} once"),
                );
            }
        }
        for (dispute, replayed) in history.disputes.iter().zip(resolutions(history)) {
            if has_version(dispute.version) && dispute.resolved_by_version != replayed {
                fault(
                    format!(
                        "{}.resolved_by_version",
                        history.dispute_key(dispute.version, dispute.player)
                    ),
                    RuleCode::OutOfRange,
                    match replayed {
                        Some(v) => format!("the correction that resolves it is version {v}"),
                        None => "no correction follows it: it is open".to_owned(),
                    },
                );
            }
        }
    }
    faults
}

/// What taking in a venue's results does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResultsPlan {
    /// For each table, what to add, in the order it happened (tables with nothing new left out);
    /// and how many records the federation had alike.
    Apply {
        tables: Vec<(u32, u32, Vec<Step>)>,
        unchanged: usize,
    },
    /// What differs between the federation's records and the venue's: nothing is taken in.
    Refuse(Vec<CopyDifference>),
}

/// How the venue's histories `theirs` (checked by [`history_faults`]) are taken in, given `ours`
/// (the federation's histories of tables `theirs` names). A version, confirmation or dispute
/// ours lacks is added; one ours has alike changes nothing; one that differs, or one only ours
/// has, is a difference. A dispute open in ours that `theirs` has resolved by a correction being
/// added is no difference: adding the correction resolves it.
pub fn plan_results<T: Ord + Copy + Debug>(
    ours: &[TableHistory<T>],
    theirs: &[TableHistory<T>],
) -> ResultsPlan {
    let mut differences = Vec::new();
    let mut tables = Vec::new();
    let mut unchanged = 0;
    for their in theirs {
        let empty = TableHistory {
            round: their.round,
            table: their.table,
            versions: Vec::new(),
            confirmations: Vec::new(),
            disputes: Vec::new(),
        };
        let our = ours
            .iter()
            .find(|o| (o.round, o.table) == (their.round, their.table))
            .unwrap_or(&empty);
        let our_versions: HashSet<u32> = our.versions.iter().map(|v| v.version).collect();
        let added_correction = |by: Option<u32>| by.is_some_and(|v| !our_versions.contains(&v));
        let mut our_records = records(our);
        // Ours open, theirs resolved by a correction ours lacks: ours as it will be.
        for record in &mut our_records {
            if let Some(d) = their.disputes.iter().find(|d| {
                record.key == their.dispute_key(d.version, d.player)
                    && added_correction(d.resolved_by_version)
            }) {
                record
                    .fields
                    .retain(|(name, _)| *name != "resolved_by_version");
                record
                    .fields
                    .push(("resolved_by_version", shown(&d.resolved_by_version)));
            }
        }
        let their_records = records(their);
        let mut known = HashSet::new();
        for record in &their_records {
            if let Some(mine) = our_records.iter().find(|r| r.key == record.key) {
                differences.extend(record_differences(mine, record));
                known.insert(record.key.clone());
                unchanged += 1;
            }
        }
        for mine in &our_records {
            if !their_records.iter().any(|r| r.key == mine.key) {
                differences.extend(mine.fields.iter().map(|(field, value)| CopyDifference {
                    record: mine.key.clone(),
                    field,
                    ours: Some(value.clone()),
                    theirs: None,
                }));
            }
        }
        let new: Vec<Step> = replay_order(their)
            .into_iter()
            .filter(|step| !known.contains(&their.step_key(*step)))
            .collect();
        if !new.is_empty() {
            tables.push((their.round, their.table, new));
        }
    }
    if differences.is_empty() {
        ResultsPlan::Apply { tables, unchanged }
    } else {
        ResultsPlan::Refuse(differences)
    }
}

fn shown<V: Debug>(value: &V) -> String {
    format!("{value:?}")
}

/// A table's records as compared: each version, confirmation and dispute under its key.
fn records<T: Debug>(history: &TableHistory<T>) -> Vec<CopyRecord> {
    let versions = history.versions.iter().map(|v| {
        CopyRecord::new(history.version_key(v.version))
            .with("sheet", v.sheet.clone())
            .with("recorded_by", v.recorded_by.to_string())
            .with("recorded_at", shown(&v.recorded_at))
    });
    let confirmations = history.confirmations.iter().map(|c| {
        CopyRecord::new(history.confirmation_key(c.version, c.player))
            .with("confirmed_at", shown(&c.confirmed_at))
            .with("on_behalf_by", shown(&c.on_behalf_by))
    });
    let disputes = history.disputes.iter().map(|d| {
        CopyRecord::new(history.dispute_key(d.version, d.player))
            .with("reason", d.reason.clone())
            .with("created_at", shown(&d.created_at))
            .with("resolved_by_version", shown(&d.resolved_by_version))
    });
    versions.chain(confirmations).chain(disputes).collect()
}

#[cfg(test)]
#[path = "venue_results_tests.rs"]
mod tests;
