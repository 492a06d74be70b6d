use super::*;
use crate::venue_copy::CopyDifference;

/// A classic event of `players` single-player entries with `qualifying` rounds: the event, and
/// its (entry, player) pairs.
fn classic(players: usize, qualifying: u32) -> (EventShape, Vec<(Uuid, Uuid)>) {
    let entrants: Vec<(Uuid, Uuid)> = (0..players)
        .map(|_| (Uuid::new_v4(), Uuid::new_v4()))
        .collect();
    let event = EventShape {
        partner: false,
        qualifying_rounds: qualifying,
        swiss_rounds: 0,
        entries: entrants.iter().map(|&(e, p)| (e, vec![p])).collect(),
    };
    (event, entrants)
}

/// Round `number` at `stage`, seating `entrants` in turn at tables of `sizes`.
fn round(number: u32, stage: Stage, entrants: &[(Uuid, Uuid)], sizes: &[usize]) -> RoundShape {
    let mut rest = entrants;
    let tables = sizes
        .iter()
        .zip(1..)
        .map(|(&size, number)| {
            let (table, tail) = rest.split_at(size);
            rest = tail;
            TableShape {
                number,
                seats: table
                    .iter()
                    .enumerate()
                    .map(|(k, &(entry, player))| SeatShape {
                        position: SeatPosition::from_play_index(k).unwrap_or(SeatPosition::W),
                        entry,
                        player,
                    })
                    .collect(),
            }
        })
        .collect();
    RoundShape {
        number,
        partner: false,
        stage,
        seed: 42,
        tables,
        byes: Vec::new(),
    }
}

fn kinds(faults: &[RoundFault]) -> Vec<(&str, RoundFaultKind)> {
    faults.iter().map(|f| (f.field.as_str(), f.kind)).collect()
}

#[test]
fn rounds_the_draw_could_make_break_nothing() {
    let (event, entrants) = classic(11, 2);
    let rounds = [
        round(1, Stage::Qualifying, &entrants, &[4, 4, 3]),
        round(2, Stage::Qualifying, &entrants, &[3, 4, 4]),
        round(3, Stage::Final, &entrants[..4], &[4]),
    ];
    assert_eq!(kinds(&round_faults(&event, &rounds)), vec![]);
}

#[test]
fn a_seat_of_a_non_entrant_or_of_another_entrys_player_is_not_entered() {
    let (event, mut entrants) = classic(8, 1);
    entrants[2].0 = Uuid::new_v4();
    entrants[5].1 = Uuid::new_v4();
    let rounds = [round(1, Stage::Qualifying, &entrants, &[4, 4])];
    assert_eq!(
        kinds(&round_faults(&event, &rounds)),
        vec![
            (
                "rounds[0].tables[0].seats[2].entry_id",
                RoundFaultKind::NotEntered
            ),
            (
                "rounds[0].tables[1].seats[1].player_id",
                RoundFaultKind::NotEntered
            ),
        ]
    );
}

#[test]
fn tables_of_sizes_the_draw_never_seats_are_unplayable() {
    let (event, entrants) = classic(10, 1);
    // 10 players sit at 4 + 3 + 3, not 4 + 4 + 2 nor 5 + 5.
    for sizes in [&[4, 4, 2][..], &[5, 5]] {
        let rounds = [round(1, Stage::Qualifying, &entrants, sizes)];
        let faults = round_faults(&event, &rounds);
        assert!(
            kinds(&faults).contains(&("rounds[0].tables", RoundFaultKind::Unplayable)),
            "{sizes:?}: {faults:?}"
        );
    }
    let (event, entrants) = classic(5, 1);
    let rounds = [round(1, Stage::Qualifying, &entrants, &[5])];
    let faults = round_faults(&event, &rounds);
    assert!(
        faults.iter().any(|f| f.message.contains("5 players")),
        "{faults:?}"
    );
}

