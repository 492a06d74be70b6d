//! Random clock logs for the property tests: a start, then actions at random gaps, each kept
//! only if the clock allows it, so every log is one a director could have made.

use proptest::prelude::*;

use super::tests::T0;
use super::{ClockAction, DirectorAction, RoundClock, TableNumber};

/// Tables the readings look at: the actions give extra minutes to tables 1 to 3, never to 4.
pub(super) const TABLES: [TableNumber; 4] = [1, 2, 3, 4];

fn director_action() -> impl Strategy<Value = DirectorAction> {
    prop_oneof![
        4 => Just(DirectorAction::Pause),
        4 => Just(DirectorAction::Resume),
        3 => (1..=20_i64).prop_map(|minutes| DirectorAction::ExtendRound { minutes }),
        4 => (1..=3_u32, 1..=15_i64)
            .prop_map(|(table, minutes)| DirectorAction::ExtendTable { table, minutes }),
        1 => Just(DirectorAction::EndEarly),
    ]
}

fn gap_seconds() -> impl Strategy<Value = i64> {
    prop_oneof![1 => Just(0_i64), 3 => 1..=300_i64, 2 => 1..=1_800_i64]
}

/// A clock started at T0 and the actions after it, some at the same instant, many in the
/// round's last minutes; a gap is whole seconds, so that instants fall between minutes.
pub(super) fn valid_clock() -> impl Strategy<Value = RoundClock> {
    (
        1..=60_i64,
        prop::collection::vec((gap_seconds(), director_action()), 0..12),
    )
        .prop_map(|(minutes, later)| {
            let mut clock = RoundClock::new();
            clock
                .push(ClockAction::new(T0, DirectorAction::Start { minutes }))
                .unwrap();
            let mut at = T0;
            for (gap_seconds, action) in later {
                at += gap_seconds * 1000;
                // A refused action is one the director could not have taken: leave it out.
                let _refused = clock.push(ClockAction::new(at, action));
            }
            clock
        })
}

/// Instants to read the clock at: from before the start to well after its last action, some
/// on an action's instant.
pub(super) fn instants(clock: &RoundClock) -> Vec<i64> {
    let last = clock.last_action_at().unwrap_or(T0);
    let mut instants: Vec<i64> = clock.actions().iter().map(|action| action.at).collect();
    let span = last - T0 + 4 * 3_600_000;
    instants.extend((0..=40).map(|step| T0 - 1000 + span * step / 40 + step * 7));
    instants.sort_unstable();
    instants.dedup();
    instants
}
