//! Venue mode (issue 34), publishing's third part: the results a venue recorded reach the
//! federation with their whole history. Two suites, each with its own database: the venue plays
//! a round (a sheet disputed, corrected and confirmed), reads its results whole, and the
//! federation, which holds the same registration and the same round, takes them in while the
//! event is checked out to the venue, signed with the venue's key. The federation then has the
//! same history and the same standings; the same part again changes nothing; a sheet that breaks
//! the rules is a 422 and a version that differs is a 409, each naming its round, table and
//! version, and neither changes anything.
//!
//! The registration and the rounds reach the federation through their own parts
//! (`PUT .../venue-copy`, `PUT .../venue-copy/rounds`), as `venue publish` sends them first.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "the test's helpers: a failed step fails the test"
)]

use catan_api::WebhookEventType;
use catan_api::{
    ApiClient, CheckOutEvent, CreateEvent, DrawRound, EntryCopy, EventCopy, PlayerCopy, Round,
    TableResult, VenueCopy, VenueResults,
};
use catan_e2e::webhooks::Receiver;
use catan_e2e::{
    EventFixture, TestSuite, fast_webhooks, names, problem_of, seated, spawn_suite_with,
    won_by_first,
};
use catan_kit::venue_signature::{SigningKey, VENUE_SIGNATURE_HEADER, new_venue_key, sign};
use std::collections::HashMap;
use uuid::Uuid;

/// What a table's results announce.
const ANNOUNCED: [WebhookEventType; 4] = [
    WebhookEventType::ResultPosted,
    WebhookEventType::ResultConfirmed,
    WebhookEventType::ResultDisputed,
    WebhookEventType::StandingsUpdated,
];

