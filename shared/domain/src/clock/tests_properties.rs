//! Properties of the clock over random logs a director could have made.

use std::num::NonZeroU32;

use proptest::prelude::*;

use super::strategies::{TABLES, instants, valid_clock};
use super::tests::T0;
use super::*;

/// The minutes `clock` gives table `table` (the round's when `None`) by actions in `(from, to]`.
fn extended_ms(
    clock: &RoundClock,
    table: Option<TableNumber>,
    from: UnixMillis,
    to: UnixMillis,
) -> i64 {
    let given: i64 = clock
        .actions()
        .iter()
        .filter(|action| from < action.at && action.at <= to)
        .map(|action| match action.action {
            DirectorAction::ExtendRound { minutes } => minutes,
            DirectorAction::ExtendTable { table: to, minutes } if Some(to) == table => minutes,
            _ => 0,
        })
        .sum();
    given * MILLIS_PER_MINUTE
}

fn ended_early_at(clock: &RoundClock) -> Option<UnixMillis> {
    clock
        .actions()
        .iter()
        .find(|action| action.action == DirectorAction::EndEarly)
        .map(|action| action.at)
}

/// For each action of `kind` that is the last of its instant: its instant, and the next action's
/// (three hours later when none).
fn settled_after(clock: &RoundClock, kind: DirectorAction) -> Vec<(UnixMillis, UnixMillis)> {
    let actions = clock.actions();
    actions
        .iter()
        .zip(actions.iter().skip(1).map(Some).chain([None]))
        .filter(|(action, next)| {
            action.action == kind && next.is_none_or(|next| next.at > action.at)
        })
        .map(|(action, next)| {
            (
                action.at,
                next.map_or(action.at + 3 * 3_600_000, |next| next.at),
            )
        })
        .collect()
}

