//! Venue mode (issue 34), publishing's second part: the rounds a venue drew reach the federation
//! with their seeds. Two suites, each with its own database: the venue draws two rounds of a
//! 9-player event (with keep-apart pairs, and round 2's clock started and paused), reads its
//! rounds whole, and the federation, which took in the same registration, takes them in while
//! the event is checked out to the venue, signed with the venue's key. The federation then shows
//! the same rounds, tables, seats, seeds and clock; the same part again changes nothing; a
//! round that differs is a 409 listing every difference, a seat of no entrant a 422, and neither
//! changes anything. Each round added goes out as `round.drawn`, as a draw sends it, and results
//! then takes sheets against the rounds taken in.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "the test's helpers: a failed step fails the test"
)]

use catan_api::{
    ApiClient, CheckOutEvent, ClockActionKind, ClockChange, CreateWebhook, KeepApart, Round,
    RoundsCounts, VenueRounds, WebhookEventType,
};
use catan_e2e::webhooks::{Receiver, verified};
use catan_e2e::{
    EventFixture, TestSuite, fast_webhooks, names, problem_of, seated, spawn_suite,
    spawn_suite_with,
};
use catan_kit::venue_signature::{SigningKey, VENUE_SIGNATURE_HEADER, new_venue_key, sign};
use catan_suite::venue::federation::read_copy;
use uuid::Uuid;

/// The venue's event: 9 players, two players kept apart, two qualifying rounds drawn (round 1
/// played out), round 2's clock started and paused.
async fn drawn_at_the_venue(venue: &TestSuite) -> EventFixture {
    let fx = venue.classic_event(9, Some(2)).await;
    let event = fx.event.id;
    let apart = [fx.entries[0].player_ids[0], fx.entries[1].player_ids[0]];
    fx.director
        .set_keep_apart(event, &KeepApart { pairs: vec![apart] })
        .await
        .unwrap();
    let first = fx.draw().await;
    let mut rng = rand::rng();
    for table in &first.tables {
        fx.submit_random(&first, table, &mut rng).await;
    }
    fx.draw().await;
    for action in [ClockActionKind::Start, ClockActionKind::Pause] {
        let change = ClockChange {
            action,
            minutes: None,
            table: None,
        };
        fx.director.change_clock(event, 2, &change).await.unwrap();
    }
    fx
}

fn json(value: &impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).unwrap()
}

/// A client that sends `rounds` signed with the venue's key.
fn signed(client: &ApiClient, key: &SigningKey, rounds: &VenueRounds) -> ApiClient {
    let body = serde_json::to_vec(rounds).unwrap();
    client.with_headers(vec![(VENUE_SIGNATURE_HEADER, sign(key, &body))])
}

/// What the public reads of the event's rounds, keep-apart pairs and round 2's clock log.
async fn as_read(client: &ApiClient, event: Uuid) -> serde_json::Value {
    let rounds: Vec<Round> = client.rounds(event).await.unwrap();
    let clock = client.round_clock(event, 2).await.unwrap();
    json(&(
        rounds,
        client.keep_apart(event).await.unwrap(),
        clock.state,
        clock.actions,
    ))
}

fn counts(rounds: u32, tables: u32, clock_actions: u32) -> RoundsCounts {
    RoundsCounts {
        participants: if rounds == 0 { 0 } else { 9 },
        keep_apart: u32::from(rounds > 0),
        rounds,
        tables,
        clock_actions,
    }
}

