//! Venue mode, its first step (issue 34): `catan-suite venue pull` checks an event out of the
//! federation and copies it into the venue's own suite, each suite over a database of its own on
//! this one machine. The venue then answers the event, its region, its players and entries under
//! the federation's ids; the federation shows the event checked out; a pull run again changes
//! nothing; and a copy that differs from the venue's is refused listing every difference.
//! (The pulls that must be exact, issue 43, are in `venue_pull/exact.rs`.)

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

use catan_api::{ApiClient, EntryStatus, Role, VenueCopy};
use catan_e2e::fixtures::regional_event;
use catan_e2e::venue::Venue;
use catan_e2e::{TestSuite, assert_refused, eventually, new_key, problem_of, spawn_suite};
use catan_suite::venue::serve;
use std::path::Path;
use uuid::Uuid;

#[path = "venue_pull/exact.rs"]
mod exact;

/// The federation's event: a region, 8 players of it entered, and one more player of the
/// region not entered. Answers the event's id, the entered players' and the other player's.
async fn federation_event(federation: &TestSuite) -> (Uuid, Vec<Uuid>, Uuid) {
    let region = federation.admin.create_region("Catalonia").await.unwrap();
    let event = federation
        .admin
        .create_event(&regional_event("Barcelona open", region.id))
        .await
        .unwrap();
    let mut players = Vec::new();
    for i in 1..=9 {
        let player = federation
            .admin
            .create_player(&catan_api::CreatePlayer {
                name: format!("Player {i}"),
                region_id: Some(region.id),
            })
            .await
            .unwrap();
        players.push(player.id);
    }
    let not_entered = players.pop().unwrap();
    for &player in &players {
        federation
            .admin
            .create_entry(event.id, &catan_api::CreateEntry::player(player))
            .await
            .unwrap();
    }
    (event.id, players, not_entered)
}

/// A director key of the federation's event: who pulls it (the federation's admin key never
/// leaves the federation).
async fn director_key(federation: &TestSuite, event_id: Uuid) -> String {
    federation
        .admin
        .create_api_key(&new_key("director", Role::Director, Some(vec![event_id])))
        .await
        .unwrap()
        .api_key
}

