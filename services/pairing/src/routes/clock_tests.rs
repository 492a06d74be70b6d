//! The director's requests as clock actions: what each field becomes, and what is refused.

use super::{director_action, minutes_per_game};
use crate::clock::refused;
use catan_api::{
    BoardMode, ClockActionKind, ClockChange, EventFormat, PlayerReporting, Round, RoundFigures,
    Stage, Table,
};
use catan_domain::clock::{ClockError, DirectorAction};
use catan_kit::ApiError;
use uuid::Uuid;

fn round(stage: Stage, tables: u32) -> Round {
    Round {
        event_id: Uuid::nil(),
        number: 1,
        format: EventFormat::Classic,
        stage,
        seed: 1,
        seed_chosen: false,
        changed_by_hand: false,
        drawn_at: chrono::Utc::now(),
        figures: RoundFigures::default(),
        tables: (1..=tables)
            .map(|number| Table {
                number,
                seats: Vec::new(),
                explanation: serde_json::Value::Null,
            })
            .collect(),
        byes: Vec::new(),
        board_mode: BoardMode::EachTable,
        partner_rules: None,
        player_reporting: PlayerReporting::default(),
    }
}

fn change(action: ClockActionKind, minutes: Option<i64>, table: Option<u32>) -> ClockChange {
    ClockChange {
        action,
        minutes,
        table,
    }
}

/// The field and code of a 422 with one field error.
fn field_of(error: ApiError) -> (String, String) {
    let problem = error.to_problem();
    assert_eq!(problem.status, 422, "{problem:?}");
    let only = &problem.errors[0];
    (only.field.clone(), only.code.to_string())
}

#[test]
fn a_start_takes_the_minutes_given_else_the_events_and_the_final_needs_them_given() {
    let qualifying = round(Stage::Qualifying, 2);
    let start = |minutes| change(ClockActionKind::Start, minutes, None);
    assert_eq!(
        director_action(&qualifying, &start(Some(30)), Some(45)).unwrap(),
        DirectorAction::Start { minutes: 30 }
    );
    assert_eq!(
        director_action(&qualifying, &start(None), Some(45)).unwrap(),
        DirectorAction::Start { minutes: 45 }
    );
    assert_eq!(minutes_per_game(&qualifying, Some(45)), Some(45));
    assert_eq!(minutes_per_game(&qualifying, None), Some(90));
    assert_eq!(
        minutes_per_game(&round(Stage::Semifinal, 4), None),
        Some(90)
    );
    let final_round = round(Stage::Final, 1);
    assert_eq!(minutes_per_game(&final_round, Some(45)), None);
    let refused = director_action(&final_round, &start(None), None).unwrap_err();
    assert_eq!(field_of(refused), ("minutes".into(), "required".into()));
}

#[test]
fn extensions_need_their_minutes_and_a_table_of_the_round() {
    let r = round(Stage::Qualifying, 3);
    let no_minutes = change(ClockActionKind::ExtendRound, None, None);
    let refused = director_action(&r, &no_minutes, None).unwrap_err();
    assert_eq!(field_of(refused), ("minutes".into(), "required".into()));
    let no_table = change(ClockActionKind::ExtendTable, Some(5), None);
    let refused = director_action(&r, &no_table, None).unwrap_err();
    assert_eq!(field_of(refused), ("table".into(), "required".into()));
    let stranger = change(ClockActionKind::ExtendTable, Some(5), Some(4));
    let refused = director_action(&r, &stranger, None).unwrap_err();
    assert_eq!(field_of(refused), ("table".into(), "out_of_range".into()));
    let late = change(ClockActionKind::ExtendTable, Some(5), Some(3));
    assert_eq!(
        director_action(&r, &late, None).unwrap(),
        DirectorAction::ExtendTable {
            table: 3,
            minutes: 5
        }
    );
}

#[test]
fn a_refusal_of_the_minutes_is_the_requests_fault_and_of_the_state_a_conflict() {
    let minutes = refused(ClockError::MinutesOutOfRange { minutes: 0 });
    assert_eq!(field_of(minutes), ("minutes".into(), "out_of_range".into()));
    for state in [
        ClockError::AlreadyStarted,
        ClockError::NotStarted,
        ClockError::NotRunning,
        ClockError::NotPaused,
        ClockError::Ended,
        ClockError::RoundTimeUp,
        ClockError::TableTimeUp { table: 2 },
    ] {
        assert_eq!(refused(state).to_problem().status, 409, "{state:?}");
    }
    let stamped = refused(ClockError::OutOfOrder { at: 1, previous: 2 });
    assert_eq!(stamped.to_problem().status, 500);
}
