//! Players who may be one person (issue 34, item 4), over plain HTTP: after a venue's publish the
//! federation holds the player it knew and the one registered at the venue by the same name; the
//! organiser finds the pair in the console's list and merges them with the existing merge.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a failed step fails the test"
)]

use catan_api::{CreateEntry, CreateEvent, CreatePlayer, Player};
use catan_e2e::fixtures::new_organiser_key;
use catan_e2e::visitor::Visitor;
use catan_e2e::{spawn_suite, spawn_suite_configured};
use reqwest::StatusCode;
use uuid::Uuid;

#[tokio::test]
async fn an_organiser_merges_a_venue_s_new_player_into_the_one_the_federation_knew() {
    let ts = spawn_suite().await;
    let north = ts.admin.create_region("North").await.unwrap().id;
    let south = ts.admin.create_region("South").await.unwrap().id;
    let key = ts
        .admin
        .create_api_key(&new_organiser_key("Organiser of North", vec![north]))
        .await
        .unwrap();
    let organiser = ts.client_for(&key.api_key).await;
    let register = async |name: &str, region: Uuid| -> Player {
        let body = CreatePlayer {
            name: name.into(),
            region_id: Some(region),
        };
        ts.admin.create_player(&body).await.unwrap()
    };
    let cup = ts
        .admin
        .create_event(&CreateEvent {
            region_id: Some(north),
            ..CreateEvent::classic("North Cup")
        })
        .await
        .unwrap();
    // The player the federation knew, with his event; then the one a venue's publish leaves
    // (a new id, the same name but for case and accents), later.
    let known = register("José Peña", north).await;
    ts.admin
        .create_entry(cup.id, &CreateEntry::player(known.id))
        .await
        .unwrap();
    let at_venue = register("jose pena", north).await;
    // Not offered to the organiser: a pair of another region; to nobody: two of one name who
    // played one event.
    register("José Peña", south).await;
    register("JOSE PEÑA", south).await;
    for _ in 0..2 {
        let ada = register("Ada Lovelace", north).await;
        ts.admin
            .create_entry(cup.id, &CreateEntry::player(ada.id))
            .await
            .unwrap();
    }

    let offered = organiser.merge_candidates(None, 50, 0).await.unwrap();
    assert_eq!(offered.len(), 1, "one pair in the organiser's regions");
    assert_eq!(offered[0].older.player.id, known.id);
    assert_eq!(offered[0].newer.player.id, at_venue.id);
    assert_eq!(offered[0].older.events[0].name, "North Cup");
    let elsewhere = organiser.merge_candidates(Some(south), 50, 0).await;
    assert_eq!(elsewhere.unwrap_err().status(), Some(403));
    let everywhere = ts.admin.merge_candidates(None, 50, 0).await.unwrap();
    assert_eq!(everywhere.len(), 2, "the admin's are every region's");

    let mut visitor = Visitor::new(&ts);
    visitor.sign_in(&key.api_key).await;
    let console = visitor.get("/console").await;
    assert!(console.body.contains("href=\"/console/duplicates\""));
    let list = visitor.get("/console/duplicates").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(list.body.contains("Players who may be the same person"));
    assert!(list.body.contains("José Peña") && list.body.contains("North Cup"));
    assert!(
        list.body.contains("Merge jose pena (") && list.body.contains(") into José Peña ("),
        "{}",
        list.body
    );
    assert!(!list.body.contains("Ada Lovelace"), "two people who met");

    let csrf = list.hidden("csrf");
    let merge = async |visitor: &mut Visitor, duplicate: Uuid, into: Uuid| {
        let (form_key, duplicate, into) = (
            Uuid::new_v4().to_string(),
            duplicate.to_string(),
            into.to_string(),
        );
        let fields = [
            ("csrf", csrf.as_str()),
            ("form_key", form_key.as_str()),
            ("duplicate", duplicate.as_str()),
            ("into", into.as_str()),
        ];
        visitor.post("/console/duplicates/merge", &fields).await
    };
    // Without the session's CSRF token nothing is merged.
    let forged = visitor
        .post(
            "/console/duplicates/merge",
            &[
                ("duplicate", at_venue.id.to_string().as_str()),
                ("into", known.id.to_string().as_str()),
            ],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert_eq!(
        ts.admin.player(at_venue.id).await.unwrap().merged_into,
        None
    );

    let merged = merge(&mut visitor, at_venue.id, known.id).await;
    assert_eq!(merged.status, StatusCode::SEE_OTHER, "{}", merged.body);
    assert_eq!(merged.location.as_deref(), Some("/console/duplicates"));
    let after = visitor.get("/console/duplicates").await;
    assert!(!after.body.contains("Merge jose pena"), "{}", after.body);
    assert!(
        after
            .body
            .contains("No two players of your regions share a name.")
    );
    let player = ts.admin.player(at_venue.id).await.unwrap();
    assert_eq!(player.merged_into, Some(known.id));

    // The other form of the page shown before, sent late: refused, and said readably.
    let late = merge(&mut visitor, known.id, at_venue.id).await;
    assert_eq!(late.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        late.body
            .contains("One of these players has been merged already."),
        "{}",
        late.body
    );
    assert_eq!(ts.admin.player(known.id).await.unwrap().merged_into, None);
    ts.shutdown().await;
}

#[tokio::test]
async fn the_list_is_shown_a_region_at_a_time_and_fifty_pairs_a_page() {
    // The admin registers 106 players: more than a key's rate limit lets through.
    let ts = spawn_suite_configured(|settings| {
        settings.rate_limit.per_second = 10_000.0;
        settings.rate_limit.burst = 10_000.0;
    })
    .await;
    let north = ts.admin.create_region("North").await.unwrap().id;
    let south = ts.admin.create_region("South").await.unwrap().id;
    let register = async |name: String, region: Uuid| {
        let body = CreatePlayer {
            name,
            region_id: Some(region),
        };
        ts.admin.create_player(&body).await.unwrap();
    };
    // 51 pairs in the North, 2 in the South.
    for i in 0..51 {
        for name in [format!("Player {i:02}"), format!("player {i:02}")] {
            register(name, north).await;
        }
    }
    for name in ["Zoë Ångström", "zoe angstrom", "Mía Ruiz", "mia ruiz"] {
        register(name.to_owned(), south).await;
    }
    let shown = |body: &str| body.matches("<li class=\"duplicate\"").count();

    let mut visitor = Visitor::new(&ts);
    visitor.sign_in(&ts.admin_key).await;
    let first = visitor.get("/console/duplicates").await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    assert_eq!(shown(&first.body), 50, "fifty pairs a page");
    assert!(
        first
            .body
            .contains("rel=\"next\" href=\"/console/duplicates?page=2\"")
    );
    let second = visitor.get("/console/duplicates?page=2").await;
    assert_eq!(shown(&second.body), 3, "the last pairs, on the next page");
    assert!(
        second
            .body
            .contains("rel=\"prev\" href=\"/console/duplicates\"")
    );
    assert!(!second.body.contains("rel=\"next\""));

    let south_only = visitor
        .get(&format!("/console/duplicates?region={south}"))
        .await;
    assert_eq!(shown(&south_only.body), 2, "{}", south_only.body);
    assert!(south_only.body.contains("Zoë Ångström") && south_only.body.contains("Mía Ruiz"));
    assert!(!south_only.body.contains("Player 00"));
    assert!(
        south_only.body.contains(&format!(
            "<option value=\"{south}\" selected>South</option>"
        )),
        "the region asked for stays chosen"
    );
    assert!(!south_only.body.contains("rel=\"next\""));
    ts.shutdown().await;
}