#[tokio::test]
async fn a_venue_s_rounds_reach_the_federation_with_their_seeds() {
    let venue = spawn_suite().await;
    let federation = spawn_suite_with(fast_webhooks()).await;
    let fx = drawn_at_the_venue(&venue).await;
    let event = fx.event.id;
    let exported = fx.director.venue_rounds(event).await.unwrap();
    assert_eq!(exported.rounds.len(), 2);
    assert_eq!(exported.participants.len(), 9);
    assert_eq!(exported.clocks[0].round, 2);
    assert_eq!(exported.clocks[0].actions.len(), 2);
    // 9 players: tables of 3, 3 and 3.
    assert!(exported.rounds[0].tables.iter().all(|t| t.seats.len() == 3));

    // The federation takes in the same registration, and checks the event out to the venue.
    let registration = read_copy(&venue.admin, event, false).await.unwrap();
    federation
        .admin
        .take_in_venue_copy(&registration, false)
        .await
        .unwrap();
    let receiver = Receiver::start(0).await;
    let hook = federation
        .admin
        .create_webhook(&CreateWebhook {
            url: receiver.url.clone(),
            event_types: vec![WebhookEventType::RoundDrawn],
            event_ids: Some(vec![event]),
        })
        .await
        .unwrap();
    let (key, public_key) = new_venue_key();
    let checkout = CheckOutEvent {
        venue: "Casal de Gràcia".into(),
        public_key,
    };
    federation
        .admin
        .check_out_event(event, &checkout)
        .await
        .unwrap();

    // A body changed after it was signed is refused; an unsigned one from anyone but the admin
    // too.
    let mut forged = exported.clone();
    forged.rounds[0].seed += 1;
    let refused = signed(&federation.anonymous, &key, &exported)
        .take_in_venue_rounds(&forged, false)
        .await;
    assert_eq!(problem_of(refused.unwrap_err()).status, 403);
    let refused = federation
        .anonymous
        .take_in_venue_rounds(&exported, false)
        .await;
    assert_eq!(problem_of(refused.unwrap_err()).status, 401);

    // A part cut off after round 1 (a publish made mid-event) adds round 1 alone; a dry run of the
    // whole then says what it would add and writes nothing.
    let mut first_only = exported.clone();
    first_only.rounds.truncate(1);
    first_only.clocks.clear();
    let taken = signed(&federation.anonymous, &key, &first_only)
        .take_in_venue_rounds(&first_only, false)
        .await
        .unwrap();
    assert_eq!(taken.added, counts(1, 3, 0), "{taken:?}");
    let dry = signed(&federation.anonymous, &key, &exported)
        .take_in_venue_rounds(&exported, true)
        .await
        .unwrap();
    assert!(dry.dry_run);
    assert_eq!(
        (
            dry.added.rounds,
            dry.added.clock_actions,
            dry.unchanged.rounds
        ),
        (1, 2, 1),
        "{dry:?}"
    );
    assert_eq!(
        federation.count("SELECT count(*) AS n FROM pairing.rounds"),
        1,
        "a dry run writes nothing"
    );

    // The whole part adds what is new; the same part again changes nothing.
    let taken = signed(&federation.anonymous, &key, &exported)
        .take_in_venue_rounds(&exported, false)
        .await
        .unwrap();
    assert_eq!(
        (
            taken.added.rounds,
            taken.added.tables,
            taken.added.clock_actions
        ),
        (1, 3, 2),
        "{taken:?}"
    );
    let again = signed(&federation.anonymous, &key, &exported)
        .take_in_venue_rounds(&exported, false)
        .await
        .unwrap();
    assert_eq!(again.added, counts(0, 0, 0), "{again:?}");
    assert_eq!(again.unchanged, counts(2, 6, 2), "{again:?}");
    assert_eq!(
        as_read(&federation.anonymous, event).await,
        as_read(&venue.anonymous, event).await,
        "the same rounds, tables, seats, seeds, keep-apart pairs and clock"
    );
    assert_eq!(
        json(&federation.admin.venue_rounds(event).await.unwrap()),
        json(&exported),
        "exported from the federation, the same part"
    );

    // Each round added went out as `round.drawn`, as a draw sends it.
    let mut announced: Vec<serde_json::Value> = receiver
        .first(2)
        .await
        .iter()
        .map(|request| verified(&hook.secret, request).data)
        .collect();
    // Deliveries go out side by side: in any order.
    announced.sort_by_key(|round| round["number"].as_u64());
    assert_eq!(json(&announced), json(&exported.rounds));

    // A round that differs: its seed, and two players swapped between tables. Every difference
    // is listed, and nothing changes.
    let mut different = exported.clone();
    different.rounds[0].seed += 1;
    let (a, b) = (
        different.rounds[1].tables[0].seats[0].clone(),
        different.rounds[1].tables[1].seats[0].clone(),
    );
    different.rounds[1].tables[0].seats[0].entry_id = b.entry_id;
    different.rounds[1].tables[0].seats[0].player_id = b.player_id;
    different.rounds[1].tables[1].seats[0].entry_id = a.entry_id;
    different.rounds[1].tables[1].seats[0].player_id = a.player_id;
    let refused = federation
        .admin
        .take_in_venue_rounds(&different, false)
        .await;
    let problem = problem_of(refused.unwrap_err());
    assert_eq!(problem.status, 409, "{problem:?}");
    for field in [
        "rounds[1].seed",
        "rounds[2].tables[1].seats",
        "rounds[2].tables[2].seats",
    ] {
        assert!(
            names(&problem, Some(field), "differs"),
            "{field}: {problem:?}"
        );
    }
    assert_eq!(problem.errors.len(), 3, "{problem:?}");

    // A seat of a player entered in no entry of the event.
    let mut stranger = exported.clone();
    stranger.rounds[1].tables[0].seats[0].entry_id = Uuid::new_v4();
    let refused = federation
        .admin
        .take_in_venue_rounds(&stranger, false)
        .await;
    let problem = problem_of(refused.unwrap_err());
    assert_eq!(problem.status, 422, "{problem:?}");
    assert!(
        names(
            &problem,
            Some("rounds[1].tables[0].seats[0].entry_id"),
            "not_entered"
        ),
        "{problem:?}"
    );
    assert_eq!(
        as_read(&federation.anonymous, event).await,
        as_read(&venue.anonymous, event).await,
        "neither refusal changed anything"
    );

    // Once the checkout is released, results takes a sheet against round 2 as drawn at the
    // venue, and refuses one of players not seated at its table.
    federation.admin.release_checkout(event).await.unwrap();
    let round = &exported.rounds[1];
    let sheet = |players: &[Uuid]| catan_e2e::won_by_first(players, &[10, 7, 5]);
    let table = seated(&round.tables[0]);
    let other = seated(&round.tables[1]);
    federation
        .admin
        .submit_result(event, 2, 1, &sheet(&table))
        .await
        .unwrap();
    let refused = federation
        .admin
        .submit_result(event, 2, 2, &sheet(&table))
        .await;
    assert_eq!(problem_of(refused.unwrap_err()).status, 422);
    assert_ne!(table, other);

    venue.shutdown().await;
    federation.shutdown().await;
}

