//! Venue mode (issue 34), its first step: an organiser checks an event out to a venue; the
//! federation then refuses every write to it, in every service, with a 409 that names the venue
//! and changes nothing; one venue at a time; only the admin, the region's organiser or the
//! event's director check it out; once the organiser releases it, writes are taken again.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "the test's helpers: a failed step fails the test"
)]

use catan_api::{
    ApiClient, CheckOutEvent, Checkout, ClientError, CreateEntry, CreatePlayer, DrawRound, Event,
    Role, SubmitResults, TableSheet,
};
use catan_e2e::fixtures::{new_key, new_organiser_key, regional_event};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{TestSuite, names, problem_of, seated, spawn_suite, won_by_first};
use catan_kit::venue_signature::new_venue_key;
use uuid::Uuid;

const VENUE: &str = "Casal de Gràcia";

/// A 409 `event_checked_out` naming the venue.
fn refused_naming_the_venue<T: std::fmt::Debug>(answer: Result<T, ClientError>, what: &str) {
    let problem = problem_of(answer.expect_err(what));
    assert_eq!(problem.status, 409, "{what}: {problem:?}");
    assert!(
        names(&problem, Some("event_id"), "event_checked_out"),
        "{what}: {problem:?}"
    );
    assert!(problem.detail.contains(VENUE), "{what}: {}", problem.detail);
    assert!(
        problem.detail.contains("publish") && problem.detail.contains("release"),
        "{what} says how to go on: {}",
        problem.detail
    );
}

fn status_of<T: std::fmt::Debug>(answer: Result<T, ClientError>, what: &str) -> u16 {
    problem_of(answer.expect_err(what)).status
}

/// An event of region A run by its organiser, with 8 players entered, round 1 drawn and table 1's
/// result posted; its director and scorer, a player seated at table 1, and the organiser of A.
struct Running {
    event: Uuid,
    region: Uuid,
    organiser: ApiClient,
    organiser_token: String,
    director: ApiClient,
    scorer: ApiClient,
    seated_player: ApiClient,
}

async fn running_event(ts: &TestSuite) -> Running {
    let region = ts.admin.create_region("Region A").await.unwrap().id;
    let organiser_key = ts
        .admin
        .create_api_key(&new_organiser_key("Organiser of A", vec![region]))
        .await
        .unwrap();
    let organiser = ts.client_for(&organiser_key.api_key).await;
    let event = organiser
        .create_event(&regional_event("A open", region))
        .await
        .unwrap()
        .id;
    let mut pins = Vec::new();
    for i in 0..8 {
        let player = organiser
            .create_player(&CreatePlayer {
                name: format!("A player {i}"),
                region_id: Some(region),
            })
            .await
            .unwrap()
            .id;
        let entry = organiser
            .create_entry(event, &CreateEntry::player(player))
            .await
            .unwrap();
        pins.extend(entry.pins.unwrap_or_default());
    }
    let key = |name: &str, role| new_key(name, role, Some(vec![event]));
    let director = organiser
        .create_api_key(&key("A director", Role::Director))
        .await
        .unwrap();
    let scorer = organiser
        .create_api_key(&key("A scorer", Role::Scorer))
        .await
        .unwrap();
    let (director, scorer) = (
        ts.client_for(&director.api_key).await,
        ts.client_for(&scorer.api_key).await,
    );
    let round = director
        .draw_round(event, &DrawRound::default())
        .await
        .unwrap();
    let first_table = seated(&round.tables[0]);
    scorer
        .submit_result(event, 1, 1, &won_by_first(&first_table, &[10, 7, 5, 4]))
        .await
        .unwrap();
    let pin = pins.iter().find(|p| p.player_id == first_table[1]).unwrap();
    let seated_player = ts.player_client(event, pin.player_id, &pin.pin).await;
    Running {
        event,
        region,
        organiser,
        organiser_token: ts.token(&organiser_key.api_key).await,
        director,
        scorer,
        seated_player,
    }
}

fn checkout_body(venue: &str) -> CheckOutEvent {
    CheckOutEvent {
        venue: venue.into(),
        public_key: new_venue_key().1,
    }
}