/// Each webhook message's type, table, version and the result's status, in order of arrival.
async fn announced(receiver: &Receiver, count: usize) -> Vec<(String, u64, u64, String)> {
    let mut messages: Vec<(String, u64, u64, String)> = receiver
        .first(count)
        .await
        .iter()
        .map(|m| {
            let body: serde_json::Value = serde_json::from_slice(&m.body).unwrap();
            let data = &body["data"];
            (
                body["type"].as_str().unwrap().to_owned(),
                data["table"].as_u64().unwrap(),
                data["version"].as_u64().unwrap(),
                data["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    // Deliveries of one event may overtake each other.
    messages.sort();
    messages
}

/// The venue's event: 8 players, one qualifying round. Table 1's sheet is
/// disputed by its second player, corrected by the director, then confirmed by that player and,
/// for the third, by the director; table 2's sheet is posted once.
async fn played_at_the_venue(venue: &TestSuite) -> (EventFixture, Round, Receiver) {
    let body = CreateEvent {
        qualifying_rounds: Some(1),
        ..CreateEvent::classic("Venue open")
    };
    let fx = venue.classic_event_as(&body, 8).await;
    let event = fx.event.id;
    let receiver = Receiver::start(0).await;
    venue.subscribe(&fx, &receiver.url, &ANNOUNCED).await;
    let round = fx
        .director
        .draw_round(event, &DrawRound::default())
        .await
        .unwrap();
    let pins: HashMap<Uuid, String> = fx
        .entries
        .iter()
        .flat_map(|e| e.pins.clone().unwrap_or_default())
        .map(|pin| (pin.player_id, pin.pin))
        .collect();
    let first = seated(&round.tables[0]);
    fx.submit(1, 1, &won_by_first(&first, &[10, 7, 5, 4])).await;
    let second = venue.player_client(event, first[1], &pins[&first[1]]).await;
    second
        .dispute_result(event, 1, 1, "I had 8 VP, not 7")
        .await
        .unwrap();
    let (_, etag) = fx.director.result_with_etag(event, 1, 1).await.unwrap();
    fx.director
        .correct_result(event, 1, 1, &won_by_first(&first, &[10, 8, 5, 4]), &etag)
        .await
        .unwrap();
    second.confirm_result(event, 1, 1).await.unwrap();
    fx.director
        .confirm_result_for(event, 1, 1, first[2])
        .await
        .unwrap();
    let other = seated(&round.tables[1]);
    fx.submit(1, 2, &won_by_first(&other, &[10, 9, 6, 3])).await;
    (fx, round, receiver)
}

/// The venue's registration of the event, as the federation takes it in.
async fn registration_of(venue: &TestSuite, fx: &EventFixture) -> VenueCopy {
    let event = venue.admin.event(fx.event.id).await.unwrap();
    let entries = venue.admin.entries(event.id).await.unwrap();
    let mut players = Vec::new();
    for entry in &entries {
        for player in &entry.player_ids {
            players.push(PlayerCopy::from(
                &venue.admin.player(*player).await.unwrap(),
            ));
        }
    }
    VenueCopy {
        regions: Vec::new(),
        event: EventCopy::from(&event),
        players,
        entries: entries.iter().map(EntryCopy::from).collect(),
        audit: Vec::new(),
    }
}

/// Every version of every table of round 1, as the public reads them, without their places in
/// the change feed (each suite numbers its own).
async fn histories(client: &ApiClient, event: Uuid, tables: u32) -> Vec<TableResult> {
    let mut versions = Vec::new();
    for table in 1..=tables {
        let history = client.result_history(event, 1, table).await.unwrap();
        versions.extend(
            history
                .items
                .into_iter()
                .map(|r| TableResult { seq: 0, ..r }),
        );
    }
    versions
}

fn json(value: &impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).unwrap()
}

/// A client that sends `results` signed with the venue's key.
fn signed(client: &ApiClient, key: &SigningKey, results: &VenueResults) -> ApiClient {
    let body = serde_json::to_vec(results).unwrap();
    client.with_headers(vec![(VENUE_SIGNATURE_HEADER, sign(key, &body))])
}

#[tokio::test]
async fn a_venue_s_results_reach_the_federation_with_their_whole_history() {
    let venue = spawn_suite_with(fast_webhooks()).await;
    let federation = spawn_suite_with(fast_webhooks()).await;
    let (fx, round, venue_hooks) = played_at_the_venue(&venue).await;
    let event = fx.event.id;
    let exported = fx.director.venue_results(event).await.unwrap();
    let corrected = &exported.tables[0];
    assert_eq!((corrected.round, corrected.table), (1, 1));
    assert_eq!(corrected.versions.len(), 2, "both versions of table 1");
    assert_eq!(corrected.confirmations.len(), 2);
    assert_eq!(corrected.disputes[0].resolved_by_version, Some(2));

    // The federation holds the same registration.
    federation
        .admin
        .take_in_venue_copy(&registration_of(&venue, &fx).await, false)
        .await
        .unwrap();
    let federation_hooks = Receiver::start(0).await;
    federation
        .subscribe(&fx, &federation_hooks.url, &ANNOUNCED)
        .await;
    let (key, public_key) = new_venue_key();
    federation
        .admin
        .check_out_event(
            event,
            &CheckOutEvent {
                venue: "Casal de Gràcia".into(),
                public_key,
            },
        )
        .await
        .unwrap();

    // Results come after their rounds: a round not drawn here is named.
    let refused = federation
        .admin
        .take_in_venue_results(&exported, false)
        .await;
    let problem = problem_of(refused.unwrap_err());
    assert_eq!(problem.status, 422, "{problem:?}");
    assert!(
        names(&problem, Some("rounds[1]"), "out_of_range"),
        "{problem:?}"
    );
    let rounds = fx.director.venue_rounds(event).await.unwrap();
    federation
        .admin
        .take_in_venue_rounds(&rounds, false)
        .await
        .unwrap();
    let drawn = federation.anonymous.round(event, 1).await.unwrap();
    assert_eq!(json(&drawn.tables), json(&round.tables), "the same tables");

    // The federation refuses ordinary writes to the event, not the venue's import.
    let sheet = won_by_first(&seated(&round.tables[1]), &[10, 9, 6, 3]);
    let refused = federation.admin.submit_result(event, 1, 2, &sheet).await;
    assert_eq!(problem_of(refused.unwrap_err()).status, 409);

    // A body changed after it was signed is refused, and so is an unsigned one from anyone but
    // the admin.
    let mut forged = exported.clone();
    forged.tables.truncate(1);
    let refused = signed(&federation.anonymous, &key, &exported)
        .take_in_venue_results(&forged, false)
        .await;
    assert_eq!(problem_of(refused.unwrap_err()).status, 403);
    let refused = federation
        .anonymous
        .take_in_venue_results(&exported, false)
        .await;
    assert_eq!(problem_of(refused.unwrap_err()).status, 401);

    // Signed by the venue, while the event is checked out: a dry run writes nothing; table 1's
    // two versions, dispute and two confirmations and table 2's sheet are to be added.
    let dry = signed(&federation.anonymous, &key, &exported)
        .take_in_venue_results(&exported, true)
        .await
        .unwrap();
    assert_eq!((dry.added, dry.unchanged), (6, 0), "{dry:?}");
    assert_eq!(
        federation.count("SELECT count(*) AS n FROM results.result_versions"),
        0
    );
    // A part published before the correction: table 1's first sheet and its open dispute.
    let mut earlier = exported.clone();
    earlier.tables.truncate(1);
    earlier.tables[0].versions.truncate(1);
    earlier.tables[0].confirmations.clear();
    earlier.tables[0].disputes[0].resolved_by_version = None;
    let taken = signed(&federation.anonymous, &key, &earlier)
        .take_in_venue_results(&earlier, false)
        .await
        .unwrap();
    assert_eq!((taken.added, taken.unchanged), (2, 0), "{taken:?}");
    // The whole part adds only what is new: the correction, which resolves the dispute, the
    // confirmations, table 2's sheet.
    let taken = signed(&federation.anonymous, &key, &exported)
        .take_in_venue_results(&exported, false)
        .await
        .unwrap();
    assert_eq!((taken.added, taken.unchanged), (4, 2), "{taken:?}");
    let again = signed(&federation.anonymous, &key, &exported)
        .take_in_venue_results(&exported, false)
        .await
        .unwrap();
    assert_eq!((again.added, again.unchanged), (0, 6), "{again:?}");
    assert_eq!(
        histories(&federation.anonymous, event, 2).await,
        histories(&venue.anonymous, event, 2).await,
        "the same versions, times, keys, confirmations and disputes"
    );
    assert_eq!(
        federation.admin.venue_results(event).await.unwrap(),
        exported,
        "exported from the federation, the same part"
    );
    // Table 1: posted (and standings), disputed, corrected (and standings), two confirmations;
    // table 2: posted (and standings).
    assert_eq!(
        announced(&federation_hooks, 9).await,
        announced(&venue_hooks, 9).await,
        "the federation announces what the venue announced"
    );

    // A sheet that breaks the rules: its winner below 10 VP.
    let mut tampered = exported.clone();
    tampered.tables[0].versions[1].sheet.scores[0].vp = 8;
    let refused = federation
        .admin
        .take_in_venue_results(&tampered, false)
        .await;
    let problem = problem_of(refused.unwrap_err());
    assert_eq!(problem.status, 422, "{problem:?}");
    assert!(
        problem
            .errors
            .iter()
            .all(|e| e.field.starts_with("rounds[1].tables[1].versions[2].sheet")),
        "{problem:?}"
    );

    // Another version 2, within the rules: every difference listed, nothing changed.
    let mut different = exported.clone();
    different.tables[0].versions[1].sheet.scores[3].vp = 5;
    different.tables[1].versions[0].recorded_by = Uuid::new_v4();
    let refused = federation
        .admin
        .take_in_venue_results(&different, false)
        .await;
    let problem = problem_of(refused.unwrap_err());
    assert_eq!(problem.status, 409, "{problem:?}");
    assert!(
        names(
            &problem,
            Some("rounds[1].tables[1].versions[2].sheet"),
            "differs"
        ),
        "{problem:?}"
    );
    assert!(
        names(
            &problem,
            Some("rounds[1].tables[2].versions[1].recorded_by"),
            "differs"
        ),
        "{problem:?}"
    );
    assert_eq!(problem.errors.len(), 2, "{problem:?}");
    assert_eq!(
        histories(&federation.anonymous, event, 2).await,
        histories(&venue.anonymous, event, 2).await,
    );

    // The federation's read model counts them as the venue's does.
    let (ours, theirs) = (
        federation.standings(event).await,
        venue.standings(event).await,
    );
    assert_eq!(ours.results_counted, 2);
    assert_eq!(
        (ours.after_round, ours.results_counted, json(&ours.rows)),
        (
            theirs.after_round,
            theirs.results_counted,
            json(&theirs.rows)
        )
    );
    federation.shutdown().await;
    venue.shutdown().await;
}
