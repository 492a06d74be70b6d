//! Tests of the round's clock: what it reads, the actions it refuses, the defaults and the
//! results sheets it lets through.

use super::*;
use crate::partner::PartnerSettings;
use crate::results::{OutcomeKind, Stage};

/// 2026-04-18 09:00 UTC, the round's start in these tests.
pub(super) const T0: UnixMillis = 1_776_502_800_000;

pub(super) fn minutes(count: i64) -> i64 {
    count * MILLIS_PER_MINUTE
}

/// The instant `offset` minutes after [`T0`].
pub(super) fn at(offset: i64) -> UnixMillis {
    T0 + minutes(offset)
}

pub(super) fn action(offset: i64, action: DirectorAction) -> ClockAction {
    ClockAction::new(at(offset), action)
}

/// A clock from actions each `(minutes after T0, action)`; every one must be allowed.
pub(super) fn clock_of(actions: &[(i64, DirectorAction)]) -> RoundClock {
    let log: Vec<ClockAction> = actions
        .iter()
        .map(|&(offset, a)| action(offset, a))
        .collect();
    RoundClock::from_log(&log).unwrap()
}

pub(super) use DirectorAction::{EndEarly, ExtendRound, ExtendTable, Pause, Resume, Start};

#[test]
fn a_started_round_counts_down_to_its_end_and_then_is_over() {
    let clock = clock_of(&[(0, Start { minutes: 90 })]);
    let before = clock.round_at(at(-1));
    assert_eq!(before.state, RoundState::NotStarted);
    assert_eq!((before.time_left_ms, before.ends_at), (None, None));

    let half_way = clock.round_at(at(45));
    assert_eq!(half_way.state, RoundState::Running);
    assert_eq!(half_way.time_left_ms, Some(minutes(45)));
    assert_eq!(half_way.ends_at, Some(at(90)));

    let one_second_before = clock.table_at(4, at(90) - 1000);
    assert_eq!(one_second_before.time_left_ms, Some(1000));
    assert!(!one_second_before.time_up);

    let end = clock.round_at(at(90));
    assert_eq!(end.state, RoundState::Ended);
    assert_eq!(end.time_left_ms, Some(0));
    assert_eq!(end.ends_at, Some(at(90)));
    let table = clock.table_at(4, at(200));
    assert!(table.time_up);
    assert_eq!((table.time_left_ms, table.ends_at), (Some(0), Some(at(90))));
}

#[test]
fn a_pause_freezes_the_time_left_and_the_clock_has_no_end_until_it_resumes() {
    let clock = clock_of(&[(0, Start { minutes: 90 }), (10, Pause), (50, Resume)]);
    for offset in [10, 30, 49] {
        let paused = clock.round_at(at(offset));
        assert_eq!(paused.state, RoundState::Paused);
        assert_eq!(paused.time_left_ms, Some(minutes(80)), "at +{offset}");
        assert_eq!(paused.ends_at, None);
        assert_eq!(clock.table_at(1, at(offset)).ends_at, None);
    }
    let resumed = clock.round_at(at(50));
    assert_eq!(resumed.state, RoundState::Running);
    assert_eq!(resumed.ends_at, Some(at(130)));
    assert_eq!(clock.round_at(at(129)).time_left_ms, Some(minutes(1)));
    assert_eq!(clock.round_at(at(130)).state, RoundState::Ended);
}

#[test]
fn extending_the_round_moves_every_tables_end_running_or_paused() {
    let clock = clock_of(&[
        (0, Start { minutes: 60 }),
        (20, ExtendRound { minutes: 10 }),
        (30, Pause),
        (35, ExtendRound { minutes: 5 }),
        (40, Resume),
    ]);
    assert_eq!(clock.round_at(at(25)).ends_at, Some(at(70)));
    assert_eq!(clock.round_at(at(36)).time_left_ms, Some(minutes(45)));
    // 75 minutes of running time, 10 of them paused.
    assert_eq!(clock.round_at(at(40)).ends_at, Some(at(85)));
    assert_eq!(clock.table_at(7, at(40)).ends_at, Some(at(85)));
}