#[test]
fn rounds_and_tables_follow_on_from_one_and_seats_keep_play_order() {
    let (event, entrants) = classic(8, 3);
    let mut second = round(3, Stage::Qualifying, &entrants, &[4, 4]);
    second.tables[1].number = 7;
    second.tables[0].seats.swap(0, 1);
    second.seed = MAX_SEED + 1;
    let rounds = [round(1, Stage::Qualifying, &entrants, &[4, 4]), second];
    assert_eq!(
        kinds(&round_faults(&event, &rounds)),
        vec![
            ("rounds[1].number", RoundFaultKind::OutOfRange),
            ("rounds[1].seed", RoundFaultKind::OutOfRange),
            (
                "rounds[1].tables[0].seats[0].position",
                RoundFaultKind::Unplayable
            ),
            (
                "rounds[1].tables[0].seats[1].position",
                RoundFaultKind::Unplayable
            ),
            ("rounds[1].tables[1].number", RoundFaultKind::OutOfRange),
        ]
    );
}

#[test]
fn a_player_seated_twice_in_a_round_is_a_duplicate() {
    let (event, mut entrants) = classic(8, 1);
    entrants[7] = entrants[0];
    let rounds = [round(1, Stage::Qualifying, &entrants, &[4, 4])];
    assert_eq!(
        kinds(&round_faults(&event, &rounds)),
        vec![(
            "rounds[0].tables[1].seats[3].player_id",
            RoundFaultKind::DuplicatePlayer
        )]
    );
}

#[test]
fn stages_come_in_the_order_the_draw_makes_them() {
    let (event, entrants) = classic(16, 2);
    let q = |n| round(n, Stage::Qualifying, &entrants, &[4, 4, 4, 4]);
    // A playoff before the qualifying rounds are over, a third qualifying round, two finals.
    let early = [q(1), round(2, Stage::Semifinal, &entrants, &[4, 4, 4, 4])];
    let third = [q(1), q(2), q(3)];
    let finals = [
        q(1),
        q(2),
        round(3, Stage::Final, &entrants[..4], &[4]),
        round(4, Stage::Final, &entrants[..4], &[4]),
    ];
    for (rounds, field) in [
        (&early[..], "rounds[1].stage"),
        (&third[..], "rounds[2].stage"),
        (&finals[..], "rounds[3].stage"),
    ] {
        assert_eq!(
            kinds(&round_faults(&event, rounds)),
            vec![(field, RoundFaultKind::NotForFormat)]
        );
    }
    let full = [
        q(1),
        q(2),
        round(3, Stage::Semifinal, &entrants, &[4, 4, 4, 4]),
        round(4, Stage::Final, &entrants[..4], &[4]),
    ];
    assert_eq!(kinds(&round_faults(&event, &full)), vec![]);
}

#[test]
fn a_partner_round_seats_two_teams_opposite_and_its_bye_is_not_seated() {
    let teams: Vec<(Uuid, [Uuid; 2])> = (0..5)
        .map(|_| (Uuid::new_v4(), [Uuid::new_v4(), Uuid::new_v4()]))
        .collect();
    let event = EventShape {
        partner: true,
        qualifying_rounds: 0,
        swiss_rounds: 4,
        entries: teams.iter().map(|(e, p)| (*e, p.to_vec())).collect(),
    };
    let table = |number, a: &(Uuid, [Uuid; 2]), b: &(Uuid, [Uuid; 2])| TableShape {
        number,
        seats: [(a, 0), (b, 0), (a, 1), (b, 1)]
            .into_iter()
            .zip(SEAT_ORDER)
            .map(|((team, i), position)| SeatShape {
                position,
                entry: team.0,
                player: team.1[i],
            })
            .collect(),
    };
    let mut swiss = RoundShape {
        number: 1,
        partner: true,
        stage: Stage::Swiss,
        seed: 7,
        tables: vec![
            table(1, &teams[0], &teams[1]),
            table(2, &teams[2], &teams[3]),
        ],
        byes: vec![teams[4].0],
    };
    assert_eq!(kinds(&round_faults(&event, &[swiss.clone()])), vec![]);
    swiss.tables[1].seats.swap(1, 2);
    swiss.tables[1].seats[1].position = SeatPosition::E;
    swiss.tables[1].seats[2].position = SeatPosition::S;
    swiss.byes.push(teams[0].0);
    assert_eq!(
        kinds(&round_faults(&event, &[swiss])),
        vec![
            ("rounds[0].byes[1]", RoundFaultKind::DuplicatePlayer),
            ("rounds[0].tables[1].seats", RoundFaultKind::Teams),
        ]
    );
}

