//! Tests of when `round.started`, `round.ending` and `round.ended` fall due.

use super::tests::{
    EndEarly, ExtendRound, ExtendTable, Pause, Resume, Start, action, at, clock_of,
};
use super::*;
use std::num::NonZeroU32;

/// The notices as (webhook, due, announced), minutes after T0.
fn schedule(clock: &RoundClock, lead: u32) -> Vec<(&'static str, i64, i64)> {
    clock
        .notices(NonZeroU32::new(lead).unwrap())
        .iter()
        .map(|notice| {
            let offset = |instant: UnixMillis| (instant - at(0)) / MILLIS_PER_MINUTE;
            (
                notice.kind.event(),
                offset(notice.due_at),
                offset(notice.announces),
            )
        })
        .collect()
}

#[test]
fn a_round_untouched_gives_its_start_its_ending_lead_minutes_before_and_its_end() {
    let clock = clock_of(&[(0, Start { minutes: 90 })]);
    assert_eq!(
        schedule(&clock, 5),
        [
            ("round.started", 0, 0),
            ("round.ending", 85, 90),
            ("round.ended", 90, 90)
        ]
    );
    assert_eq!(schedule(&clock, 10)[1], ("round.ending", 80, 90));
}

#[test]
fn a_round_shorter_than_the_lead_says_it_is_ending_as_it_starts() {
    let clock = clock_of(&[(0, Start { minutes: 3 })]);
    assert_eq!(
        schedule(&clock, 5),
        [
            ("round.started", 0, 0),
            ("round.ending", 0, 3),
            ("round.ended", 3, 3)
        ]
    );
}

#[test]
fn an_extension_after_the_ending_notice_makes_a_new_one_due_for_the_new_end() {
    let clock = clock_of(&[
        (0, Start { minutes: 90 }),
        (87, ExtendRound { minutes: 10 }),
    ]);
    assert_eq!(
        schedule(&clock, 5),
        [
            ("round.started", 0, 0),
            ("round.ending", 85, 90),
            ("round.ending", 95, 100),
            ("round.ended", 100, 100)
        ]
    );
}

#[test]
fn an_end_moved_before_its_notice_was_due_never_gets_one() {
    let clock = clock_of(&[
        (0, Start { minutes: 90 }),
        (60, ExtendRound { minutes: 10 }),
    ]);
    assert_eq!(
        schedule(&clock, 5),
        [
            ("round.started", 0, 0),
            ("round.ending", 95, 100),
            ("round.ended", 100, 100)
        ]
    );
}

#[test]
fn a_pause_in_the_last_minutes_gives_a_new_ending_notice_when_the_clock_resumes() {
    let clock = clock_of(&[(0, Start { minutes: 90 }), (87, Pause), (97, Resume)]);
    assert_eq!(
        schedule(&clock, 5),
        [
            ("round.started", 0, 0),
            ("round.ending", 85, 90),
            ("round.ending", 97, 100),
            ("round.ended", 100, 100)
        ]
    );
}

#[test]
fn a_pause_before_the_last_minutes_only_moves_the_notice() {
    let clock = clock_of(&[(0, Start { minutes: 90 }), (30, Pause), (40, Resume)]);
    assert_eq!(
        schedule(&clock, 5),
        [
            ("round.started", 0, 0),
            ("round.ending", 95, 100),
            ("round.ended", 100, 100)
        ]
    );
    // While paused, only what was due already is known.
    let paused = clock_of(&[(0, Start { minutes: 90 }), (30, Pause)]);
    assert_eq!(schedule(&paused, 5), [("round.started", 0, 0)]);
}

#[test]
fn a_round_ended_early_is_ended_at_once_without_an_ending_notice() {
    let clock = clock_of(&[(0, Start { minutes: 90 }), (40, EndEarly)]);
    assert_eq!(
        schedule(&clock, 5),
        [("round.started", 0, 0), ("round.ended", 40, 40)]
    );
}

#[test]
fn tables_with_extra_minutes_delay_the_end_of_play_not_the_ending_notice() {
    let clock = clock_of(&[
        (0, Start { minutes: 90 }),
        (
            2,
            ExtendTable {
                table: 4,
                minutes: 8,
            },
        ),
    ]);
    assert_eq!(
        schedule(&clock, 5),
        [
            ("round.started", 0, 0),
            ("round.ending", 85, 90),
            ("round.ended", 98, 98)
        ]
    );
}

#[test]
fn notices_due_by_an_instant_are_those_the_clock_had_given_by_then() {
    let clock = clock_of(&[
        (0, Start { minutes: 90 }),
        (87, ExtendRound { minutes: 10 }),
    ]);
    let kinds = |now: i64| -> Vec<(NoticeKind, UnixMillis)> {
        clock
            .notices_due(DEFAULT_ENDING_NOTICE_MINUTES, at(now))
            .iter()
            .map(|notice| (notice.kind, notice.announces))
            .collect()
    };
    assert_eq!(kinds(-1), []);
    assert_eq!(kinds(84), [(NoticeKind::Started, at(0))]);
    assert_eq!(
        kinds(86),
        [(NoticeKind::Started, at(0)), (NoticeKind::Ending, at(90))]
    );
    assert_eq!(kinds(200).len(), 4);
    assert_eq!(kinds(200)[3], (NoticeKind::Ended, at(100)));
}

#[test]
fn a_notice_is_known_by_what_it_announces() {
    let mut clock = clock_of(&[(0, Start { minutes: 90 })]);
    let first = clock.notices(DEFAULT_ENDING_NOTICE_MINUTES)[1];
    // An action that leaves the end where it was does not make the notice again.
    clock
        .push(action(
            80,
            ExtendTable {
                table: 2,
                minutes: 1,
            },
        ))
        .unwrap();
    let again: Vec<Notice> = clock
        .notices(DEFAULT_ENDING_NOTICE_MINUTES)
        .into_iter()
        .filter(|notice| notice.kind == NoticeKind::Ending)
        .collect();
    assert_eq!(again, [first]);
    assert_eq!(first.key(), (NoticeKind::Ending, at(90)));
}
