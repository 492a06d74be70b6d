//! What `catan-suite venue publish` sends: the venue's event in three parts (registration,
//! rounds, results), each signed with the checkout's key, and the decisions publish takes on the
//! federation's answers, as pure functions.

use anyhow::Context;
use catan_api::{
    CopyCounts, Problem, RoundsCounts, VenueCopy, VenueCopyTaken, VenueResults, VenueResultsTaken,
    VenueRounds, VenueRoundsTaken,
};
use catan_kit::venue_signature::{SigningKey, sign};
use serde::Serialize;

/// The venue's event, read from the venue's suite: what the federation takes in, in this order.
#[derive(Debug, Clone)]
pub struct Bundle {
    pub registration: VenueCopy,
    pub rounds: VenueRounds,
    pub results: VenueResults,
}

/// A part with the venue's signature of its JSON, as it is sent (`Catan-Venue-Signature`).
#[derive(Debug, Clone)]
pub struct Signed<T> {
    pub part: T,
    pub signature: String,
}

/// The bundle, each part signed.
#[derive(Debug, Clone)]
pub struct SignedBundle {
    pub registration: Signed<VenueCopy>,
    pub rounds: Signed<VenueRounds>,
    pub results: Signed<VenueResults>,
}

impl Bundle {
    /// Each part signed with `key`: the signature of the exact JSON the client sends.
    pub fn signed(self, key: &SigningKey) -> anyhow::Result<SignedBundle> {
        Ok(SignedBundle {
            registration: signed(self.registration, key)?,
            rounds: signed(self.rounds, key)?,
            results: signed(self.results, key)?,
        })
    }
}

fn signed<T: Serialize>(part: T, key: &SigningKey) -> anyhow::Result<Signed<T>> {
    // The client sends `serde_json::to_vec` of the part: these very bytes are signed.
    let body = serde_json::to_vec(&part).context("writing a part as JSON")?;
    Ok(Signed {
        signature: sign(key, &body),
        part,
    })
}

/// The three parts, in the order they are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Registration,
    Rounds,
    Results,
}

impl Part {
    pub fn name(self) -> &'static str {
        match self {
            Part::Registration => "registration",
            Part::Rounds => "rounds",
            Part::Results => "results",
        }
    }
}

/// A kind of record, named for one and for several.
pub type Kind = (&'static str, &'static str);

/// What one part added (with a dry run, would add) and what the federation had alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    pub part: Part,
    pub dry_run: bool,
    /// Each kind (its name for one, for several) with its number added, then unchanged.
    pub kinds: Vec<(Kind, u32, u32)>,
}

impl Counted {
    /// Whether the part adds (or would add) anything.
    pub fn adds(&self) -> bool {
        self.kinds.iter().any(|(_, added, _)| *added > 0)
    }

    /// Totals: (added, unchanged).
    pub fn totals(&self) -> (u32, u32) {
        self.kinds
            .iter()
            .fold((0, 0), |(a, u), (_, added, unchanged)| {
                (a + added, u + unchanged)
            })
    }

    /// One line: "registration: added 1 player, 1 entry; unchanged 1 event, 15 players, ...".
    pub fn line(&self) -> String {
        let said = |pick: &dyn Fn(&(Kind, u32, u32)) -> u32| {
            let listed: Vec<String> = self
                .kinds
                .iter()
                .filter(|kind| pick(kind) > 0)
                .map(|kind| {
                    let n = pick(kind);
                    format!("{n} {}", if n == 1 { kind.0.0 } else { kind.0.1 })
                })
                .collect();
            if listed.is_empty() {
                "nothing".to_owned()
            } else {
                listed.join(", ")
            }
        };
        let (added, unchanged) = if self.dry_run {
            ("would add", "already there")
        } else {
            ("added", "unchanged")
        };
        format!(
            "{}: {added} {}; {unchanged} {}",
            self.part.name(),
            said(&|kind| kind.1),
            said(&|kind| kind.2)
        )
    }
}

