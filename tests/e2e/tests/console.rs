//! The organisers' and directors' console (issue 30) in headless Chromium, used as a person uses
//! it: clicks and typing only, after the admin's first key. A 16-player classic event is created,
//! its players registered (8 typed, 8 pasted from a CSV), three rounds and the playoffs drawn,
//! and every sheet entered in the form; one sheet is first sent breaking a rule and then
//! corrected, and one result is corrected later. The placements the console shows equal the
//! API's. axe-core checks every console page, in English, Spanish and Chinese.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a failed step fails the test"
)]

#[path = "console/bad_day.rs"]
mod bad_day;
#[path = "console/pins.rs"]
mod pins;
#[path = "console/sheets_checked.rs"]
mod sheets_checked;
#[path = "console/steps.rs"]
mod steps;
#[path = "console/undo_entries.rs"]
mod undo_entries;
#[path = "console/undo_rounds.rs"]
mod undo_rounds;

use catan_api::{ResultStatus, Stage};
use catan_e2e::browser::Browser;
use catan_e2e::console::{
    assert_accessible, correct_fourth_seats_settlements, create_event, fill_sheet, make_key,
    path_of, register, register_file, sign_in,
};
use catan_e2e::phone::{PHONE_WIDTH, assert_fits_phone};
use catan_e2e::{eventually, spawn_suite};
use steps::{clock_controlled, dispute_resolved_and_confirmed};

const TYPED: [&str; 8] = [
    "Ada Lovelace",
    "Grace Hopper",
    "Alan Turing",
    "Edsger Dijkstra",
    "Barbara Liskov",
    "Donald Knuth",
    "Frances Allen",
    "John Backus",
];

