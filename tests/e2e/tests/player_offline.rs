//! The player's phone through a network drop (issue 31, item 4), in headless Chromium with the
//! network cut through the DevTools protocol, for the page and for its service worker: My event
//! stays readable with the time it was last updated; a sheet and a confirmation sent offline wait
//! in the page, outlive the tab, and reach the API exactly once when the network is back, even
//! sent again; and signing out leaves nothing of the player's on the phone.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a failed step fails the test"
)]

use catan_api::{CreateEvent, PlayerReporting, Round};
use catan_e2e::browser::Browser;
use catan_e2e::console::fill_sheet;
use catan_e2e::network::Offline;
use catan_e2e::phone::{PHONE_WIDTH, pin_of, sign_in_with_pin};
use catan_e2e::{EventFixture, TestSuite, eventually, seated, spawn_suite, won_by_first};
use reqwest::Method;
use serde_json::{Value, json};
use uuid::Uuid;

/// What the page shows of its offline state.
#[derive(Debug)]
struct Shown {
    /// Served from the phone's kept copy.
    kept: bool,
    /// The offline banner's text, when shown.
    banner: Option<String>,
    /// The page's `data-updated-at`.
    updated_at: String,
    /// The page's own "Updated" time.
    updated_text: String,
    /// The waiting list's lines: their state and text.
    waiting: Vec<(String, String)>,
    /// The note under a form kept to send later.
    saved: Option<String>,
}

