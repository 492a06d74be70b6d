//! Issue 41, item 4: the director reissues every PIN of an event in one action (after a confirm
//! step) and prints the slips again; a page that showed PINs, loaded again, says they were shown
//! once and how to reissue them; in Chromium by clicks, and over plain HTTP without scripts.

use catan_e2e::browser::Browser;
use catan_e2e::console::{assert_accessible, path_of, register, sign_in};
use catan_e2e::phone::{PHONE_WIDTH, assert_fits_phone};
use catan_e2e::spawn_suite;
use catan_e2e::visitor::Visitor;
use reqwest::StatusCode;
use serde_json::json;

/// The PINs the page shows, as `(player's name, PIN)` in the slips' order.
async fn slips(browser: &Browser) -> Vec<(String, String)> {
    let names = browser.texts(".slips li .slip-name").await;
    let pins = browser.texts(".slips li code.pin").await;
    assert_eq!(names.len(), pins.len());
    names.into_iter().zip(pins).collect()
}

/// Reloads the page as the browser's reload button does.
async fn reload(browser: &Browser) {
    browser.js("window.__catan_previous_page = true;").await;
    browser
        .call(reqwest::Method::POST, "/refresh", Some(json!({})))
        .await;
    catan_e2e::eventually(20, "the page loaded again", async || {
        let loaded = browser
            .js("return window.__catan_previous_page === undefined \
                 && document.readyState === 'complete';")
            .await;
        loaded.as_bool().filter(|l| *l)
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_director_reissues_every_pin_and_a_reloaded_page_says_they_were_shown_once() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    let fx = ts.classic_event(3, Some(1)).await;
    let id = fx.event.id;
    let event_path = format!("/console/events/{id}");
    let browser = Browser::open().await;
    sign_in(&browser, &base, &fx.director_key).await;
    browser.go(&format!("{base}{event_path}")).await;

    // Two more players typed in: their slips, then the page loaded again says they were shown.
    register(&browser, "Hedy Lamarr\nAnnie Easley").await;
    assert_eq!(slips(&browser).await.len(), 2, "two new PINs");
    reload(&browser).await;
    assert!(
        browser.texts(".slips li").await.is_empty(),
        "not shown again"
    );
    let said = browser.texts(".pins-shown").await;
    assert!(
        said.len() == 1 && said[0].contains("shown once") && said[0].contains("reissue all PINs"),
        "{said:?}"
    );
    assert_eq!(path_of(&browser).await, event_path, "the event's page");
    let entries = ts.admin.entries(id).await.unwrap();
    assert_eq!(entries.len(), 5, "the reload entered no one twice");
    assert_accessible(&browser, "the PINs shown once").await;

    // Reissue all: a confirm step first, which can be left with the old PINs kept.
    browser
        .click_to_next_page(".pins-shown a[href$='/pins']")
        .await;
    assert_eq!(path_of(&browser).await, format!("{event_path}/pins"));
    let warning = browser.texts("main p").await.join(" ");
    assert!(warning.contains("stops working"), "{warning}");
    assert_accessible(&browser, "reissue every PIN").await;
    browser.click_to_next_page("main a.secondary").await;
    assert_eq!(path_of(&browser).await, event_path, "kept the old PINs");
    let old = &fx.entries[0].pins.as_ref().unwrap()[0];
    ts.anonymous
        .player_token(id, old.player_id, &old.pin)
        .await
        .expect("nothing was reissued");

    // Confirmed: every player's new PIN as a slip; the old ones stop working.
    browser
        .click_to_next_page("#players-h ~ p a[href$='/pins']")
        .await;
    browser
        .click_to_next_page("main form[action$='/pins'] button[type=submit]")
        .await;
    let shown = slips(&browser).await;
    assert_eq!(shown.len(), 5, "a slip for each player: {shown:?}");
    let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    assert_eq!(
        shown
            .iter()
            .map(|(name, _)| name.clone())
            .collect::<Vec<_>>(),
        names,
        "in the entries' order"
    );
    assert_eq!(
        browser.texts(".slips li figure.qr svg").await.len(),
        5,
        "each slip with its code"
    );
    assert_eq!(browser.texts("button[data-print]").await.len(), 1);
    assert_accessible(&browser, "every PIN reissued").await;
    catan_e2e::assert_refused(
        ts.anonymous.player_token(id, old.player_id, &old.pin).await,
        401,
        "the old PIN",
    );
    for (entry, (_, pin)) in entries.iter().zip(&shown) {
        ts.anonymous
            .player_token(id, entry.player_ids[0], pin)
            .await
            .expect("each new PIN signs its player in");
    }
    // Loaded again, the page says they were shown once and reissues nothing.
    reload(&browser).await;
    assert!(browser.texts(".slips li").await.is_empty());
    assert_eq!(browser.texts(".pins-shown").await.len(), 1);
    ts.anonymous
        .player_token(id, entries[0].player_ids[0], &shown[0].1)
        .await
        .expect("the reload reissued nothing");

    // In each language, on a phone: the confirm step and the page that says the PINs were shown.
    browser.resize(PHONE_WIDTH, 800).await;
    for tag in ["en", "es", "zh"] {
        for page in [
            format!("{event_path}/pins"),
            format!("{event_path}?pins=shown"),
        ] {
            let query =
                serde_urlencoded::to_string([("to", tag), ("back", page.as_str())]).unwrap();
            browser.go(&format!("{base}/lang?{query}")).await;
            assert_accessible(&browser, &format!("{tag} {page}")).await;
            assert_fits_phone(&browser, &format!("{tag} {page}")).await;
        }
        assert_eq!(browser.texts(".pins-shown").await.len(), 1, "{tag}");
    }
    browser.close().await;
    ts.shutdown().await;
}

/// Without scripts a reload sends the form again: the API refuses it (the PINs were shown once)
/// and the page says so, with the way to reissue them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_form_sent_again_without_scripts_is_told_the_pins_were_shown_once() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(2, Some(1)).await;
    let id = fx.event.id;
    let mut director = Visitor::new(&ts);
    director.sign_in(&fx.director_key).await;
    let confirm = director.get(&format!("/console/events/{id}/pins")).await;
    assert_eq!(confirm.status, StatusCode::OK, "{}", confirm.body);
    let fields = [
        ("csrf", confirm.hidden("csrf")),
        ("form_key", confirm.hidden("form_key")),
    ];
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let first = director
        .post(&format!("/console/events/{id}/pins"), &fields)
        .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    assert_eq!(first.body.matches("class=\"slip\"").count(), 2);
    let again = director
        .post(&format!("/console/events/{id}/pins"), &fields)
        .await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.body);
    assert!(!again.body.contains("class=\"slip\""), "{}", again.body);
    assert!(
        again.body.contains("were shown once") && again.body.contains("/pins\""),
        "{}",
        again.body
    );
    // A scorer is not offered the action, and is refused it.
    let scorer = ts
        .admin
        .create_api_key(&catan_e2e::new_key(
            "Table app",
            catan_api::Role::Scorer,
            Some(vec![id]),
        ))
        .await
        .unwrap();
    let mut table_app = Visitor::new(&ts);
    table_app.sign_in(&scorer.api_key).await;
    let page = table_app.get(&format!("/console/events/{id}")).await;
    assert!(!page.body.contains(&format!("/console/events/{id}/pins")));
    let refused = table_app.get(&format!("/console/events/{id}/pins")).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    ts.shutdown().await;
}