#[test]
fn a_table_given_extra_minutes_plays_on_after_the_round_is_up() {
    let clock = clock_of(&[
        (0, Start { minutes: 90 }),
        (
            3,
            ExtendTable {
                table: 5,
                minutes: 7,
            },
        ),
    ]);
    let late = clock.table_at(5, at(90));
    assert_eq!(late.extra_minutes, 7);
    assert_eq!(late.time_left_ms, Some(minutes(7)));
    assert_eq!(late.ends_at, Some(at(97)));
    assert!(!late.time_up);
    assert!(clock.table_at(1, at(90)).time_up);

    let round = clock.round_at(at(90));
    assert_eq!(round.state, RoundState::Overtime);
    assert_eq!((round.time_left_ms, round.ends_at), (Some(0), Some(at(90))));
    assert_eq!(clock.round_at(at(97)).state, RoundState::Ended);
    assert!(clock.table_at(5, at(97)).time_up);
}

#[test]
fn a_pause_in_overtime_freezes_the_tables_still_playing() {
    let clock = clock_of(&[
        (0, Start { minutes: 60 }),
        (
            1,
            ExtendTable {
                table: 2,
                minutes: 10,
            },
        ),
        (64, Pause),
        (70, Resume),
    ]);
    let paused = clock.table_at(2, at(68));
    assert_eq!(clock.round_at(at(68)).state, RoundState::Paused);
    assert_eq!(
        (paused.time_left_ms, paused.ends_at),
        (Some(minutes(6)), None)
    );
    // A table whose time ran out keeps the instant it did.
    assert_eq!(clock.table_at(1, at(68)).ends_at, Some(at(60)));
    assert_eq!(clock.table_at(2, at(70)).ends_at, Some(at(76)));
}

#[test]
fn ending_early_stops_every_table_at_once_extra_minutes_too() {
    let clock = clock_of(&[
        (0, Start { minutes: 90 }),
        (
            2,
            ExtendTable {
                table: 3,
                minutes: 10,
            },
        ),
        (40, EndEarly),
    ]);
    assert_eq!(clock.round_at(at(39)).state, RoundState::Running);
    let round = clock.round_at(at(40));
    assert_eq!(round.state, RoundState::Ended);
    assert_eq!((round.time_left_ms, round.ends_at), (Some(0), Some(at(40))));
    for table in [1, 3] {
        let reading = clock.table_at(table, at(40));
        assert!(reading.time_up, "table {table}");
        assert_eq!(reading.ends_at, Some(at(40)));
    }
}

#[test]
fn ending_early_while_paused_ends_at_that_instant() {
    let clock = clock_of(&[(0, Start { minutes: 90 }), (30, Pause), (45, EndEarly)]);
    assert_eq!(clock.round_at(at(44)).ends_at, None);
    assert_eq!(clock.round_at(at(45)).ends_at, Some(at(45)));
    assert!(clock.table_at(1, at(45)).time_up);
}

#[test]
fn a_reading_of_the_past_ignores_the_actions_taken_since() {
    let clock = clock_of(&[
        (0, Start { minutes: 90 }),
        (60, ExtendRound { minutes: 30 }),
    ]);
    assert_eq!(clock.round_at(at(59)).ends_at, Some(at(90)));
    assert_eq!(clock.round_at(at(60)).ends_at, Some(at(120)));
}

#[test]
fn a_reading_names_the_server_time_and_each_table_asked_for() {
    let clock = clock_of(&[
        (0, Start { minutes: 60 }),
        (
            1,
            ExtendTable {
                table: 2,
                minutes: 5,
            },
        ),
    ]);
    let reading = clock.reading_at(at(10), &[1, 2]);
    assert_eq!(reading.at, at(10));
    assert_eq!(reading.round.ends_at, Some(at(60)));
    let ends: Vec<_> = reading
        .tables
        .iter()
        .map(|t| (t.table, t.ends_at))
        .collect();
    assert_eq!(ends, [(1, Some(at(60))), (2, Some(at(65)))]);
}

/// The error the clock of `actions` gives to `next`, `offset` minutes after T0.
fn refusal(actions: &[(i64, DirectorAction)], offset: i64, next: DirectorAction) -> ClockError {
    let mut clock = clock_of(actions);
    let before = clock.clone();
    let error = clock.push(action(offset, next)).unwrap_err();
    assert_eq!(clock, before, "a refused action changes nothing");
    error
}