fn file_mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn a_pulled_event_is_the_federations_own_at_the_venue_and_checked_out_there() {
    let federation = spawn_suite().await;
    let (event_id, entered, not_entered) = federation_event(&federation).await;
    // The event's director pulls it: the federation's admin key never leaves the federation.
    let director_key = director_key(&federation, event_id).await;
    let venue = tokio::task::spawn_blocking(Venue::new).await.unwrap();

    let pulled = venue.pull(&federation, &director_key, event_id).await;
    assert_eq!(
        (pulled.taken.created.events, pulled.taken.created.regions),
        (1, 1)
    );
    assert_eq!(
        (pulled.taken.created.players, pulled.taken.created.entries),
        (8, 8)
    );

    // The venue keeps its checkout key, for its owner only, and never the federation's key.
    assert_eq!(file_mode(&pulled.venue_file), 0o600);
    let kept = std::fs::read_to_string(&pulled.venue_file).unwrap();
    assert!(kept.contains(&event_id.to_string()) && kept.contains(&federation.suite.url()));
    assert!(
        !kept.contains(&director_key),
        "the federation's key is not kept"
    );

    // The federation shows the event checked out to the venue, with the venue's public key.
    let at_federation = federation.anonymous.event(event_id).await.unwrap();
    let summary = at_federation.checkout.expect("the event is checked out");
    assert_eq!(summary.venue, "Casal de Gràcia");
    let checkout = federation.admin.event_checkout(event_id).await.unwrap();
    assert_eq!(checkout.public_key, pulled.checkout.public_key);
    assert!(kept.contains(&checkout.public_key));

    // The venue answers the same event, region, players and entries, under the same ids.
    let (suite, venue_admin) = venue.start().await;
    let event = venue_admin.event(event_id).await.unwrap();
    assert_eq!(event.name, "Barcelona open");
    assert_eq!(event.region_id, at_federation.region_id);
    assert_eq!(event.starts_on, at_federation.starts_on);
    assert_eq!(event.qualifying_rounds, at_federation.qualifying_rounds);
    let region = venue_admin.region(event.region_id.unwrap()).await.unwrap();
    assert_eq!(region.name, "Catalonia");
    let federation_entries = federation.admin.entries(event_id).await.unwrap();
    let venue_entries = venue_admin.entries(event_id).await.unwrap();
    let ids = |entries: &[catan_api::Entry]| -> Vec<(Uuid, Vec<Uuid>, String)> {
        entries
            .iter()
            .map(|e| (e.id, e.player_ids.clone(), e.name.clone()))
            .collect()
    };
    assert_eq!(ids(&venue_entries), ids(&federation_entries));
    for &player in &entered {
        let (ours, theirs) = (
            venue_admin.player(player).await.unwrap(),
            federation.admin.player(player).await.unwrap(),
        );
        assert_eq!((ours.name, ours.region_id), (theirs.name, theirs.region_id));
    }
    assert_refused(
        venue_admin.player(not_entered).await,
        404,
        "without --region-players, only the entered players are copied",
    );
    // The venue's PINs are its own: its director reissues one, and the player signs in with it.
    let pin = venue_admin.reissue_pin(event_id, entered[0]).await.unwrap();
    let public = ApiClient::new(&suite.url());
    public
        .player_token(event_id, entered[0], &pin.pin)
        .await
        .expect("the player signs in at the venue with the venue's PIN");
    // Ranking at the venue has the event and its players from registration's change feed.
    let standings = eventually(20, "the venue's standings list the 8 players", async || {
        let standings = venue_admin.standings(event_id).await.ok()?;
        (standings.rows.len() == 8).then_some(standings)
    })
    .await;
    let mut listed: Vec<Uuid> = standings.rows.iter().map(|r| r.player_id).collect();
    let mut expected = entered.clone();
    listed.sort();
    expected.sort();
    assert_eq!(listed, expected);
    suite.stop().await;

    // A pull run again (with the region's other players this time) keeps the checkout and
    // the venue's records: only the player it lacked is new.
    let again = venue
        .try_pull(&federation, &director_key, event_id, true)
        .await
        .unwrap();
    assert_eq!(again.checkout, pulled.checkout);
    assert_eq!(again.taken.created.players, 1);
    assert_eq!(
        (
            again.taken.created.events,
            again.taken.created.entries,
            again.taken.unchanged.entries,
            again.taken.unchanged.players
        ),
        (0, 0, 8, 8)
    );

    venue.remove().await;
    federation.shutdown().await;
}

