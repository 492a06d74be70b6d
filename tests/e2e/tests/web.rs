//! The league dashboard (issue 11) in a real browser: headless Chromium driven over WebDriver by
//! chromedriver (Debian's `chromium` and `chromium-driver`; `.ci/run` installs them), against the
//! whole suite, the pages served at `/` of the API's base URL (`web_pages.rs` reads them without
//! a browser).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a failed step fails the test"
)]

use catan_e2e::browser::{Browser, pdf_page_texts, pdf_pages};
use catan_e2e::league::{league, name_at};
use catan_e2e::{eventually, seated, spawn_suite};
use reqwest::Method;
use serde_json::json;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_dashboard_works_in_a_real_browser() {
    let ts = spawn_suite().await;
    let league = league(&ts).await;
    let base = ts.suite.url();
    let browser = Browser::open().await;
    let event = league.live.event.id;

    // The season page lists the expected players in order.
    browser
        .go(&format!("{base}/seasons/{}", league.season))
        .await;
    let names = browser.texts("#season tbody tr td:nth-child(2) a").await;
    assert_eq!(names, league.season_order, "the season's table in order");
    let qualified = browser.texts("#qualified li").await;
    assert_eq!(
        qualified.len(),
        2,
        "an event slot and a season slot: {qualified:?}"
    );

    // A player finds his table by name, through the form.
    browser.go(&format!("{base}/events/{event}")).await;
    let seated_third = name_at(&league.live, &league.round, 2, 1);
    browser
        .type_into("input[name=find]", &seated_third.to_lowercase())
        .await;
    browser.click("#find button[type=submit]").await;
    let found = eventually(5, "the found seat", async || {
        let hits = browser.texts("[data-found]").await;
        (!hits.is_empty()).then_some(hits)
    })
    .await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains(&seated_third)
            && found[0].contains(&format!("Table {}", league.round.tables[2].number))
            && found[0].contains("2nd"),
        "{seated_third} sits 2nd at the third table: {found:?}"
    );

    // The standings follow a result posted through the API, without a reload.
    browser.go(&format!("{base}/events/{event}")).await;
    browser.js("window.notReloaded = true; return null;").await;
    let before = browser.texts("#standings tbody tr td:nth-child(3)").await;
    assert_eq!(before.len(), 11, "every player listed: {before:?}");
    assert!(before.iter().all(|vp| vp == "0"), "no VP yet: {before:?}");
    eventually(5, "the stream to open", async || {
        let live = browser
            .js("return !document.querySelector('[data-live]').hidden;")
            .await;
        live.as_bool().filter(|l| *l)
    })
    .await;
    let winner = name_at(&league.live, &league.round, 0, 0);
    let sheet = catan_e2e::won_by_first(&seated(&league.round.tables[0]), &[10, 8, 6, 4]);
    let posted = Instant::now();
    league.live.submit(1, 1, &sheet).await;
    loop {
        let top = browser.texts("#standings tbody tr:first-child td").await;
        if top.get(1) == Some(&winner) && top.get(2).map(String::as_str) == Some("10") {
            break;
        }
        assert!(
            posted.elapsed() < Duration::from_secs(3),
            "the standings did not change within 3 s: {top:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let kept = browser.js("return window.notReloaded === true;").await;
    assert_eq!(kept, json!(true), "the page was not reloaded");

    // The round's sheets print one A4 page per table.
    browser
        .go(&format!("{base}/events/{event}/rounds/1/sheets"))
        .await;
    let pages = pdf_pages(&browser.print_a4().await);
    assert_eq!(pages, league.round.tables.len(), "one page per table");
    assert_eq!(pages, 3, "11 players sit at tables of 4, 4 and 3");

    // The switcher: Spanish and Chinese headings, remembered from page to page.
    browser.go(&format!("{base}/events/{event}")).await;
    browser.click("a[hreflang=es]").await;
    let headings = browser.texts("h2").await;
    assert!(
        headings.contains(&"Clasificación".to_string())
            && headings.contains(&"Busca tu mesa".to_string()),
        "{headings:?}"
    );
    assert_eq!(
        browser.js("return document.documentElement.lang;").await,
        json!("es")
    );
    browser
        .go(&format!("{base}/seasons/{}", league.season))
        .await;
    assert!(
        browser
            .texts("h2")
            .await
            .contains(&"Clasificados".to_string())
    );
    browser.click("a[hreflang=zh-Hans]").await;
    let headings = browser.texts("h2").await;
    assert!(
        headings.contains(&"排名".to_string()) && headings.contains(&"晋级选手".to_string()),
        "{headings:?}"
    );
    browser.click("a[hreflang=en]").await;

    // At 360 px wide, no page scrolls sideways.
    browser.resize(360, 800).await;
    let width = browser.js("return window.innerWidth;").await;
    assert_eq!(width, json!(360), "the viewport is 360 px wide");
    let player = league.live.entries[0].player_id.unwrap();
    for path in [
        "/".to_string(),
        format!("/events/{event}"),
        format!("/seasons/{}", league.season),
        format!("/players/{player}"),
        "/ratings".to_string(),
    ] {
        browser.go(&format!("{base}{path}")).await;
        let png = browser.screenshot().await;
        assert!(png.starts_with(b"\x89PNG"), "a screenshot of {path}");
        let overflow = browser
            .js("return document.documentElement.scrollWidth - document.documentElement.clientWidth;")
            .await;
        assert_eq!(overflow, json!(0), "{path} scrolls sideways at 360 px");
    }
    browser.close().await;
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_partner_event_shows_each_tables_board_and_prints_it_on_its_sheet() {
    let ts = spawn_suite().await;
    let fx = ts.partner_event(6).await;
    let round = fx.draw().await;
    assert_eq!(
        round.tables.len(),
        3,
        "six teams of two at tables of two teams"
    );
    let base = ts.suite.url();
    let event = fx.event.id;
    let browser = Browser::open().await;

    // The event page shows one board picture per table of the round, each the table's own.
    browser.go(&format!("{base}/events/{event}")).await;
    browser
        .js("document.querySelector('#round-1 .boards').scrollIntoView(); return null;")
        .await;
    let captions = browser.texts("#round-1 figure.board figcaption").await;
    let expected: Vec<String> = round
        .tables
        .iter()
        .map(|t| format!("Board · Table {}", t.number))
        .collect();
    assert_eq!(captions, expected, "a board per table");
    eventually(10, "every board picture to load", async || {
        let loaded = browser
            .js(
                "return Array.from(document.querySelectorAll('#round-1 figure.board img'))
                   .every(i => i.complete && i.naturalWidth > 0);",
            )
            .await;
        loaded.as_bool().filter(|l| *l)
    })
    .await;
    let sources: Vec<String> = serde_json::from_value(
        browser
            .js(
                "return Array.from(document.querySelectorAll('#round-1 figure.board img'))
                   .map(i => new URL(i.src).pathname);",
            )
            .await,
    )
    .unwrap();
    let mut seeds = Vec::new();
    for source in &sources {
        let svg = ts.http(Method::GET, source).send().await;
        assert_eq!(svg.status, 200, "{source}: {}", svg.text);
        assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
        assert!(svg.text.starts_with("<svg"), "{source} is a picture");
        assert_eq!(svg.text.matches("class=\"hex\"").count(), 19, "19 hexes");
        seeds.push(
            svg.text
                .split("<title>")
                .nth(1)
                .and_then(|t| t.split("</title>").next())
                .unwrap()
                .to_string(),
        );
    }
    seeds.dedup();
    assert_eq!(seeds.len(), 3, "each table plays its own board: {seeds:?}");

    // The round's sheets print one A4 page per table, and each page carries its board.
    browser
        .go(&format!("{base}/events/{event}/rounds/1/sheets"))
        .await;
    let boards = browser.texts(".sheet figure.board figcaption").await;
    assert_eq!(boards, expected, "a board on every sheet");
    let pages = pdf_page_texts(&browser.print_a4().await);
    assert_eq!(pages.len(), 3, "one page per table: {pages:?}");
    for (page, table) in pages.iter().zip(&round.tables) {
        assert!(
            page.contains(&format!("Board · Table {}", table.number))
                && page.contains("Board seed")
                && page.contains("Signatures"),
            "table {}'s page has its board and its signatures: {page}",
            table.number
        );
    }
    browser.close().await;
    ts.shutdown().await;
}

/// The README's screenshots, made again by
/// `cargo test -p catan-e2e --test web -- --ignored --exact readme_screenshots`: a league as the
/// tests make it, round 1 of the live event posted, each main page at 1280 px, the event page
/// at 360 px and a partner event's round sheets with their boards, written to
/// `docs/screenshots/`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "writes docs/screenshots/*.png; run it to refresh the README's pictures"]
async fn readme_screenshots() {
    let ts = spawn_suite().await;
    let league = league(&ts).await;
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(11);
    for table in &league.round.tables {
        league
            .live
            .submit_random(&league.round, table, &mut rng)
            .await;
    }
    let partner = ts.partner_event(6).await;
    partner.draw().await;
    ts.settled().await;
    let base = ts.suite.url();
    let event = league.live.event.id;
    let player = league.live.entries[0].player_id.unwrap();
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/screenshots");
    std::fs::create_dir_all(&out).unwrap();
    let browser = Browser::open().await;
    for (name, path, width, height) in [
        ("home", "/".to_string(), 1280, 800),
        (
            "event",
            format!("/events/{event}?find=live+player+04"),
            1280,
            1500,
        ),
        ("season", format!("/seasons/{}", league.season), 1280, 900),
        ("player", format!("/players/{player}"), 1280, 1100),
        (
            "sheets",
            format!("/events/{event}/rounds/1/sheets"),
            1280,
            1000,
        ),
        ("event-phone-es", format!("/events/{event}"), 360, 1400),
        (
            "sheets-partner",
            format!("/events/{}/rounds/1/sheets", partner.event.id),
            1280,
            1000,
        ),
    ] {
        browser.resize(width, height).await;
        if name.ends_with("-es") {
            browser.go(&format!("{base}/lang?to=es&back=/")).await;
        }
        browser.go(&format!("{base}{path}")).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        std::fs::write(out.join(format!("{name}.png")), browser.screenshot().await).unwrap();
    }
    browser.go(&format!("{base}/lang?to=en&back=/")).await;
    browser.close().await;
    ts.shutdown().await;
}