/// Pairs of instants read, the earlier first.
fn pairs(instants: &[UnixMillis]) -> impl Iterator<Item = (UnixMillis, UnixMillis)> + '_ {
    instants
        .iter()
        .enumerate()
        .flat_map(move |(index, &from)| instants[index + 1..].iter().map(move |&to| (from, to)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn time_left_is_frozen_while_paused(clock in valid_clock()) {
        for (paused_at, until) in settled_after(&clock, DirectorAction::Pause) {
            let round = clock.round_at(paused_at);
            prop_assert_eq!(round.state, RoundState::Paused);
            let tables: Vec<TableReading> = TABLES.iter().map(|&table| clock.table_at(table, paused_at)).collect();
            for at in [paused_at + 1, (paused_at + until) / 2, until - 1] {
                prop_assert_eq!(clock.round_at(at), round);
                for reading in &tables {
                    prop_assert_eq!(clock.table_at(reading.table, at), *reading);
                    prop_assert!(reading.time_up || reading.ends_at.is_none());
                }
            }
        }
    }

    #[test]
    fn each_action_does_what_it_says(clock in valid_clock()) {
        let start = clock.actions()[0].action;
        for kind in [start, DirectorAction::Resume, DirectorAction::EndEarly] {
            for (at, _) in settled_after(&clock, kind) {
                let state = clock.round_at(at).state;
                match kind {
                    DirectorAction::EndEarly => prop_assert_eq!(state, RoundState::Ended),
                    _ => prop_assert!(matches!(state, RoundState::Running | RoundState::Overtime), "{:?}", state),
                }
            }
        }
    }

    #[test]
    fn time_left_grows_only_by_extensions_and_falls_no_faster_than_time(clock in valid_clock()) {
        for (from, to) in pairs(&instants(&clock)) {
            let readings = std::iter::once((None, clock.round_at(from).time_left_ms, clock.round_at(to).time_left_ms))
                .chain(TABLES.iter().map(|&table| {
                    (Some(table), clock.table_at(table, from).time_left_ms, clock.table_at(table, to).time_left_ms)
                }));
            for (table, before, after) in readings {
                let (Some(before), Some(after)) = (before, after) else { continue };
                let extended = extended_ms(&clock, table, from, to);
                prop_assert!(after <= before + extended, "table {:?}: {} then {} after {} more", table, before, after, extended);
                if ended_early_at(&clock).is_none_or(|ended| ended > to) {
                    prop_assert!(after >= before - (to - from), "table {:?} lost more than {} ms", table, to - from);
                }
            }
        }
    }

    #[test]
    fn a_table_ends_no_sooner_than_the_round_and_by_its_extra_minutes_later(clock in valid_clock()) {
        for at in instants(&clock) {
            let round = clock.round_at(at);
            for table in TABLES {
                let reading = clock.table_at(table, at);
                prop_assert!(reading.time_left_ms >= round.time_left_ms);
                if reading.extra_minutes == 0 {
                    prop_assert_eq!((reading.time_left_ms, reading.ends_at), (round.time_left_ms, round.ends_at));
                }
                if let (Some(table_end), Some(round_end)) = (reading.ends_at, round.ends_at) {
                    prop_assert!(table_end >= round_end);
                    if ended_early_at(&clock).is_none_or(|ended| ended > at) {
                        prop_assert!(table_end >= round_end + reading.extra_minutes * MILLIS_PER_MINUTE);
                    }
                }
            }
        }
    }

    #[test]
    fn a_counting_clock_ends_its_time_left_from_now_and_a_paused_one_has_no_end(clock in valid_clock()) {
        for at in instants(&clock) {
            let state = clock.round_at(at).state;
            for table in TABLES {
                let reading = clock.table_at(table, at);
                let Some(left) = reading.time_left_ms.filter(|&left| left > 0) else { continue };
                match state {
                    RoundState::Running | RoundState::Overtime => prop_assert_eq!(reading.ends_at, Some(at + left)),
                    RoundState::Paused => prop_assert_eq!(reading.ends_at, None),
                    RoundState::NotStarted | RoundState::Ended => prop_assert!(false, "{:?} with time left", state),
                }
            }
        }
    }

    #[test]
    fn the_state_says_which_tables_still_play_and_an_end_is_for_good(clock in valid_clock()) {
        let instants = instants(&clock);
        for &at in &instants {
            let round = clock.round_at(at);
            let up: Vec<bool> = TABLES.iter().map(|&table| clock.table_at(table, at).time_up).collect();
            prop_assert_eq!(round.state == RoundState::NotStarted, at < T0);
            prop_assert_eq!(round.state == RoundState::Ended, up.iter().all(|&up| up));
            if round.state == RoundState::Overtime {
                prop_assert_eq!(round.time_left_ms, Some(0));
            }
            if round.state == RoundState::Running {
                prop_assert!(round.time_left_ms > Some(0));
            }
            if ended_early_at(&clock).is_some_and(|ended| ended <= at) {
                prop_assert!(up.iter().all(|&up| up));
            }
        }
        for (from, to) in pairs(&instants) {
            for table in TABLES {
                let before = clock.table_at(table, from);
                if before.time_up {
                    let after = clock.table_at(table, to);
                    prop_assert!(after.time_up, "table {} got time back", table);
                    prop_assert_eq!(after.ends_at, before.ends_at);
                }
            }
        }
    }

    #[test]
    fn each_notice_announces_what_the_clock_reads_when_it_falls_due(clock in valid_clock(), lead in 1..=15_u32) {
        let notices = clock.notices(NonZeroU32::new(lead).unwrap());
        prop_assert!(notices.windows(2).all(|pair| pair[0].due_at <= pair[1].due_at));
        prop_assert_eq!(notices.first().map(|n| (n.kind, n.due_at)), Some((NoticeKind::Started, T0)));
        let lead_ms = i64::from(lead) * MILLIS_PER_MINUTE;
        for notice in &notices {
            match notice.kind {
                NoticeKind::Started => prop_assert_eq!(notice.announces, T0),
                NoticeKind::Ending => {
                    prop_assert!(notice.announces - lead_ms <= notice.due_at && notice.due_at < notice.announces);
                    let round = clock.round_at(notice.due_at);
                    prop_assert_eq!(round.ends_at, Some(notice.announces));
                    prop_assert_eq!(round.state, RoundState::Running);
                }
                NoticeKind::Ended => {
                    prop_assert_eq!(notice.due_at, notice.announces);
                    prop_assert_eq!(clock.round_at(notice.announces).state, RoundState::Ended);
                    prop_assert_ne!(clock.round_at(notice.announces - 1).state, RoundState::Ended);
                }
            }
        }
        let ended: Vec<_> = notices.iter().filter(|n| n.kind == NoticeKind::Ended).collect();
        let last_state = clock.round_at(LATEST_INSTANT).state;
        prop_assert_eq!(ended.len(), usize::from(last_state == RoundState::Ended));
        // A round whose own time ran out said it was ending, for the end it had.
        let round_end = clock.round_at(LATEST_INSTANT).ends_at;
        if ended_early_at(&clock).is_none() && last_state != RoundState::Paused {
            prop_assert!(notices.iter().any(|n| n.kind == NoticeKind::Ending && Some(n.announces) == round_end));
        }
    }

    #[test]
    fn a_notice_once_due_stays_due_whatever_the_director_does_next(clock in valid_clock(), lead in 1..=15_u32) {
        let lead = NonZeroU32::new(lead).unwrap();
        for at in instants(&clock) {
            let due_then = clock.as_of(at).notices(lead);
            let due_then: Vec<_> = due_then.into_iter().filter(|notice| notice.due_at <= at).collect();
            prop_assert_eq!(clock.notices_due(lead, at), due_then.clone());
            let due_now = clock.notices(lead);
            for notice in due_then {
                prop_assert!(due_now.contains(&notice), "{:?} is no longer due", notice);
            }
        }
    }
}