fn record(key: &str, seats: &str) -> CopyRecord {
    CopyRecord::new(key).with("seats", seats)
}

#[test]
fn a_record_only_the_federation_has_contradicts_a_copy_of_every_round() {
    let ours = [record("rounds[1]", "a"), record("rounds[2]", "b")];
    let theirs = [record("rounds[1]", "a")];
    assert_eq!(
        plan_rounds_copy(&ours, &theirs),
        CopyPlan::Refuse(vec![CopyDifference {
            record: "rounds[2]".into(),
            field: "seats",
            ours: Some("b".into()),
            theirs: None,
        }])
    );
    // Alike, or with more: only what is new is taken in.
    assert_eq!(plan_rounds_copy(&ours, &ours), CopyPlan::Create(vec![]));
    let more = [ours[0].clone(), ours[1].clone(), record("rounds[3]", "c")];
    assert_eq!(
        plan_rounds_copy(&ours, &more),
        CopyPlan::Create(vec!["rounds[3]".into()])
    );
    // Every difference at once: one that differs, and one only ours has.
    let CopyPlan::Refuse(differences) = plan_rounds_copy(&ours, &[record("rounds[1]", "x")]) else {
        panic!("refused");
    };
    assert_eq!(differences.len(), 2);
}

#[test]
fn a_clock_log_is_of_a_round_drawn_and_one_its_clock_takes() {
    use crate::clock::{ClockAction, DirectorAction};
    let started = vec![
        ClockAction::new(1_000, DirectorAction::Start { minutes: 60 }),
        ClockAction::new(2_000, DirectorAction::Pause),
    ];
    assert_eq!(
        kinds(&clock_faults(&[1, 2], &[(2, started.clone())])),
        vec![]
    );
    let resumed_first = vec![ClockAction::new(1_000, DirectorAction::Resume)];
    assert_eq!(
        kinds(&clock_faults(&[1], &[(1, started), (3, resumed_first)])),
        vec![
            ("clocks[1].round", RoundFaultKind::Clock),
            ("clocks[1].actions[0]", RoundFaultKind::Clock),
        ]
    );
}

#[test]
fn each_participant_is_an_entrant_numbered_once() {
    let (event, entrants) = classic(3, 1);
    let [(a, pa), (b, pb), (c, _)] = entrants[..] else {
        panic!("three entrants");
    };
    assert_eq!(
        kinds(&participant_faults(&event, &[(a, pa, 0), (b, pb, 1)])),
        vec![]
    );
    assert_eq!(
        kinds(&participant_faults(
            &event,
            &[(a, pa, 0), (b, pb, 0), (c, Uuid::new_v4(), 2)]
        )),
        vec![
            ("participants[1].number", RoundFaultKind::DuplicatePlayer),
            ("participants[2].entry_id", RoundFaultKind::NotEntered),
        ]
    );
}

#[test]
fn participants_are_numbered_from_zero_below_their_count() {
    let (event, entrants) = classic(2, 1);
    let [(a, pa), (b, pb)] = entrants[..] else {
        panic!("two entrants");
    };
    assert_eq!(
        kinds(&participant_faults(&event, &[(a, pa, 1), (b, pb, 2)])),
        vec![("participants[1].number", RoundFaultKind::OutOfRange)]
    );
}

#[test]
fn a_keep_apart_pair_is_of_two_entered_players() {
    let (event, entrants) = classic(2, 1);
    let (a, b) = (entrants[0].1, entrants[1].1);
    assert_eq!(kinds(&keep_apart_faults(&event, &[[a, b]])), vec![]);
    assert_eq!(
        kinds(&keep_apart_faults(&event, &[[a, a], [a, Uuid::new_v4()]])),
        vec![
            ("keep_apart.pairs[0]", RoundFaultKind::DuplicatePlayer),
            ("keep_apart.pairs[1]", RoundFaultKind::NotEntered),
        ]
    );
}