async fn shown(browser: &Browser) -> Shown {
    let v = browser
        .js("const main = document.querySelector('main[data-offline-page]');
             const banner = document.querySelector('[data-offline-banner]');
             const section = document.querySelector('[data-offline-waiting]');
             const lines = section && !section.hidden
                 ? Array.from(section.querySelectorAll('li')) : [];
             return {kept: !!main && main.hasAttribute('data-offline-kept'),
                     banner: banner && !banner.hidden ? banner.textContent : null,
                     updated_at: main ? main.dataset.updatedAt : '',
                     updated_text: (document.querySelector('.updated time') || {}).textContent || '',
                     waiting: lines.map(li => [li.dataset.state, li.textContent]),
                     saved: (document.querySelector('[data-offline-saved]') || {}).textContent};")
        .await;
    Shown {
        kept: v["kept"].as_bool().unwrap(),
        banner: v["banner"].as_str().map(str::to_owned),
        updated_at: v["updated_at"].as_str().unwrap_or_default().to_owned(),
        updated_text: v["updated_text"].as_str().unwrap_or_default().to_owned(),
        waiting: serde_json::from_value(v["waiting"].clone()).unwrap(),
        saved: v["saved"].as_str().map(str::to_owned),
    }
}

/// Waits until the page shows what `done` looks for.
async fn until(browser: &Browser, what: &str, done: impl Fn(&Shown) -> bool) -> Shown {
    eventually(20, what, async || {
        let ready = browser
            .js("return document.readyState === 'complete';")
            .await;
        if ready.as_bool() != Some(true) {
            return None;
        }
        Some(shown(browser).await).filter(&done)
    })
    .await
}

/// The page shown from the phone's copy, saying so with the time it was last updated (the
/// page's own, as it writes it: "14:05 UTC").
fn offline_as_last_updated(page: &Shown) -> bool {
    let time = page.updated_at.get(11..16).unwrap_or("?");
    page.kept
        && page.updated_text == format!("{time} UTC")
        && page.banner.as_deref() == Some(&format!("Offline — as last updated at {time}"))
}

/// Waits until the service worker keeps each of `paths` for reading offline.
async fn kept_for_offline(browser: &Browser, base: &str, paths: &[&str]) {
    let urls: Vec<String> = paths.iter().map(|p| format!("{base}{p}")).collect();
    let script = format!(
        "const done = arguments[arguments.length - 1];
         Promise.all({}.map(url => caches.match(url)))
             .then(found => done(found.every(Boolean)), () => done(false));",
        serde_json::to_string(&urls).unwrap()
    );
    eventually(20, "the pages kept for offline", async || {
        browser.js_async(&script).await.as_bool().filter(|k| *k)
    })
    .await;
}

/// The writes waiting on the phone, as kept: {action, body, ...}.
async fn waiting_writes(browser: &Browser) -> Vec<Value> {
    let kept = browser
        .js_async(
            "const done = arguments[arguments.length - 1];
             CatanOffline.writes().then(done, e => done(String(e)));",
        )
        .await;
    kept.as_array().expect("the waiting writes").clone()
}

/// A classic event where one player at a table reports its sheet: round 1's sheets posted by
/// the scorer, round 2 drawn.
async fn event_in_round_two(ts: &TestSuite) -> (EventFixture, Round, Round) {
    let body = CreateEvent {
        player_reporting: Some(PlayerReporting::Report),
        qualifying_rounds: Some(3),
        ..CreateEvent::classic("Offline open")
    };
    let fx = ts.classic_event_as(&body, 8).await;
    let first = fx.draw().await;
    for table in &first.tables {
        let sheet = won_by_first(&seated(table), &[10, 7, 5, 4]);
        fx.submit(first.number, table.number, &sheet).await;
    }
    let second = fx.draw().await;
    (fx, first, second)
}

/// The table of `round` where `player` sits.
fn table_of(round: &Round, player: Uuid) -> u32 {
    round
        .tables
        .iter()
        .find(|t| seated(t).contains(&player))
        .expect("seated")
        .number
}

/// How many confirmations `player` has made.
fn confirmations_of(ts: &TestSuite, player: Uuid) -> i64 {
    ts.count(&format!(
        "SELECT count(*) AS n FROM results.confirmations WHERE player_id = '{player}'"
    ))
}

/// Opens a new tab and closes the current one (as a player swiping the page away): answers
/// with the new tab current, its network cut like the closed one's.
async fn reopen_in_new_tab(browser: &Browser) -> Offline {
    let old = browser.call(Method::GET, "/window", None).await;
    let new = browser
        .call(Method::POST, "/window/new", Some(json!({"type": "tab"})))
        .await;
    let new = json!({"handle": new["handle"]});
    browser
        .call(Method::POST, "/window", Some(new.clone()))
        .await;
    // Cut from the new tab before the old one closes: the old tab's cut ends with it.
    let offline = Offline::cut(browser).await;
    browser
        .call(Method::POST, "/window", Some(json!({"handle": old})))
        .await;
    browser.call(Method::DELETE, "/window", None).await;
    browser.call(Method::POST, "/window", Some(new)).await;
    offline
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sheet_and_a_confirmation_sent_offline_reach_the_api_once_after_the_tab_is_reopened() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    let (fx, first, second) = event_in_round_two(&ts).await;
    let id = fx.event.id;
    let me = second.tables[0].seats[0].player_id;
    let (table_one, table_two) = (table_of(&first, me), table_of(&second, me));
    let pin = pin_of(&fx.entries, me);

    // The player signs in on his phone and opens My event, which the phone keeps, with the form
    // to report his table's result.
    let browser = Browser::open().await;
    browser.resize(PHONE_WIDTH, 800).await;
    sign_in_with_pin(&browser, &base, id, me, &pin).await;
    let my_event = format!("/events/{id}/me");
    let report = format!("{my_event}/rounds/2/tables/{table_two}/report");
    kept_for_offline(&browser, &base, &[&my_event, &report]).await;
    let installable = browser.cdp("Page.getInstallabilityErrors", json!({})).await;
    assert_eq!(
        installable["installabilityErrors"],
        json!([]),
        "an installable web app"
    );

    // The network drops. He reports his table's sheet and confirms round 1's result: both wait
    // on the phone, shown in the page, and the API has neither.
    let offline = Offline::cut(&browser).await;
    browser
        .click_to_next_page(&format!("a[href='{report}']"))
        .await;
    until(&browser, "the report form, kept", offline_as_last_updated).await;
    fill_sheet(&browser, 4).await;
    browser
        .click("form[data-offline-queue] button[type=submit]")
        .await;
    let page = until(&browser, "the sheet kept", |p| p.saved.is_some()).await;
    assert_eq!(
        page.saved.as_deref(),
        Some("Saved on this phone: it will be sent when the network is back.")
    );
    browser.go(&format!("{base}{my_event}")).await;
    until(&browser, "My event, kept", offline_as_last_updated).await;
    browser
        .click(&format!(
            "#result-1-{table_one} form[action$='/confirm'] button[type=submit]"
        ))
        .await;
    let page = until(&browser, "two writes waiting", |p| p.waiting.len() == 2).await;
    let labels = [
        format!("Report our table's result: Round 2 · Table {table_two} — waiting since "),
        format!("Confirm this result: Round 1 · Table {table_one} — waiting since "),
    ];
    for ((state, text), label) in page.waiting.iter().zip(&labels) {
        assert_eq!(state, "waiting");
        assert!(text.starts_with(label), "{text:?} for {label:?}");
    }
    let not_yet = fx.scorer.result(id, 2, table_two).await;
    assert_eq!(not_yet.unwrap_err().status(), Some(404), "no sheet yet");
    let round_one = fx.scorer.result(id, 1, table_one).await.unwrap();
    assert!(!round_one.confirmed_by.contains(&me), "no confirmation yet");

    // Reloaded offline, the page is still there, with its time, and so are the waiting writes.
    browser
        .call(Method::POST, "/refresh", Some(json!({})))
        .await;
    let page = until(&browser, "the reloaded page", offline_as_last_updated).await;
    assert_eq!(page.waiting.len(), 2, "{page:?}");
    let writes = waiting_writes(&browser).await;
    assert_eq!(writes.len(), 2, "{writes:?}");

    // The tab is closed and a new one opened, still offline: the writes wait there too.
    let offline_again = reopen_in_new_tab(&browser).await;
    offline.closed_with_its_tab();
    browser.go(&format!("{base}{my_event}")).await;
    until(&browser, "My event in a new tab", |p| {
        offline_as_last_updated(p) && p.waiting.len() == 2
    })
    .await;
    assert_eq!(
        fx.scorer
            .result(id, 2, table_two)
            .await
            .unwrap_err()
            .status(),
        Some(404),
        "still nothing sent"
    );

    // The network is back: each write reaches the API, once, and the page is drawn anew with
    // their outcomes.
    offline_again.restore(&browser).await;
    let page = until(&browser, "the writes sent and the page fresh", |p| {
        !p.kept && p.banner.is_none() && p.waiting.len() == 2
    })
    .await;
    assert!(
        page.waiting.iter().all(|(state, _)| state == "sent"),
        "{page:?}"
    );
    let reported = fx.scorer.result(id, 2, table_two).await.unwrap();
    assert_eq!(reported.recorded_by, me, "his sheet");
    let history = fx.scorer.result_history(id, 2, table_two).await.unwrap();
    assert_eq!(history.items.len(), 1, "one version");
    let round_one = fx.scorer.result(id, 1, table_one).await.unwrap();
    assert!(round_one.confirmed_by.contains(&me));
    assert_eq!(confirmations_of(&ts, me), 2, "his sheet's and round 1's");

    // The same writes sent again, as a second flush would: nothing more is written.
    let replay = format!(
        "const done = arguments[arguments.length - 1];
         Promise.all({}.map(w => fetch(w.action, {{method: 'POST', body: w.body,
             headers: {{'content-type': 'application/x-www-form-urlencoded'}}}})
             .then(r => r.status)))
           .then(done, e => done(String(e)));",
        serde_json::to_string(&writes).unwrap()
    );
    let statuses = browser.js_async(&replay).await;
    assert_eq!(statuses, json!([200, 200]), "answered as the first time");
    browser
        .call(Method::POST, "/refresh", Some(json!({})))
        .await;
    until(&browser, "nothing left waiting", |p| {
        !p.kept && p.waiting.is_empty()
    })
    .await;
    let history = fx.scorer.result_history(id, 2, table_two).await.unwrap();
    assert_eq!(history.items.len(), 1, "still one version");
    let again = fx.scorer.result(id, 2, table_two).await.unwrap();
    assert_eq!((again.seq, again.version), (reported.seq, reported.version));
    let round_one_again = fx.scorer.result(id, 1, table_one).await.unwrap();
    assert_eq!(round_one_again.seq, round_one.seq, "no new change");
    assert_eq!(confirmations_of(&ts, me), 2);

    // Signing out leaves nothing of his on the phone: no kept page, no waiting write.
    browser
        .click_to_next_page("form.sign-out button[type=submit]")
        .await;
    browser.go(&format!("{base}/events/{id}/sign-in")).await;
    let nothing_kept = format!(
        "const done = arguments[arguments.length - 1];
         Promise.all([caches.match('{base}{my_event}'), CatanOffline.writes()])
           .then(([page, writes]) => done(!page && writes.length === 0), () => done(false));"
    );
    eventually(10, "the phone emptied at sign-out", async || {
        browser
            .js_async(&nothing_kept)
            .await
            .as_bool()
            .filter(|n| *n)
    })
    .await;

    browser.close().await;
    ts.shutdown().await;
}
