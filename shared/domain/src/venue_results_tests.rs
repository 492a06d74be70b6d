use super::*;

fn id(n: u128) -> Uuid {
    Uuid::from_u128(n)
}

const DIRECTOR: u128 = 900;

fn version(version: u32, sheet: &str, at: u32) -> VersionOf<u32> {
    VersionOf {
        version,
        sheet: sheet.into(),
        recorded_by: id(DIRECTOR),
        recorded_at: at,
    }
}

fn confirmation(version: u32, player: u128, at: u32) -> ConfirmationOf<u32> {
    ConfirmationOf {
        version,
        player: id(player),
        confirmed_at: at,
        on_behalf_by: None,
    }
}

fn dispute(version: u32, player: u128, at: u32, resolved: Option<u32>) -> DisputeOf<u32> {
    DisputeOf {
        version,
        player: id(player),
        reason: "I had 8 VP".into(),
        created_at: at,
        resolved_by_version: resolved,
    }
}

/// Table 1 of round 1: a sheet disputed by player 2, corrected, then confirmed by player 1.
fn corrected() -> TableHistory<u32> {
    TableHistory {
        round: 1,
        table: 1,
        versions: vec![version(1, "first", 10), version(2, "second", 30)],
        confirmations: vec![confirmation(2, 1, 40)],
        disputes: vec![dispute(1, 2, 20, Some(2))],
    }
}

fn seated(_: u32, _: u32) -> Vec<Uuid> {
    (1..=4).map(id).collect()
}

#[test]
fn a_history_replays_in_the_order_it_happened() {
    assert_eq!(
        replay_order(&corrected()),
        vec![
            Step::Version(1),
            Step::Dispute {
                version: 1,
                player: id(2)
            },
            Step::Version(2),
            Step::Confirmation {
                version: 2,
                player: id(1)
            },
        ]
    );
}

#[test]
fn a_signature_timed_before_its_version_replays_after_it() {
    // A reporting player's confirmation is timed at its transaction's start, before the sheet.
    let history = TableHistory {
        confirmations: vec![confirmation(1, 3, 9)],
        ..corrected()
    };
    let order = replay_order(&history);
    assert_eq!(order[0], Step::Version(1));
    assert_eq!(
        order[1],
        Step::Confirmation {
            version: 1,
            player: id(3)
        }
    );
}

#[test]
fn a_correction_resolves_the_disputes_open_before_it() {
    let mut history = corrected();
    history.disputes.push(dispute(2, 3, 50, None));
    assert_eq!(resolutions(&history), vec![Some(2), None]);
}

#[test]
fn a_sound_history_has_no_faults() {
    assert_eq!(history_faults(&[corrected()], seated), vec![]);
}

#[test]
fn every_fault_is_named_by_its_round_table_and_version() {
    let history = TableHistory {
        versions: vec![version(1, "first", 10), version(3, "third", 30)],
        confirmations: vec![
            confirmation(2, 1, 40),
            confirmation(1, 7, 40),
            confirmation(1, 1, 41),
            confirmation(1, 1, 42),
        ],
        disputes: vec![dispute(1, 2, 20, None)],
        ..corrected()
    };
    let faults: Vec<(String, RuleCode)> = history_faults(&[history], seated)
        .into_iter()
        .map(|v| (v.field, v.code))
        .collect();
    let table = "rounds[1].tables[1]";
    assert_eq!(
        faults,
        vec![
            (format!("{table}.versions[3]"), RuleCode::OutOfRange),
            (
                format!("{table}.versions[2].confirmations[{}]", id(1)),
                RuleCode::OutOfRange
            ),
            (
                format!("{table}.versions[1].confirmations[{}]", id(7)),
                RuleCode::UnknownPlayer
            ),
            (
                format!("{table}.versions[1].confirmations[{}]", id(1)),
                RuleCode::DuplicatePlayer
            ),
            (
                format!(
                    "{table}.versions[1].disputes[{}].resolved_by_version",
                    id(2)
                ),
                RuleCode::OutOfRange
            ),
        ]
    );
}

#[test]
fn a_table_given_twice_is_a_fault() {
    let faults = history_faults(&[corrected(), corrected()], seated);
    assert_eq!(faults.len(), 1);
    assert_eq!(faults[0].field, "rounds[1].tables[1]");
}

#[test]
fn into_an_empty_federation_everything_is_added_in_order() {
    let plan = plan_results(&[], &[corrected()]);
    assert_eq!(
        plan,
        ResultsPlan::Apply {
            tables: vec![(1, 1, replay_order(&corrected()))],
            unchanged: 0,
        }
    );
}

#[test]
fn the_same_histories_again_add_nothing() {
    let plan = plan_results(&[corrected()], &[corrected()]);
    assert_eq!(
        plan,
        ResultsPlan::Apply {
            tables: vec![],
            unchanged: 4,
        }
    );
}

#[test]
fn a_later_part_adds_only_what_is_new_and_its_correction_resolves_our_open_dispute() {
    let ours = TableHistory {
        versions: vec![version(1, "first", 10)],
        confirmations: vec![],
        disputes: vec![dispute(1, 2, 20, None)],
        ..corrected()
    };
    let plan = plan_results(&[ours], &[corrected()]);
    assert_eq!(
        plan,
        ResultsPlan::Apply {
            tables: vec![(
                1,
                1,
                vec![
                    Step::Version(2),
                    Step::Confirmation {
                        version: 2,
                        player: id(1)
                    }
                ]
            )],
            unchanged: 2,
        }
    );
}

#[test]
fn every_difference_is_listed_and_nothing_is_added() {
    let ours = TableHistory {
        versions: vec![
            version(1, "first", 10),
            version(2, "other", 30),
            version(3, "third", 60),
        ],
        confirmations: vec![ConfirmationOf {
            on_behalf_by: Some(id(DIRECTOR)),
            ..confirmation(2, 1, 40)
        }],
        ..corrected()
    };
    let ResultsPlan::Refuse(differences) = plan_results(&[ours], &[corrected()]) else {
        panic!("differing histories are refused");
    };
    let listed: Vec<(String, &str)> = differences
        .iter()
        .map(|d| (d.record.clone(), d.field))
        .collect();
    let table = "rounds[1].tables[1]";
    assert_eq!(
        listed,
        vec![
            (format!("{table}.versions[2]"), "sheet"),
            (
                format!("{table}.versions[2].confirmations[{}]", id(1)),
                "on_behalf_by"
            ),
            (format!("{table}.versions[3]"), "sheet"),
            (format!("{table}.versions[3]"), "recorded_by"),
            (format!("{table}.versions[3]"), "recorded_at"),
        ]
    );
    assert_eq!(differences[0].ours.as_deref(), Some("other"));
    assert_eq!(differences[0].theirs.as_deref(), Some("second"));
    assert_eq!(differences[2].theirs, None);
}