const CSV: &str = "name,club\nKaren Spärck Jones,Cambridge\nTony Hoare,Oxford\n\
                   Leslie Lamport,SRI\nNiklaus Wirth,Zürich\nRadia Perlman,DEC\n\
                   Ken Thompson,Bell\n\"Margaret Hamilton\",MIT\nJohn McCarthy,Stanford\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_organiser_runs_a_sixteen_player_event_from_the_browser() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    let browser = Browser::open().await;

    // The admin signs in with the first key; the key is never on a page after. He makes the
    // region and its organiser's key, shown once with its QR code.
    sign_in(&browser, &base, &ts.admin_key).await;
    assert_accessible(&browser, "console").await;
    browser.type_into("#region-name", "Console North").await;
    browser
        .click_to_next_page("#new-region ~ form button[type=submit]")
        .await;
    let organiser_key = make_key(&browser, &base, "organiser", "North organiser").await;
    let regions = ts.admin.regions().await.unwrap();
    let region = regions.iter().find(|r| r.name == "Console North").unwrap();
    let html = browser
        .js("return document.documentElement.outerHTML;")
        .await;
    assert!(
        !html.as_str().unwrap().contains(&ts.admin_key),
        "the key is not on the page"
    );
    let cookie_seen_by_scripts = browser.js("return document.cookie;").await;
    assert!(
        !cookie_seen_by_scripts
            .as_str()
            .unwrap()
            .contains("catan_session"),
        "the session cookie is HttpOnly"
    );

    // From here on the organiser runs everything.
    browser.click_to_next_page("form.sign-out button").await;
    sign_in(&browser, &base, &organiser_key).await;
    let (event_path, event_id) = create_event(
        &browser,
        region.id,
        "Console Open",
        false,
        &[("board_mode", "same_for_round")],
    )
    .await;
    let event = ts.admin.event(event_id).await.unwrap();
    assert_eq!(event.board_mode, catan_api::BoardMode::SameForRound);
    assert_eq!(
        (event.name.as_str(), event.region_id),
        ("Console Open", Some(region.id))
    );
    assert_eq!(
        (event.qualifying_rounds, event.venue.as_deref()),
        (3, Some("Hall B"))
    );
    assert_accessible(&browser, "event").await;

    // The venue corrected after the event was made.
    browser.click("details.edit-event summary").await;
    browser
        .js("document.querySelector('#edit-venue').value = '';")
        .await;
    browser.type_into("#edit-venue", "Hall C").await;
    browser
        .click_to_next_page("details.edit-event button[type=submit]")
        .await;
    let edited = ts.admin.event(event_id).await.unwrap();
    assert_eq!(edited.venue.as_deref(), Some("Hall C"));

    // Eight players typed, one a line; eight from a CSV file. Each PIN is shown once.
    register(&browser, &TYPED.join("\n")).await;
    assert_eq!(browser.texts(".slips li").await.len(), 8, "eight PINs");
    register_file(&browser, CSV).await;
    assert_eq!(browser.texts(".slips li").await.len(), 8, "eight more PINs");
    assert_accessible(&browser, "event with PINs").await;
    browser.go(&format!("{base}{event_path}")).await;
    assert!(
        browser.texts(".pins").await.is_empty(),
        "PINs are not shown again"
    );
    let entries = ts.admin.entries(event_id).await.unwrap();
    assert_eq!(entries.len(), 16);
    assert!(entries.iter().any(|e| e.name == "Margaret Hamilton"));

    // A player the federation knows is found by name and entered, never registered twice.
    browser.type_into("#q", "ada love").await;
    browser.click_to_next_page("form[role=search] button").await;
    assert_eq!(browser.texts("ul.found li").await.len(), 1);
    assert!(browser.texts("ul.found li").await[0].contains("entered"));

    // The organiser's season: made, and the event joined to it; a director's key for the event.
    browser.go(&format!("{base}/console/seasons")).await;
    assert_accessible(&browser, "seasons").await;
    browser.type_into("#season-name", "North 2026").await;
    browser
        .js(
            "document.querySelector('#season-starts').value = '2026-01-01';\
             document.querySelector('#season-ends').value = '2026-12-31';",
        )
        .await;
    browser
        .click_to_next_page("#new-season ~ form button[type=submit]")
        .await;
    browser
        .click_to_next_page("#join-h ~ form button[type=submit]")
        .await;
    let seasons = ts.admin.seasons(Some(region.id)).await.unwrap();
    assert_eq!(seasons.len(), 1);
    assert_eq!(seasons[0].event_ids, vec![event_id], "the event joined");
    let director_key = make_key(&browser, &base, "director", "Hall B director").await;
    let director = ts.client_for(&director_key).await.me().await.unwrap();
    assert_eq!(director.event_ids, Some(vec![event_id]));

    // The event's director runs its rounds.
    browser.click_to_next_page("form.sign-out button").await;
    sign_in(&browser, &base, &director_key).await;

    // Two players the draw must seat apart.
    browser.go(&format!("{base}{event_path}")).await;
    assert_accessible(&browser, "the director's event page").await;
    browser
        .click_to_next_page("#apart-h ~ form button[type=submit]")
        .await;
    let apart = ts.admin.keep_apart(event_id).await.unwrap();
    assert_eq!(apart.pairs.len(), 1, "one pair kept apart");
    assert_eq!(browser.texts("ul.keep-apart li").await.len(), 1);

    // Three qualifying rounds, the semi-finals and the final, each drawn from the same control,
    // each sheet entered in the form.
    let mut broke_a_rule = false;
    for expected in [
        Stage::Qualifying,
        Stage::Qualifying,
        Stage::Qualifying,
        Stage::Semifinal,
        Stage::Final,
    ] {
        browser.go(&format!("{base}{event_path}")).await;
        browser
            .click_to_next_page("#rounds-h ~ form button[type=submit]")
            .await;
        let round_path = path_of(&browser).await;
        let n: u32 = round_path.rsplit('/').next().unwrap().parse().unwrap();
        let drawn = ts.admin.round(event_id, n).await.unwrap();
        assert_eq!(drawn.stage, expected);
        if n == 1 {
            let [a, b] = apart.pairs[0];
            let together = drawn.tables.iter().any(|t| {
                t.seats.iter().any(|s| s.player_id == a) && t.seats.iter().any(|s| s.player_id == b)
            });
            assert!(!together, "the pair sits apart");
        }
        assert_accessible(&browser, "round").await;
        let tables = browser.texts("#round-tables tbody tr").await.len();
        if n == 1 {
            // The next round waits for this one's results: the refusal links each table.
            browser.go(&format!("{base}{event_path}")).await;
            browser
                .click_to_next_page("#rounds-h ~ form button[type=submit]")
                .await;
            let links = browser.texts("#draw-refused li a").await;
            assert_eq!(
                links.len(),
                tables,
                "each table without a result: {links:?}"
            );
            assert_accessible(&browser, "refused draw").await;
            browser.click_to_next_page("#draw-refused li a").await;
            browser.go(&format!("{base}{round_path}")).await;
        }
        for t in 1..=tables {
            browser
                .click_to_next_page(&format!("#round-tables tbody tr:nth-child({t}) a"))
                .await;
            if !broke_a_rule {
                // 8 VP for the winner: refused, said beside the winner and the form kept.
                fill_sheet(&browser, 3).await;
                let shown = browser.texts("output[data-vp]").await;
                assert_eq!(shown[0], "8", "the VP are added up as they are typed");
                browser
                    .click_to_next_page("form[data-sheet] button[type=submit]")
                    .await;
                let errors = browser.texts("[role=alert]").await;
                assert!(
                    errors.iter().any(|e| e.contains("10")),
                    "the broken rule is shown: {errors:?}"
                );
                assert_accessible(&browser, "sheet with errors").await;
                broke_a_rule = true;
            }
            fill_sheet(&browser, 4).await;
            browser
                .click_to_next_page("form[data-sheet] button[type=submit]")
                .await;
            let refused = browser.texts("[role=alert]").await;
            assert_eq!(
                path_of(&browser).await,
                round_path,
                "back to the round: {refused:?}"
            );
        }
        let states = browser.texts("#round-tables tbody tr td:last-child").await;
        assert!(
            states.iter().all(|s| s == "posted"),
            "every table posted: {states:?}"
        );
        if n == 1 {
            // A result corrected later: round 1, table 1, a loser's count changed.
            browser
                .go(&format!("{base}{event_path}/rounds/1/tables/1"))
                .await;
            assert_accessible(&browser, "sheet to correct").await;
            correct_fourth_seats_settlements(&browser).await;
            let history = ts.admin.result_history(event_id, 1, 1).await.unwrap();
            assert_eq!(history.items.len(), 2, "the correction is a second version");
            assert_eq!(history.items[1].status, ResultStatus::Posted);
            browser
                .go(&format!("{base}{event_path}/rounds/1/tables/1"))
                .await;
            assert_eq!(browser.texts("ol.history > li").await.len(), 2);
            dispute_resolved_and_confirmed(&ts, &browser, &base, &event_path, event_id).await;
        }
        if n == 2 {
            clock_controlled(&ts, &browser, &base, &event_path, event_id).await;
        }
    }

    // The placements the console shows are the API's.
    let placements = eventually(20, "the placements", async || {
        let p = ts.admin.placements(event_id).await.ok()?;
        p.complete.then_some(p)
    })
    .await;
    browser.go(&format!("{base}{event_path}")).await;
    let shown = browser.texts("#placements tbody tr td:nth-child(2)").await;
    let expected: Vec<String> = placements.rows.iter().map(|r| r.name.clone()).collect();
    assert_eq!(shown, expected, "the console's placements are the API's");

    // Every console page reads in Spanish and Chinese too, and passes axe-core there.
    for (tag, words) in [("es", "Consola"), ("zh", "控制台")] {
        browser
            .go(&format!("{base}/lang?to={tag}&back={}", "/console"))
            .await;
        for page in [
            "/console".to_owned(),
            format!("{event_path}/audit"),
            event_path.clone(),
            format!("{event_path}/rounds/1"),
            format!("{event_path}/rounds/1/tables/1"),
        ] {
            browser.go(&format!("{base}{page}")).await;
            let h1 = browser.texts("header nav a").await;
            assert!(h1.iter().any(|t| t == words), "{tag} {page}: {h1:?}");
            assert_accessible(&browser, &format!("{tag} {page}")).await;
        }
    }

    // The organiser's own pages, in each language; a namesake of a player of the event, as a
    // venue's publish leaves one, puts a pair on the page of players who may be one person.
    let namesake = catan_api::CreatePlayer {
        name: "grace hopper".into(),
        region_id: Some(region.id),
    };
    ts.admin.create_player(&namesake).await.unwrap();
    browser.click_to_next_page("form.sign-out button").await;
    sign_in(&browser, &base, &organiser_key).await;
    for (tag, words) in [("en", "Console"), ("es", "Consola"), ("zh", "控制台")] {
        browser
            .go(&format!("{base}/lang?to={tag}&back={}", "/console"))
            .await;
        for page in ["/console/keys", "/console/seasons", "/console/duplicates"] {
            browser.go(&format!("{base}{page}")).await;
            let nav = browser.texts("header nav a").await;
            assert!(nav.iter().any(|t| t == words), "{tag} {page}: {nav:?}");
            assert_accessible(&browser, &format!("{tag} {page}")).await;
        }
        assert_eq!(browser.texts("li.duplicate form button").await.len(), 2);
    }
    browser.resize(PHONE_WIDTH, 800).await;
    browser.go(&format!("{base}/console/duplicates")).await;
    assert_fits_phone(&browser, "/console/duplicates").await;

    // Sign-out ends the session: the console asks to sign in again, in each language.
    browser.click_to_next_page("form.sign-out button").await;
    browser.go(&format!("{base}/console")).await;
    assert_eq!(path_of(&browser).await, "/sign-in");
    for tag in ["en", "es", "zh"] {
        browser
            .go(&format!("{base}/lang?to={tag}&back=/sign-in"))
            .await;
        assert_accessible(&browser, &format!("{tag} sign-in")).await;
    }
    browser.close().await;
    ts.shutdown().await;
}