#[tokio::test]
async fn a_copy_that_differs_is_refused_listing_every_difference_and_changes_nothing() {
    let federation = spawn_suite().await;
    let (event_id, entered, _) = federation_event(&federation).await;
    let venue = tokio::task::spawn_blocking(Venue::new).await.unwrap();
    let pulled = venue
        .pull(&federation, &federation.admin_key, event_id)
        .await;
    let (suite, venue_admin) = venue.start().await;

    // The same copy taken in again changes nothing.
    let same = venue_admin
        .take_in_venue_copy(&pulled.copy, false)
        .await
        .unwrap();
    assert_eq!(same.created, catan_api::CopyCounts::default());
    assert_eq!(same.unchanged.players, 8);

    // A copy whose event, one player and one entry differ, and which names a new player. (An
    // entry that left at the venue is the venue's to say, not a difference: a reason given to an
    // entry still in play is.)
    let mut other: VenueCopy = pulled.copy.clone();
    other.event.name = "Barcelona grand open".into();
    other.event.qualifying_rounds = 2;
    other.players[0].name = "Someone else".into();
    other.entries[1].status_reason = Some("Left".into());
    let newcomer = Uuid::new_v4();
    other.players.push(catan_api::PlayerCopy {
        id: newcomer,
        name: "Newcomer".into(),
        region_id: other.event.region_id,
        created_at: chrono::Utc::now(),
    });
    let refusal = venue_admin.take_in_venue_copy(&other, false).await;
    let problem = problem_of(assert_refused(refusal, 409, "a copy that differs"));
    let listed: Vec<(String, String)> = problem
        .errors
        .iter()
        .map(|e| (e.field.clone(), e.code.as_str().to_owned()))
        .collect();
    let event_field = |field: &str| format!("event[{event_id}].{field}");
    let player = format!("players[{}].name", other.players[0].id);
    let entry = |field: &str| format!("entries[{}].{field}", other.entries[1].id);
    let differs = |field: String| (field, "differs".to_owned());
    assert_eq!(
        listed,
        vec![
            differs(event_field("name")),
            differs(event_field("qualifying_rounds")),
            differs(player),
            differs(entry("status_reason")),
        ]
    );
    let name = &problem.errors[0].message;
    assert!(
        name.contains("\"Barcelona open\"") && name.contains("\"Barcelona grand open\""),
        "ours and theirs: {name}"
    );

    // Nothing changed: not the event, not the player, not the entry, and no newcomer.
    let event = venue_admin.event(event_id).await.unwrap();
    assert_eq!(
        (event.name.as_str(), event.qualifying_rounds),
        ("Barcelona open", 1)
    );
    let first = venue_admin.player(other.players[0].id).await.unwrap();
    assert_ne!(first.name, "Someone else");
    let entries = venue_admin.entries(event_id).await.unwrap();
    assert!(entries.iter().all(|e| e.status == EntryStatus::Active));
    assert_eq!(entries.len(), entered.len());
    assert_refused(venue_admin.player(newcomer).await, 404, "no newcomer");

    // New ids that clash with what the venue has: a player's entry in the event, a region's
    // name (of a new event's copy).
    let late = Uuid::new_v4();
    let mut late_entry: VenueCopy = pulled.copy.clone();
    late_entry.entries = vec![catan_api::EntryCopy {
        id: late,
        ..pulled.copy.entries[0].clone()
    }];
    let twin = Uuid::new_v4();
    let mut twin_region: VenueCopy = pulled.copy.clone();
    twin_region.regions = vec![catan_api::Region {
        id: twin,
        name: "Catalonia".into(),
    }];
    twin_region.event.id = Uuid::new_v4();
    twin_region.event.region_id = Some(twin);
    (twin_region.players, twin_region.entries) = (vec![], vec![]);
    for (clashing, field) in [
        (late_entry, format!("entries[{late}].player_ids")),
        (twin_region, format!("regions[{twin}].name")),
    ] {
        let refusal = venue_admin.take_in_venue_copy(&clashing, false).await;
        let problem = problem_of(assert_refused(refusal, 409, &field));
        let fields: Vec<&str> = problem.errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, vec![field.as_str()]);
    }
    assert_refused(venue_admin.region(twin).await, 404, "no twin region");

    suite.stop().await;
    venue.remove().await;
    federation.shutdown().await;
}

#[tokio::test]
async fn a_partner_event_of_no_region_comes_with_its_teams_and_their_drops() {
    let federation = spawn_suite().await;
    let fx = federation.partner_event(4).await;
    let dropped = &fx.entries[2];
    let drop = catan_api::DropEntry {
        reason: "Left before the day".into(),
        exclude: false,
    };
    fx.director
        .drop_entry(fx.event.id, dropped.id, &drop)
        .await
        .unwrap();
    let venue = tokio::task::spawn_blocking(Venue::new).await.unwrap();
    let pulled = venue.pull(&federation, &fx.director_key, fx.event.id).await;
    assert!(pulled.copy.regions.is_empty(), "an event of no region");
    assert_eq!(
        (pulled.taken.created.players, pulled.taken.created.entries),
        (8, 4)
    );

    let (suite, venue_admin) = venue.start().await;
    let event = venue_admin.event(fx.event.id).await.unwrap();
    assert_eq!(event.partner_rules, fx.event.partner_rules);
    assert_eq!(event.region_id, None);
    let teams = |entries: &[catan_api::Entry]| -> Vec<_> {
        entries
            .iter()
            .map(|e| {
                (
                    e.id,
                    e.team_name.clone(),
                    e.player_ids.clone(),
                    e.status,
                    e.status_reason.clone(),
                )
            })
            .collect()
    };
    let at_federation = federation.admin.entries(fx.event.id).await.unwrap();
    let at_venue = venue_admin.entries(fx.event.id).await.unwrap();
    assert_eq!(teams(&at_venue), teams(&at_federation));
    let team = at_venue.iter().find(|e| e.id == dropped.id).unwrap();
    assert_eq!(team.status, EntryStatus::Dropped);
    suite.stop().await;

    venue.remove().await;
    federation.shutdown().await;
}