#[tokio::test]
async fn a_checked_out_event_refuses_every_write_until_its_organiser_releases_it() {
    let ts = spawn_suite().await;
    let r = running_event(&ts).await;
    let (event, region) = (r.event, r.region);

    // Neither a player, a scorer nor another region's organiser checks it out; nor a bad body.
    let region_b = ts.admin.create_region("Region B").await.unwrap().id;
    let other_organiser = ts
        .admin
        .create_api_key(&new_organiser_key("Organiser of B", vec![region_b]))
        .await
        .unwrap();
    let other_organiser = ts.client_for(&other_organiser.api_key).await;
    for (client, who) in [
        (&r.seated_player, "a player"),
        (&r.scorer, "its scorer"),
        (&other_organiser, "another region's organiser"),
    ] {
        let answer = client.check_out_event(event, &checkout_body(VENUE)).await;
        assert_eq!(status_of(answer, who), 403, "{who}");
    }
    let blank_venue = r
        .organiser
        .check_out_event(event, &checkout_body(" "))
        .await;
    assert!(names(
        &problem_of(blank_venue.unwrap_err()),
        Some("venue"),
        "invalid_name"
    ));
    let short_key = CheckOutEvent {
        public_key: "c2hvcnQ".into(),
        ..checkout_body(VENUE)
    };
    let short_key = r.organiser.check_out_event(event, &short_key).await;
    assert!(names(
        &problem_of(short_key.unwrap_err()),
        Some("public_key"),
        "invalid_public_key"
    ));
    assert!(ts.anonymous.event(event).await.unwrap().checkout.is_none());

    // The organiser checks it out (a retry with the same Idempotency-Key gets the same answer):
    // the event shows it to anyone.
    let body = checkout_body(VENUE);
    let check_out = async || {
        let path = format!("/v1/events/{event}/checkout");
        let answer = ts
            .http(Method::POST, &path)
            .token(&r.organiser_token)
            .header("Idempotency-Key", "checkout-1")
            .json(&body)
            .send()
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
        answer.json::<Checkout>()
    };
    let checkout = check_out().await;
    assert_eq!(check_out().await, checkout);
    assert_eq!(
        (
            checkout.event_id,
            checkout.venue.as_str(),
            &checkout.public_key
        ),
        (event, VENUE, &body.public_key)
    );
    assert_eq!(ts.anonymous.event_checkout(event).await.unwrap(), checkout);
    let shown: Event = ts.anonymous.event(event).await.unwrap();
    assert_eq!(shown.checkout, Some(checkout.summary()));

    // Every write to it is refused naming the venue, in every service, and changes nothing.
    let newcomer = r
        .organiser
        .create_player(&CreatePlayer {
            name: "Late comer".into(),
            region_id: Some(region),
        })
        .await
        .unwrap()
        .id;
    refused_naming_the_venue(
        r.organiser
            .create_entry(event, &CreateEntry::player(newcomer))
            .await,
        "an entry",
    );
    refused_naming_the_venue(
        r.director.draw_round(event, &DrawRound::default()).await,
        "a draw",
    );
    let round = r.director.round(event, 1).await.unwrap();
    let second_table = &round.tables[1];
    let sheet = won_by_first(&seated(second_table), &[10, 8, 6, 2]);
    refused_naming_the_venue(
        r.scorer.submit_result(event, 1, 2, &sheet).await,
        "a table's sheet",
    );
    let batch = SubmitResults {
        sheets: vec![TableSheet {
            table: 2,
            sheet: sheet.clone(),
        }],
    };
    refused_naming_the_venue(
        r.scorer.submit_results(event, 1, &batch).await,
        "a batch of sheets",
    );
    refused_naming_the_venue(
        r.seated_player.confirm_result(event, 1, 1).await,
        "a confirmation",
    );
    assert_eq!(r.organiser.entries(event).await.unwrap().len(), 8);
    assert_eq!(r.director.rounds(event).await.unwrap().len(), 1);
    assert_eq!(
        status_of(ts.anonymous.result(event, 1, 2).await, "table 2"),
        404
    );
    let first = ts.anonymous.result(event, 1, 1).await.unwrap();
    assert!(first.confirmed_by.is_empty(), "{first:?}");

    // One venue at a time: a second checkout is refused, naming the first venue.
    let second = ts
        .admin
        .check_out_event(event, &checkout_body("Another hall"))
        .await;
    let problem = problem_of(second.unwrap_err());
    assert_eq!(problem.status, 409);
    assert!(problem.detail.contains(VENUE), "{}", problem.detail);

    // Its director does not release it; its organiser does, and writes are taken again.
    assert_eq!(
        status_of(r.director.release_checkout(event).await, "the director"),
        403
    );
    r.organiser.release_checkout(event).await.unwrap();
    assert!(ts.anonymous.event(event).await.unwrap().checkout.is_none());
    assert_eq!(
        status_of(ts.anonymous.event_checkout(event).await, "released"),
        404
    );
    r.organiser
        .create_entry(event, &CreateEntry::player(newcomer))
        .await
        .unwrap();
    r.scorer.submit_result(event, 1, 2, &sheet).await.unwrap();
    let confirmed = r.seated_player.confirm_result(event, 1, 1).await.unwrap();
    assert_eq!(confirmed.confirmed_by.len(), 1);
    ts.shutdown().await;
}

#[tokio::test]
async fn no_sheet_racing_a_checkout_lands_after_the_checkout_is_answered() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(40, Some(1)).await;
    let event = fx.event.id;
    let round = fx.draw().await;
    let posts = round.tables.iter().map(|table| {
        let sheet = won_by_first(&seated(table), &[10, 7, 5, 4]);
        let scorer = fx.scorer.clone();
        async move { scorer.submit_result(event, 1, table.number, &sheet).await }
    });
    // What the round holds the moment the checkout is answered, and once every post is answered.
    let checkout = async {
        let checkout = ts
            .admin
            .check_out_event(event, &checkout_body(VENUE))
            .await
            .unwrap();
        let at_answer = ts.anonymous.round_results(event, 1).await.unwrap().items;
        (checkout, at_answer)
    };
    let (answers, (_, at_answer)) = tokio::join!(futures_util::future::join_all(posts), checkout);
    let mut recorded = 0;
    for answer in answers {
        match answer {
            Ok(_) => recorded += 1,
            Err(e) => refused_naming_the_venue::<()>(Err(e), "a sheet racing the checkout"),
        }
    }
    let after = ts.anonymous.round_results(event, 1).await.unwrap().items;
    assert_eq!(
        after, at_answer,
        "nothing landed after the checkout was answered"
    );
    assert_eq!(
        after.len(),
        recorded,
        "every sheet recorded was answered 201"
    );
    ts.shutdown().await;
}