/// `cargo test -p catan-e2e --test console -- --ignored --exact console_screenshots`: the
/// console's pages as the README shows them, written to `docs/screenshots/`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "writes docs/screenshots/console-*.png; run it to refresh the README's pictures"]
async fn console_screenshots() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    let region = ts.admin.create_region("Console North").await.unwrap();
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/screenshots");
    std::fs::create_dir_all(&out).unwrap();
    let browser = Browser::open().await;
    let shoot = async |name: &str, width: u32, height: u32| {
        browser.resize(width, height).await;
        std::fs::write(out.join(format!("{name}.png")), browser.screenshot().await).unwrap();
    };
    sign_in(&browser, &base, &ts.admin_key).await;
    shoot("console-events", 1280, 900).await;
    let (event_path, _) = create_event(&browser, region.id, "Console Open", false, &[]).await;
    register(&browser, &TYPED.join("\n")).await;
    register(&browser, CSV).await;
    shoot("console-pins", 1280, 1100).await;
    browser.go(&format!("{base}{event_path}")).await;
    browser
        .click_to_next_page("#rounds-h ~ form button[type=submit]")
        .await;
    browser
        .click_to_next_page("#round-tables tbody tr:nth-child(1) a")
        .await;
    fill_sheet(&browser, 3).await;
    browser
        .click_to_next_page("form[data-sheet] button[type=submit]")
        .await;
    shoot("console-sheet-refused", 1280, 1000).await;
    browser
        .go(&format!("{base}/lang?to=es&back={event_path}/rounds/1"))
        .await;
    shoot("console-round-phone-es", 360, 800).await;
    browser.close().await;
    ts.shutdown().await;
}