#[test]
fn actions_the_clock_is_not_in_a_state_for_are_refused() {
    let started = [(0, Start { minutes: 60 })];
    let paused = [(0, Start { minutes: 60 }), (5, Pause)];
    let cases = [
        (&[][..], 0, Pause, ClockError::NotStarted),
        (&[], 0, Resume, ClockError::NotStarted),
        (&[], 0, ExtendRound { minutes: 5 }, ClockError::NotStarted),
        (
            &[],
            0,
            ExtendTable {
                table: 1,
                minutes: 5,
            },
            ClockError::NotStarted,
        ),
        (&[], 0, EndEarly, ClockError::NotStarted),
        (
            &started,
            1,
            Start { minutes: 60 },
            ClockError::AlreadyStarted,
        ),
        (&started, 1, Resume, ClockError::NotPaused),
        (&paused, 6, Pause, ClockError::NotRunning),
    ];
    for (actions, offset, next, expected) in cases {
        assert_eq!(refusal(actions, offset, next), expected, "{next:?}");
    }
}

#[test]
fn nothing_is_allowed_after_the_end_whether_it_came_early_or_on_time() {
    let ended_early = [(0, Start { minutes: 60 }), (10, EndEarly)];
    let on_time = [(0, Start { minutes: 60 })];
    for next in [Pause, Resume, ExtendRound { minutes: 5 }, EndEarly] {
        assert_eq!(refusal(&ended_early, 11, next), ClockError::Ended);
        assert_eq!(refusal(&on_time, 60, next), ClockError::Ended);
    }
    assert_eq!(
        refusal(&on_time, 60, Start { minutes: 60 }),
        ClockError::AlreadyStarted
    );
}

#[test]
fn once_the_rounds_time_is_up_only_tables_still_playing_get_more() {
    let overtime = [
        (0, Start { minutes: 60 }),
        (
            1,
            ExtendTable {
                table: 2,
                minutes: 10,
            },
        ),
    ];
    assert_eq!(
        refusal(&overtime, 61, ExtendRound { minutes: 5 }),
        ClockError::RoundTimeUp
    );
    let stopped_table = ExtendTable {
        table: 1,
        minutes: 5,
    };
    assert_eq!(
        refusal(&overtime, 61, stopped_table),
        ClockError::TableTimeUp { table: 1 }
    );
    let mut clock = clock_of(&overtime);
    clock
        .push(action(
            61,
            ExtendTable {
                table: 2,
                minutes: 5,
            },
        ))
        .unwrap();
    assert_eq!(clock.table_at(2, at(61)).ends_at, Some(at(75)));
}

#[test]
fn minutes_must_be_whole_positive_and_at_most_a_day() {
    let started = [(0, Start { minutes: 60 })];
    for bad in [0, -5, MAX_MINUTES + 1] {
        let expected = ClockError::MinutesOutOfRange { minutes: bad };
        assert_eq!(refusal(&[], 0, Start { minutes: bad }), expected);
        assert_eq!(refusal(&started, 1, ExtendRound { minutes: bad }), expected);
        let table = ExtendTable {
            table: 1,
            minutes: bad,
        };
        assert_eq!(refusal(&started, 1, table), expected);
    }
    assert!(
        RoundClock::from_log(&[action(
            0,
            Start {
                minutes: MAX_MINUTES
            }
        )])
        .is_ok()
    );
}

#[test]
fn actions_come_in_time_order_and_within_the_instants_the_clock_takes() {
    assert_eq!(
        refusal(&[(0, Start { minutes: 60 }), (5, Pause)], 4, Resume),
        ClockError::OutOfOrder {
            at: at(4),
            previous: at(5)
        }
    );
    let mut clock = RoundClock::new();
    for instant in [-1, LATEST_INSTANT + 1] {
        let start = ClockAction::new(instant, Start { minutes: 60 });
        assert_eq!(
            clock.push(start),
            Err(ClockError::InstantOutOfRange { at: instant })
        );
    }
    // Two actions at one instant are taken in the log's order.
    let same_instant = clock_of(&[(0, Start { minutes: 60 }), (5, Pause), (5, Resume)]);
    assert_eq!(same_instant.round_at(at(5)).state, RoundState::Running);
}

#[test]
fn a_stored_log_is_checked_again_and_names_the_action_refused() {
    let log = [
        action(0, Start { minutes: 60 }),
        action(5, Resume),
        action(6, Pause),
    ];
    assert_eq!(
        RoundClock::from_log(&log),
        Err(InvalidLog {
            index: 1,
            error: ClockError::NotPaused
        })
    );
}