impl From<&VenueCopyTaken> for Counted {
    fn from(taken: &VenueCopyTaken) -> Self {
        let (a, u): (CopyCounts, CopyCounts) = (taken.created, taken.unchanged);
        Counted {
            part: Part::Registration,
            dry_run: taken.dry_run,
            kinds: vec![
                (("region", "regions"), a.regions, u.regions),
                (("event", "events"), a.events, u.events),
                (("player", "players"), a.players, u.players),
                (("entry", "entries"), a.entries, u.entries),
                (
                    ("audit record", "audit records"),
                    a.audit_records,
                    u.audit_records,
                ),
                // An entry dropped or excluded at the venue changes the federation's.
                (("entry left", "entries left"), taken.entries_left, 0),
            ],
        }
    }
}

impl From<&VenueRoundsTaken> for Counted {
    fn from(taken: &VenueRoundsTaken) -> Self {
        let (a, u): (RoundsCounts, RoundsCounts) = (taken.added, taken.unchanged);
        Counted {
            part: Part::Rounds,
            dry_run: taken.dry_run,
            kinds: vec![
                (
                    ("participant", "participants"),
                    a.participants,
                    u.participants,
                ),
                (
                    ("keep-apart list", "keep-apart lists"),
                    a.keep_apart,
                    u.keep_apart,
                ),
                (("round", "rounds"), a.rounds, u.rounds),
                (("table", "tables"), a.tables, u.tables),
                (
                    ("clock action", "clock actions"),
                    a.clock_actions,
                    u.clock_actions,
                ),
            ],
        }
    }
}

impl From<&VenueResultsTaken> for Counted {
    fn from(taken: &VenueResultsTaken) -> Self {
        Counted {
            part: Part::Results,
            dry_run: taken.dry_run,
            kinds: vec![(
                (
                    "sheet version, confirmation or dispute",
                    "sheet versions, confirmations and disputes",
                ),
                taken.added,
                taken.unchanged,
            )],
        }
    }
}

/// What a part's dry run, sent before any part is applied, says.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The federation would take it in.
    Fits(Counted),
    /// It builds on what an earlier part adds, which the federation does not have yet: the
    /// federation judges it when it is sent, after those parts are in.
    Later(Problem),
    /// Refused: publish applies nothing.
    Refused(Problem),
}

/// The verdict on a part's dry run, given whether it awaits earlier parts (see
/// [`awaits_earlier_parts`]). A refusal that can only be about the order of the parts (a 422: a
/// seat of an entry, a table of a round, the federation lacks) waits for those parts when they
/// are not all in; a bad signature (401, 403), a contradiction (409) or a fault of a part whose
/// earlier parts are all in refuses the bundle.
pub fn verdict(outcome: Result<Counted, Problem>, awaits_earlier_parts: bool) -> Verdict {
    match outcome {
        Ok(counted) => Verdict::Fits(counted),
        Err(problem) if problem.status == 422 && awaits_earlier_parts => Verdict::Later(problem),
        Err(problem) => Verdict::Refused(problem),
    }
}

/// Whether the part judged next awaits parts before it that the federation does not have whole
/// yet, by the verdicts on them so far: one that adds something, one judged later (what it adds
/// is not known), one refused (its records are not there).
pub fn awaits_earlier_parts(verdicts: &[Verdict]) -> bool {
    verdicts.iter().any(|verdict| match verdict {
        Verdict::Fits(counted) => counted.adds(),
        Verdict::Later(_) | Verdict::Refused(_) => true,
    })
}

/// Every fault of a refusal, one a line: each field with its message, else the detail.
pub fn faults(part: Part, problem: &Problem) -> Vec<String> {
    let head = format!(
        "{} refused ({} {}): {}",
        part.name(),
        problem.status,
        problem.title,
        problem.detail
    );
    std::iter::once(head)
        .chain(
            problem
                .errors
                .iter()
                .map(|e| format!("  {}: {} ({})", e.field, e.message, e.code.as_str())),
        )
        .collect()
}

#[cfg(test)]
#[path = "bundle_tests.rs"]
mod tests;