#[tokio::test]
async fn a_partner_event_s_swiss_round_comes_with_its_bye() {
    let venue = spawn_suite().await;
    let federation = spawn_suite().await;
    let fx = venue.partner_event(5).await;
    let event = fx.event.id;
    let drawn = fx.draw().await;
    assert_eq!(drawn.byes.len(), 1, "5 teams: one bye");
    let exported = fx.director.venue_rounds(event).await.unwrap();

    let registration = read_copy(&venue.admin, event, false).await.unwrap();
    federation
        .admin
        .take_in_venue_copy(&registration, false)
        .await
        .unwrap();
    let taken = federation
        .admin
        .take_in_venue_rounds(&exported, false)
        .await
        .unwrap();
    assert_eq!(
        (taken.added.rounds, taken.added.tables),
        (1, 2),
        "{taken:?}"
    );
    assert_eq!(
        json(&federation.anonymous.rounds(event).await.unwrap()),
        json(&venue.anonymous.rounds(event).await.unwrap()),
        "the same Swiss round: its tables, partners opposite, and its bye"
    );

    // The bye's team seated too: refused, naming the bye.
    let mut seated_twice = exported.clone();
    seated_twice.rounds[0].byes = vec![drawn.tables[0].seats[0].entry_id];
    let refused = federation
        .admin
        .take_in_venue_rounds(&seated_twice, false)
        .await;
    let problem = problem_of(refused.unwrap_err());
    assert_eq!(problem.status, 422, "{problem:?}");
    assert!(
        names(&problem, Some("rounds[0].byes[0]"), "duplicate_player"),
        "{problem:?}"
    );

    venue.shutdown().await;
    federation.shutdown().await;
}
