//! The director undoes in the console (issue 41), by clicks: a round drawn, a no-show dropped and
//! the round redrawn without him, two players swapped; each action says what it did, the event
//! page shows each round's state and the standings, and the round's clock ticks.

use catan_api::DropEntry;
use catan_e2e::browser::Browser;
use catan_e2e::console::{assert_accessible, fill_sheet, path_of, said, sign_in};
use catan_e2e::phone::{PHONE_WIDTH, assert_fits_phone};
use catan_e2e::{eventually, seated, spawn_suite};
use std::collections::HashSet;
use uuid::Uuid;

/// The time left the page's clock shows, in seconds.
async fn seconds(browser: &Browser) -> i64 {
    let shown = browser.texts(".console-clock [role=timer]").await.remove(0);
    let (minutes, seconds) = shown.split_once(':').expect("m:ss");
    minutes.parse::<i64>().unwrap() * 60 + seconds.parse::<i64>().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_director_redraws_and_swaps_a_round_from_the_console() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    let fx = ts.classic_event(13, Some(3)).await;
    let event_id = fx.event.id;
    let event_path = format!("/console/events/{event_id}");
    let browser = Browser::open().await;
    sign_in(&browser, &base, &fx.director_key).await;

    // Round 1 drawn from the event page: the round's page says so, and the event page shows the
    // round's state.
    browser.go(&format!("{base}{event_path}")).await;
    browser
        .click_to_next_page("#rounds-h ~ form button[type=submit]")
        .await;
    let round_path = format!("{event_path}/rounds/1");
    assert_eq!(path_of(&browser).await, round_path);
    assert_eq!(said(&browser).await, ["Round 1 drawn"]);
    let search = browser.js("return location.search;").await;
    assert_eq!(
        search, "",
        "taken off the address: a reload does not say it again"
    );
    let first = ts.admin.round(event_id, 1).await.unwrap();
    browser.go(&format!("{base}{event_path}")).await;
    let states = browser.texts(".console-rounds .round-state").await;
    assert_eq!(states, ["drawn, no result yet"]);
    assert!(said(&browser).await.is_empty());

    // A player does not show: dropped, and the round redrawn from its page without him.
    let no_show = first.tables[0].seats[0].player_id;
    let entry = fx
        .entries
        .iter()
        .find(|e| e.player_id == Some(no_show))
        .unwrap();
    let reason = DropEntry {
        reason: "did not show".into(),
        exclude: false,
    };
    fx.director
        .drop_entry(event_id, entry.id, &reason)
        .await
        .unwrap();
    browser.resize(PHONE_WIDTH, 800).await;
    browser.go(&format!("{base}{round_path}")).await;
    browser.click("details.redraw summary").await;
    browser.click("details.swap summary").await;
    assert_fits_phone(&browser, "the round with its changes open").await;
    assert_accessible(&browser, "the round with its changes open").await;
    browser
        .click_to_next_page("details.redraw button[type=submit]")
        .await;
    assert_eq!(said(&browser).await, ["Round 1 redrawn"]);
    let redrawn = ts.admin.round(event_id, 1).await.unwrap();
    let seated_now: HashSet<Uuid> = redrawn.tables.iter().flat_map(seated).collect();
    assert_eq!(seated_now.len(), 12);
    assert!(!seated_now.contains(&no_show), "the no-show is not seated");
    assert_ne!(redrawn.seed, first.seed);
    let rows = browser.texts("#round-tables tbody tr").await;
    assert_eq!(rows.len(), 3, "the page shows the new draw: {rows:?}");

    // Two players swapped between tables 1 and 3: the round says it was changed by hand.
    let (a, b) = (
        redrawn.tables[0].seats[1].player_id,
        redrawn.tables[2].seats[2].player_id,
    );
    browser.click("details.swap summary").await;
    browser
        .click(&format!("#swap-player option[value='{a}']"))
        .await;
    browser
        .click(&format!("#swap-with option[value='{b}']"))
        .await;
    browser
        .click_to_next_page("details.swap button[type=submit]")
        .await;
    assert_eq!(said(&browser).await, ["Players swapped in round 1"]);
    let swapped = ts.admin.round(event_id, 1).await.unwrap();
    assert!(swapped.changed_by_hand);
    assert_eq!(swapped.tables[0].seats[1].player_id, b);
    assert_eq!(swapped.tables[2].seats[2].player_id, a);
    assert_eq!(
        browser.texts(".round-state .changed-by-hand").await,
        ["changed by hand"]
    );
    assert_fits_phone(&browser, "a round changed by hand").await;

    // The clock started from the round's page ticks; a reload shows the server's time.
    browser
        .click_to_next_page(".clock-buttons form button")
        .await;
    assert_eq!(said(&browser).await, ["Round clock started"]);
    let shown = seconds(&browser).await;
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    let later = seconds(&browser).await;
    assert!(
        (1..=4).contains(&(shown - later)),
        "the clock counts down: {shown} s, then {later} s"
    );
    browser.go(&format!("{base}{round_path}")).await;
    let reloaded = seconds(&browser).await;
    assert!(
        reloaded <= later && reloaded + 30 > later,
        "a reload shows the server's time: {later} s, then {reloaded} s"
    );

    // A sheet recorded: the round can no longer be redrawn or swapped, and the event page says
    // where its results are.
    browser.resize(1280, 900).await;
    browser
        .click_to_next_page("#round-tables tbody tr:nth-child(1) a")
        .await;
    fill_sheet(&browser, 4).await;
    browser
        .click_to_next_page("form[data-sheet] button[type=submit]")
        .await;
    browser.go(&format!("{base}{round_path}")).await;
    assert!(browser.texts("details.redraw").await.is_empty());
    let refused = fx
        .director
        .redraw_round(event_id, 1, &catan_api::DrawRound::default())
        .await;
    catan_e2e::assert_refused(refused, 409, "a table has a result");
    browser.go(&format!("{base}{event_path}")).await;
    let states = browser.texts(".console-rounds .round-state").await;
    assert_eq!(states, ["results 1 of 3"]);
    // The event's clock ticks on the event page too.
    let shown = seconds(&browser).await;
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    let later = seconds(&browser).await;
    assert!(
        (1..=4).contains(&(shown - later)),
        "the event page's clock counts down: {shown} s, then {later} s"
    );

    // The standings, as the API reads them, on the event page.
    let standings = eventually(20, "the result in the standings", async || {
        let s = ts.admin.standings(event_id).await.ok()?;
        s.rows.iter().any(|r| r.games > 0).then_some(s)
    })
    .await;
    browser.go(&format!("{base}{event_path}")).await;
    let shown = browser
        .js("return Array.from(document.querySelectorAll('#standings tbody tr[data-id]')).map(r => r.dataset.id);")
        .await;
    let expected: Vec<String> = standings
        .rows
        .iter()
        .map(|r| r.player_id.to_string())
        .collect();
    assert_eq!(
        shown,
        serde_json::json!(expected),
        "the standings are the API's"
    );
    assert_accessible(&browser, "the event page with standings").await;
    browser.resize(PHONE_WIDTH, 800).await;
    assert_fits_phone(&browser, "the event page").await;

    for (tag, state) in [("es", "resultados: 1 de 3"), ("zh", "已交成绩 1/3 桌")] {
        browser
            .go(&format!("{base}/lang?to={tag}&back={event_path}"))
            .await;
        let states = browser.texts(".console-rounds .round-state").await;
        assert_eq!(states, [state], "{tag}");
        assert_accessible(&browser, &format!("{tag} event page")).await;
        browser.go(&format!("{base}{round_path}")).await;
        assert_accessible(&browser, &format!("{tag} round page")).await;
    }
    browser.close().await;
    ts.shutdown().await;
}
