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

#[cfg(test)]
mod tests {
    use super::*;

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
