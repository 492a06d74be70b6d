use super::*;
use catan_api::FieldError;
use catan_kit::problem::ErrorCode;
use catan_kit::venue_signature::{new_venue_key, verify};
use uuid::Uuid;

fn problem(status: u16, errors: Vec<FieldError>) -> Problem {
    Problem {
        kind: "/problems/x".into(),
        title: "Refused".into(),
        status,
        detail: format!("{} faults", errors.len()),
        errors,
        retry_after_seconds: None,
    }
}

fn counted(part: Part, added: u32, unchanged: u32) -> Counted {
    Counted {
        part,
        dry_run: true,
        kinds: vec![
            (("round", "rounds"), added, unchanged),
            (("table", "tables"), 0, 2),
        ],
    }
}

/// A part as the client writes it.
fn bytes<T: Serialize>(part: &T) -> Vec<u8> {
    serde_json::to_vec(part).unwrap()
}

#[test]
fn each_part_is_signed_as_the_client_sends_it() {
    let (key, public_key) = new_venue_key();
    let event_id = Uuid::new_v4();
    let rounds: VenueRounds =
        serde_json::from_value(serde_json::json!({ "event_id": event_id })).unwrap();
    let rounds = signed(rounds, &key).unwrap();
    verify(&public_key, &bytes(&rounds.part), &rounds.signature).unwrap();
    let results = signed(
        VenueResults {
            event_id,
            tables: Vec::new(),
        },
        &key,
    )
    .unwrap();
    verify(&public_key, &bytes(&results.part), &results.signature).unwrap();
    let mut tampered = results.part.clone();
    tampered.event_id = Uuid::new_v4();
    assert!(verify(&public_key, &bytes(&tampered), &results.signature).is_err());
}

#[test]
fn a_part_built_on_earlier_parts_not_in_yet_is_judged_when_it_is_sent() {
    let seat_of_no_entrant = problem(
        422,
        vec![FieldError {
            field: "rounds[2].tables[1].seats".into(),
            code: ErrorCode::OutOfRange,
            message: "a seat of no entrant".into(),
        }],
    );
    assert_eq!(
        verdict(Err(seat_of_no_entrant.clone()), true),
        Verdict::Later(seat_of_no_entrant.clone())
    );
    // With nothing added before it, the fault is the part's own.
    assert_eq!(
        verdict(Err(seat_of_no_entrant.clone()), false),
        Verdict::Refused(seat_of_no_entrant)
    );
    // A bad signature or a contradiction refuses the bundle whatever comes before.
    for status in [401, 403, 409] {
        let refusal = problem(status, Vec::new());
        assert_eq!(
            verdict(Err(refusal.clone()), true),
            Verdict::Refused(refusal)
        );
    }
    let fits = counted(Part::Rounds, 1, 1);
    assert_eq!(verdict(Ok(fits.clone()), true), Verdict::Fits(fits));
}

#[test]
fn a_part_awaits_earlier_parts_that_add_wait_or_are_refused() {
    assert!(!awaits_earlier_parts(&[]));
    let same = Verdict::Fits(counted(Part::Registration, 0, 3));
    assert!(!awaits_earlier_parts(std::slice::from_ref(&same)));
    assert!(awaits_earlier_parts(&[
        same.clone(),
        Verdict::Fits(counted(Part::Rounds, 2, 0))
    ]));
    assert!(awaits_earlier_parts(&[
        same.clone(),
        Verdict::Later(problem(422, Vec::new()))
    ]));
    // A refused part's records are not there: what builds on them is not its fault.
    assert!(awaits_earlier_parts(&[Verdict::Refused(problem(
        409,
        Vec::new()
    ))]));
}

#[test]
fn a_line_says_what_was_added_and_what_was_there_alike() {
    let applied = Counted {
        dry_run: false,
        ..counted(Part::Rounds, 1, 0)
    };
    assert_eq!(applied.line(), "rounds: added 1 round; unchanged 2 tables");
    assert_eq!(applied.totals(), (1, 2));
    assert_eq!(
        counted(Part::Rounds, 0, 0).line(),
        "rounds: would add nothing; already there 2 tables"
    );
}

#[test]
fn every_fault_of_a_refusal_is_listed() {
    let refusal = problem(
        409,
        vec![
            FieldError {
                field: "players[p].name".into(),
                code: ErrorCode::Differs,
                message: "ours is \"A\", the copy's is \"B\"".into(),
            },
            FieldError {
                field: "entries[e].status".into(),
                code: ErrorCode::Differs,
                message: "ours is active, the copy's is dropped".into(),
            },
        ],
    );
    let lines = faults(Part::Registration, &refusal);
    assert_eq!(lines.len(), 3);
    assert!(lines[0].starts_with("registration refused (409 Refused)"));
    assert_eq!(
        lines[2],
        "  entries[e].status: ours is active, the copy's is dropped (differs)"
    );
}
