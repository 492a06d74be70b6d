//! Who may replace a table's recorded result, and which version a sheet becomes.
//!
//! A table's first sheet is version 1. The same sheet sent again changes nothing, whoever sends
//! it. Any other sheet for a table that has a result is a correction: only the tournament
//! director may make one, and only naming the version it corrects (`If-Match`), so two corrections
//! made at once cannot silently overwrite each other.

/// The result a table has now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    pub version: u32,
    /// Whether the new sheet is the same as the recorded one.
    pub same_sheet: bool,
}

/// The version a request says it corrects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precondition {
    /// No `If-Match`.
    Absent,
    /// `If-Match: *`: whatever version is current.
    AnyVersion,
    /// A version's tag; `None` when the tag names no version ever issued.
    Version(Option<u32>),
}

/// What to do with the sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// It is the recorded sheet: answer with the recorded result.
    Unchanged,
    /// Record it as this version.
    Record(u32),
}

/// Why a sheet is not recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The table has a result and the sender is not the director.
    OnlyTheDirectorCorrects,
    /// A correction that does not name the version it corrects.
    PreconditionRequired,
    /// The named version is not the current one.
    Stale { current: u32 },
    /// A version is named but the table has no result yet.
    NothingToMatch,
}

/// Decides what a sheet sent for a table becomes.
pub fn decide_version(
    recorded: Option<Recorded>,
    may_correct: bool,
    precondition: Precondition,
) -> Result<Decision, Refusal> {
    match (recorded, precondition) {
        (Some(current), _) if current.same_sheet => Ok(Decision::Unchanged),
        (Some(_), _) if !may_correct => Err(Refusal::OnlyTheDirectorCorrects),
        (Some(_), Precondition::Absent) => Err(Refusal::PreconditionRequired),
        (Some(current), Precondition::Version(named)) if named != Some(current.version) => {
            Err(Refusal::Stale {
                current: current.version,
            })
        }
        (Some(current), _) => Ok(Decision::Record(current.version + 1)),
        (None, Precondition::Absent) => Ok(Decision::Record(1)),
        (None, _) => Err(Refusal::NothingToMatch),
    }
}

/// What a table's result is, for voiding it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// No sheet was ever recorded.
    None,
    /// This version is the table's result.
    Current(u32),
    /// This version was voided: the table has no result.
    Voided(u32),
}

/// Why a table's result cannot be voided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VoidRefusal {
    /// The table has no result to void (none recorded, or voided already).
    #[error("the table has no result to void")]
    NoResult,
    /// The next round is drawn: its draw stood on this result, which now stays.
    #[error("round {next} is drawn already; a result of an earlier round can only be corrected")]
    NextRoundDrawn { next: u32 },
}

/// Whether the director may void the result of a table of round `round` (the director alone
/// asks; the service checks who): while it has one and round `round + 1` is not drawn. Its
/// version stays in the history, marked voided, and the next sheet is the version after it.
pub fn may_void(standing: Standing, round: u32, next_drawn: bool) -> Result<u32, VoidRefusal> {
    match standing {
        Standing::Current(_) if next_drawn => Err(VoidRefusal::NextRoundDrawn { next: round + 1 }),
        Standing::Current(version) => Ok(version),
        Standing::None | Standing::Voided(_) => Err(VoidRefusal::NoResult),
    }
}

/// [`decide_version`] for a table whose result `voided` was voided: it has none, so the sheet is
/// decided as a first one, recorded as the version after the voided one.
pub fn decide_after_void(
    voided: u32,
    may_correct: bool,
    precondition: Precondition,
) -> Result<Decision, Refusal> {
    decide_version(None, may_correct, precondition).map(|decision| match decision {
        Decision::Record(first) => Decision::Record(voided + first),
        Decision::Unchanged => Decision::Unchanged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_is_voided_only_while_it_stands_and_before_the_next_round_is_drawn() {
        assert_eq!(may_void(Standing::Current(2), 3, false), Ok(2));
        assert_eq!(
            may_void(Standing::Current(2), 3, true),
            Err(VoidRefusal::NextRoundDrawn { next: 4 })
        );
        for nothing in [Standing::None, Standing::Voided(2)] {
            assert_eq!(may_void(nothing, 3, false), Err(VoidRefusal::NoResult));
        }
    }

    #[test]
    fn a_sheet_after_a_void_is_the_next_version_from_anyone() {
        assert_eq!(
            decide_after_void(2, false, Precondition::Absent),
            Ok(Decision::Record(3))
        );
        assert_eq!(
            decide_after_void(2, true, Precondition::AnyVersion),
            Err(Refusal::NothingToMatch)
        );
    }

    const V2_OTHER: Recorded = Recorded {
        version: 2,
        same_sheet: false,
    };
    const V2_SAME: Recorded = Recorded {
        version: 2,
        same_sheet: true,
    };

    #[test]
    fn a_first_sheet_is_version_one_and_cannot_name_a_version() {
        assert_eq!(
            decide_version(None, false, Precondition::Absent),
            Ok(Decision::Record(1))
        );
        for named in [Precondition::AnyVersion, Precondition::Version(Some(1))] {
            assert_eq!(
                decide_version(None, true, named),
                Err(Refusal::NothingToMatch)
            );
        }
    }

    #[test]
    fn the_same_sheet_again_changes_nothing_whoever_sends_it() {
        for (may_correct, precondition) in [
            (false, Precondition::Absent),
            (true, Precondition::Absent),
            (true, Precondition::Version(Some(1))),
        ] {
            assert_eq!(
                decide_version(Some(V2_SAME), may_correct, precondition),
                Ok(Decision::Unchanged)
            );
        }
    }

    #[test]
    fn only_the_director_corrects_and_only_naming_the_current_version() {
        assert_eq!(
            decide_version(Some(V2_OTHER), false, Precondition::Version(Some(2))),
            Err(Refusal::OnlyTheDirectorCorrects)
        );
        assert_eq!(
            decide_version(Some(V2_OTHER), true, Precondition::Absent),
            Err(Refusal::PreconditionRequired)
        );
        for stale in [Some(1), Some(3), None] {
            assert_eq!(
                decide_version(Some(V2_OTHER), true, Precondition::Version(stale)),
                Err(Refusal::Stale { current: 2 })
            );
        }
        for current in [Precondition::Version(Some(2)), Precondition::AnyVersion] {
            assert_eq!(
                decide_version(Some(V2_OTHER), true, current),
                Ok(Decision::Record(3))
            );
        }
    }
}