#[tokio::test]
async fn the_venue_serves_a_pulled_event_with_its_qr_code_and_a_director_key_of_its_own() {
    let federation = spawn_suite().await;
    let (event_id, _, _) = federation_event(&federation).await;
    let director_key = director_key(&federation, event_id).await;
    let venue = tokio::task::spawn_blocking(Venue::new).await.unwrap();
    venue.pull(&federation, &director_key, event_id).await;
    // Bound to loopback, it names that address and warns that no phone reaches it: no QR code.
    let loopback = "127.0.0.1:0".parse().unwrap();
    let served = serve::start(
        venue.settings.clone(),
        &venue.admin_key,
        loopback,
        &venue.dir,
    )
    .await
    .unwrap();
    assert_eq!(served.network_url, None);
    assert_eq!(served.listening, vec![served.suite.url()]);
    let said = serve::announcement(&served);
    assert!(
        said.contains(&format!("listens on {}", served.suite.url()))
            && said.contains("no phone can reach it")
            && said.contains("--bind 0.0.0.0:"),
        "{said}"
    );
    assert!(
        !said.contains("venue's network at") && !said.contains('▀'),
        "{said}"
    );
    served.suite.stop().await;

    // Bound to every interface, it names each of its addresses, and announces the one on the
    // venue's network, with the players' page and its QR code.
    let bind = "0.0.0.0:0".parse().unwrap();
    let served = serve::start(venue.settings.clone(), &venue.admin_key, bind, &venue.dir)
        .await
        .unwrap();
    let url = served
        .network_url
        .clone()
        .expect("this machine is on a network");
    assert!(
        !url.contains("127.0.0.1") && !url.contains("0.0.0.0"),
        "{url}"
    );
    assert!(served.listening.contains(&url), "{:?}", served.listening);
    let port = url.rsplit(':').next().unwrap();
    assert!(
        served
            .listening
            .contains(&format!("http://127.0.0.1:{port}")),
        "{:?}",
        served.listening
    );
    let [event] = &served.events[..] else {
        panic!("one event pulled: {:?}", served.events);
    };
    assert_eq!(
        event.players_url,
        format!("{url}/events/{event_id}/sign-in")
    );
    let said = serve::announcement(&served);
    assert!(said.contains("Barcelona open") && said.contains(&event.players_url));
    assert!(
        said.contains(&format!("Phones on the venue's network reach it at {url}")),
        "{said}"
    );
    assert!(!said.contains("Warning"), "{said}");
    assert!(
        said.contains('▀') && said.contains('▄'),
        "a QR code is drawn"
    );
    // A phone on the venue's network opens the players' sign-in, which names the players.
    let page = reqwest::get(&event.players_url).await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("Player 1"));

    // The director's key is the venue's own: kept for its owner only, a director of this event
    // at the venue, and unknown to the federation.
    assert_eq!(file_mode(&event.director_key_file), 0o600);
    let key = std::fs::read_to_string(&event.director_key_file).unwrap();
    let at_venue = ApiClient::new(&served.suite.url());
    let token = at_venue.token(key.trim()).await.unwrap().access_token;
    let director = at_venue.with_token(token).me().await.unwrap();
    assert_eq!(
        (director.role, director.event_ids),
        (Role::Director, Some(vec![event_id]))
    );
    assert!(federation.anonymous.token(key.trim()).await.is_err());
    served.suite.stop().await;

    // Served again, it keeps the same key.
    let again = serve::start(venue.settings.clone(), &venue.admin_key, bind, &venue.dir)
        .await
        .unwrap();
    let kept = std::fs::read_to_string(&again.events[0].director_key_file).unwrap();
    assert_eq!(kept, key);
    again.suite.stop().await;
    venue.remove().await;
    federation.shutdown().await;
}