#[test]
fn actions_are_stored_as_json_with_their_kind_and_instant() {
    let extend = action(
        3,
        ExtendTable {
            table: 5,
            minutes: 7,
        },
    );
    let json = serde_json::to_value(extend).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"at": at(3), "action": {"kind": "extend_table", "table": 5, "minutes": 7}})
    );
    assert_eq!(serde_json::from_value::<ClockAction>(json).unwrap(), extend);
    let states = serde_json::to_value([RoundState::NotStarted, RoundState::Overtime]).unwrap();
    assert_eq!(states, serde_json::json!(["not_started", "overtime"]));
}

#[test]
fn a_classic_game_defaults_to_ninety_minutes_a_partner_game_to_sixty_a_final_to_none() {
    assert_eq!(default_minutes_per_game(Stage::Qualifying), Some(90));
    assert_eq!(default_minutes_per_game(Stage::Semifinal), Some(90));
    assert_eq!(
        default_minutes_per_game(Stage::Swiss),
        Some(PartnerSettings::default().minutes_per_game)
    );
    assert_eq!(default_minutes_per_game(Stage::Swiss), Some(60));
    assert_eq!(default_minutes_per_game(Stage::Final), None);
}

fn time_limit(
    clock: &RoundClock,
    table: TableNumber,
    offset: i64,
    reason: Option<&str>,
) -> Result<SheetTiming, TimingRefusal> {
    admit_sheet(clock, table, at(offset), OutcomeKind::TimeLimit, reason)
}

#[test]
fn a_time_limit_sheet_is_refused_until_the_tables_time_is_up() {
    let clock = clock_of(&[
        (0, Start { minutes: 90 }),
        (
            1,
            ExtendTable {
                table: 5,
                minutes: 7,
            },
        ),
    ]);
    let refused = time_limit(&clock, 1, 1, None).unwrap_err();
    assert_eq!(
        refused,
        TimingRefusal::TimeNotUp {
            time_left_ms: minutes(89),
            ends_at: Some(at(90))
        }
    );
    assert_eq!(
        (refused.field(), refused.code()),
        ("outcome", "time_not_up")
    );
    assert_eq!(time_limit(&clock, 1, 90, None), Ok(SheetTiming::OnTime));
    // The table given extra minutes waits for its own end.
    assert!(time_limit(&clock, 5, 90, None).is_err());
    assert_eq!(time_limit(&clock, 5, 97, None), Ok(SheetTiming::OnTime));
}

#[test]
fn a_time_limit_sheet_is_refused_while_paused_before_the_end() {
    let clock = clock_of(&[(0, Start { minutes: 90 }), (80, Pause)]);
    assert_eq!(
        time_limit(&clock, 1, 200, None),
        Err(TimingRefusal::TimeNotUp {
            time_left_ms: minutes(10),
            ends_at: None
        })
    );
}

#[test]
fn the_director_may_accept_a_time_limit_sheet_early_with_a_reason() {
    let clock = clock_of(&[(0, Start { minutes: 90 })]);
    assert_eq!(
        time_limit(&clock, 1, 30, Some("  venue closes early \n")),
        Ok(SheetTiming::EarlyByDirector {
            reason: "venue closes early".to_string()
        })
    );
    let too_long = "x".repeat(MAX_REASON_CHARS + 1);
    for bad in ["", "   ", "a\u{7}b", too_long.as_str()] {
        let refused = time_limit(&clock, 1, 30, Some(bad)).unwrap_err();
        assert_eq!(refused, TimingRefusal::InvalidReason, "{bad:?}");
        assert_eq!(
            (refused.field(), refused.code()),
            ("reason", "invalid_reason")
        );
    }
}

#[test]
fn a_won_sheet_is_accepted_at_any_time() {
    let clock = clock_of(&[(0, Start { minutes: 90 }), (10, Pause)]);
    for offset in [-5, 1, 20, 500] {
        assert_eq!(
            admit_sheet(&clock, 1, at(offset), OutcomeKind::Won, None),
            Ok(SheetTiming::OnTime)
        );
    }
}

#[test]
fn a_round_ended_early_takes_time_limit_sheets_and_one_never_started_keeps_the_old_way() {
    let ended = clock_of(&[(0, Start { minutes: 90 }), (30, EndEarly)]);
    assert!(time_limit(&ended, 1, 29, None).is_err());
    assert_eq!(time_limit(&ended, 1, 30, None), Ok(SheetTiming::OnTime));
    assert_eq!(
        time_limit(&RoundClock::new(), 1, 0, None),
        Ok(SheetTiming::WithoutClock)
    );
}
