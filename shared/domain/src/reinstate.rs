//! Undoing a drop (issue 41, item 3): a dropped or excluded entry comes back while no round has
//! been drawn since it left, so that it misses no round it would have been seated in.

use std::fmt;

/// Why an entry cannot be reinstated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReinstateRefusal {
    /// The entry is in the event: there is nothing to undo.
    Active,
    /// Round `round` was drawn after the entry left: it was not seated there, and a round once
    /// played is not drawn again with it.
    DrawnSince { round: u32 },
}

impl fmt::Display for ReinstateRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReinstateRefusal::Active => write!(f, "the entry is active: it was not dropped"),
            ReinstateRefusal::DrawnSince { round } => write!(
                f,
                "round {round} was drawn after the entry was dropped: an entry is reinstated only \
                 before the next round is drawn (enter the player again for a later event)"
            ),
        }
    }
}

/// Whether an entry that left at `left_at` (`None`: it is active) may come back, when the
/// event's rounds were drawn at `rounds` (number, when drawn): only before the first round drawn
/// since it left. `T` is a point in time (or anything ordered as the draws and the drop are).
pub fn may_reinstate<T: Ord>(
    left_at: Option<&T>,
    rounds: &[(u32, T)],
) -> Result<(), ReinstateRefusal> {
    let left_at = left_at.ok_or(ReinstateRefusal::Active)?;
    match rounds
        .iter()
        .filter(|(_, drawn)| drawn > left_at)
        .map(|(round, _)| *round)
        .min()
    {
        Some(round) => Err(ReinstateRefusal::DrawnSince { round }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drop_is_undone_before_the_next_draw_whatever_was_drawn_before_it() {
        // Rounds 1 and 2 drawn at 10 and 20; the player left at 25 (during round 2).
        assert_eq!(may_reinstate(Some(&25), &[(1, 10), (2, 20)]), Ok(()));
        assert_eq!(may_reinstate(Some(&5), &[]), Ok(()));
    }

    #[test]
    fn a_round_drawn_since_the_drop_keeps_it() {
        assert_eq!(
            may_reinstate(Some(&15), &[(1, 10), (2, 20), (3, 30)]),
            Err(ReinstateRefusal::DrawnSince { round: 2 })
        );
        let said = ReinstateRefusal::DrawnSince { round: 2 }.to_string();
        assert!(
            said.starts_with("round 2 was drawn after the entry was dropped"),
            "{said}"
        );
    }

    #[test]
    fn an_active_entry_has_no_drop_to_undo() {
        assert_eq!(
            may_reinstate::<u32>(None, &[]),
            Err(ReinstateRefusal::Active)
        );
    }
}
