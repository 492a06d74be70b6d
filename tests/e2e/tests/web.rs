//! The league dashboard (issue 11) in a real browser: headless Chromium driven over WebDriver by
//! chromedriver (Debian's `chromium` and `chromium-driver`; `.ci/run` installs them), against the
//! whole suite, the pages served at `/` of the API's base URL (`web_pages.rs` reads them without
//! a browser).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a failed step fails the test"
)]

use catan_api::CreateEvent;
use catan_e2e::browser::{Browser, pdf_page_texts, pdf_pages};
use catan_e2e::console::assert_accessible;
use catan_e2e::league::{event_of, league, name_at};
use catan_e2e::phone::{PHONE_WIDTH, assert_fits_phone, hidden_sideways};
use catan_e2e::{EventFixture, eventually, seated, spawn_suite};
use chrono::NaiveDate;
use reqwest::Method;
use serde_json::{Value, json};
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

/// Names in a right-to-left script, an event named in Arabic and a player "فاطمة الزهراء" among
/// others, entered in the league's season and played one round.
async fn rtl_event(ts: &catan_e2e::TestSuite, league: &catan_e2e::league::League) -> EventFixture {
    let body = CreateEvent {
        region_id: league.live.event.region_id,
        starts_on: NaiveDate::from_ymd_opt(2027, 5, 15),
        qualifying_rounds: Some(2),
        venue: Some("دار الثقافة".into()),
        ..CreateEvent::classic("كأس الرباط")
    };
    let names = [
        FATIMA,
        "Ana García",
        "王小明",
        "יעל כהן",
        "Bruno Blanco",
        "Chen Wei",
        "Dana Díaz",
        "Eva Esteve",
    ];
    let fx = event_of(ts, body, &names).await;
    eventually(10, "ranking to know the event", async || {
        ts.admin
            .join_season(league.season, fx.event.id)
            .await
            .ok()
            .map(|_| ())
    })
    .await;
    let round = fx.draw().await;
    for table in &round.tables {
        let sheet = catan_e2e::won_by_first(&seated(table), &[10, 7, 5, 3]);
        fx.submit(1, table.number, &sheet).await;
    }
    ts.settled().await;
    fx
}

const FATIMA: &str = "فاطمة الزهراء";

/// Every text of the page in a right-to-left script that is not isolated in a `<bdi>`: none, or
/// the figures beside it are reordered ("5 :فاطمة الزهراء VP").
async fn names_not_isolated(browser: &Browser) -> Value {
    browser
        .js("const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);\
             const loose = [];\
             while (walk.nextNode()) {\
               const node = walk.currentNode;\
               if (/[\\u0590-\\u08FF]/.test(node.textContent) && !node.parentElement.closest('bdi'))\
                 { loose.push(node.parentElement.outerHTML.slice(0, 120)); }\
             }\
             return loose;")
        .await
}

/// Every public page (and the console's home) at 360 px in English, Spanish and Chinese: no
/// sideways scroll in the page or inside any table, axe-core content, every name in bidi
/// isolation; the standings as short rows whose every column shows, a right-to-left name keeping
/// its row's figures in their order.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_page_fits_a_phone_in_each_language_and_names_in_any_script_keep_their_place() {
    let ts = spawn_suite().await;
    let league = league(&ts).await;
    let fx = rtl_event(&ts, &league).await;
    let base = ts.suite.url();
    let event = fx.event.id;
    let fatima = fx
        .entries
        .iter()
        .find(|e| e.name == FATIMA)
        .and_then(|e| e.player_id)
        .unwrap();
    let standings = ts.standings(event).await;
    let row = standings
        .rows
        .iter()
        .find(|r| r.player_id == fatima)
        .unwrap();
    let browser = Browser::open().await;
    browser.resize(PHONE_WIDTH, 800).await;
    let find = layout_encode(FATIMA);
    let pages = [
        "/".to_string(),
        format!("/events/{event}"),
        format!("/events/{event}?find={find}#find"),
        format!("/events/{event}/rounds/1/sheets"),
        format!("/events/{event}/rounds/2/sheets"),
        format!("/seasons/{}", league.season),
        format!("/players/{fatima}"),
        "/ratings".to_string(),
        format!("/events/{event}/screen"),
    ];
    fx.draw().await;
    // The check sees a table that would scroll sideways inside its box, the page itself not.
    browser.go(&format!("{base}/ratings")).await;
    browser
        .js(
            "document.querySelector('main').insertAdjacentHTML('beforeend',\
               '<div class=\"scroll\"><table><tr><td style=\"white-space:nowrap\">'\
               + 'wide '.repeat(100) + '</td></tr></table></div>'); return null;",
        )
        .await;
    let wide = hidden_sideways(&browser).await;
    assert_eq!(wide.as_array().map(Vec::len), Some(2), "{wide}");
    for tag in ["en", "es", "zh-Hans"] {
        browser.go(&format!("{base}/lang?to={tag}&back=/")).await;
        for path in &pages {
            browser.go(&format!("{base}{path}")).await;
            let page = format!("{tag} {path}");
            assert_fits_phone(&browser, &page).await;
            assert_accessible(&browser, &page).await;
            assert_eq!(names_not_isolated(&browser).await, json!([]), "{page}");
        }
        // The player's standings line: rank and name first, then every figure under its
        // column's name, all on the phone's screen and a few lines high, not 220 px.
        browser.go(&format!("{base}/events/{event}")).await;
        let line = browser
            .js(&format!(
                "const row = document.querySelector('#standings tr[data-id=\"{fatima}\"]');\
                 const box = e => e.getBoundingClientRect();\
                 const cells = Array.from(row.children);\
                 return {{name: row.querySelector('bdi').textContent,\
                         height: box(row).height,\
                         cells: cells.map(c => [c.textContent.trim(), box(c).left, box(c).top, box(c).right]),\
                         labels: cells.map(c => getComputedStyle(c, '::before').content)}};"
            ))
            .await;
        assert_eq!(line["name"], json!(FATIMA), "{tag}: {line}");
        // Name, why it stands there, the figures and the playoff outlook: four short lines.
        assert!(line["height"].as_f64().unwrap() < 150.0, "{tag}: {line}");
        let cells = line["cells"].as_array().unwrap();
        assert_eq!(cells[0][0], json!(row.rank.to_string()), "{tag}: {line}");
        assert!(
            cells[1][0].as_str().unwrap().starts_with(FATIMA),
            "{tag}: {line}"
        );
        assert_eq!(
            cells[2][0],
            json!(row.vp.to_string()),
            "{tag}: the VP cell holds the VP: {line}"
        );
        for (i, cell) in cells.iter().enumerate() {
            assert!(
                cell[3].as_f64().unwrap() <= f64::from(PHONE_WIDTH),
                "{tag}: column {i} shows: {line}"
            );
        }
        // In reading order: the rank left of the name, every figure after the name.
        let (name_left, name_top) = (cells[1][1].as_f64().unwrap(), cells[1][2].as_f64().unwrap());
        assert!(cells[0][1].as_f64().unwrap() < name_left, "{tag}: {line}");
        for cell in &cells[2..] {
            assert!(
                cell[2].as_f64().unwrap() > name_top,
                "{tag}: below the name: {line}"
            );
        }
        let words = match tag {
            "en" => ["VP", "Games", "Wins"],
            "es" => ["PV", "Partidas", "Victorias"],
            _ => ["胜利点", "局数", "胜局"],
        };
        let labels = line["labels"].to_string();
        for word in words {
            assert!(
                labels.contains(word),
                "{tag}: {word} labels its figure: {labels}"
            );
        }
        // A sheet on the phone: every player's six boxes show, each big enough to write in.
        browser
            .go(&format!("{base}/events/{event}/rounds/1/sheets"))
            .await;
        let boxes = browser
            .js(
                "return Array.from(document.querySelectorAll('.sheet td.box'))\
                   .map(b => b.getBoundingClientRect())\
                   .filter(r => r.height >= 40 && r.width >= 60).length;",
            )
            .await;
        assert_eq!(
            boxes,
            json!(fx.entries.len() * 6),
            "{tag}: the sheet's boxes"
        );
    }

    // The console's home fits too.
    browser.go(&format!("{base}/lang?to=en&back=/")).await;
    catan_e2e::console::sign_in(&browser, &base, &ts.admin_key).await;
    for tag in ["en", "es", "zh-Hans"] {
        browser
            .go(&format!("{base}/lang?to={tag}&back=/console"))
            .await;
        let page = format!("{tag} /console");
        assert_fits_phone(&browser, &page).await;
        assert_accessible(&browser, &page).await;
    }
    browser.close().await;
    ts.shutdown().await;
}

/// `text` percent-encoded for a query.
fn layout_encode(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// The README's screenshots, made again by
/// A move of the visits below: a link clicked to a page, or the browser's back or forward.
#[derive(Clone, Copy, Debug)]
enum Visit {
    Link(usize),
    Back,
    Forward,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_visits_back_and_forth_between_live_pages_never_wait_for_a_connection() {
    use catan_e2e::phone::{pin_of, sign_in_with_pin};
    use catan_e2e::won_by_first;
    // The visits come faster than any person's: the server frees a closed stream's place at its
    // next keep-alive, a few seconds on, so one visitor may hold more than the default ten.
    let ts = catan_e2e::spawn_suite_configured(|s| s.clients.streams_per_client = 100).await;
    let base = ts.suite.url();
    let fx = ts.classic_event(8, Some(3)).await;
    let id = fx.event.id;
    let round = fx.draw().await;
    // Every page live: the standings stream, and the round's clock running on the screen.
    let sheet = won_by_first(&seated(&round.tables[1]), &[10, 6, 5, 2]);
    fx.submit(1, round.tables[1].number, &sheet).await;
    let start = catan_api::ClockChange {
        action: catan_api::ClockActionKind::Start,
        minutes: Some(60),
        table: None,
    };
    fx.director.change_clock(id, 1, &start).await.unwrap();
    let player = round.tables[0].seats[0].player_id;

    let browser = Browser::open().await;
    // Each page the back/forward cache gives back is counted, on the tab (its session storage).
    browser
        .cdp(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": "addEventListener('pageshow', e => { if (e.persisted) { \
                sessionStorage.restored = String(Number(sessionStorage.restored || 0) + 1); } });"}),
        )
        .await;
    sign_in_with_pin(&browser, &base, id, player, &pin_of(&fx.entries, player)).await;
    let pages = [
        format!("/events/{id}"),
        format!("/events/{id}/screen"),
        format!("/events/{id}/me"),
    ];
    use Visit::{Back, Forward, Link};
    // Each link to the event page makes a new page of it, which the cache keeps when it is left.
    #[rustfmt::skip]
    let visits = [
        Link(0), Link(1), Link(0), Link(1), Link(2), Link(0), Back, Forward, Link(1), Link(0),
        Link(2), Link(0), Back, Back, Forward, Link(1), Link(0), Link(2), Link(0), Link(1),
    ];
    // The tab's history as the visits make it, and where in it the tab is.
    let mut history = vec![pages[2].clone()];
    let mut at = 0;
    for (n, visit) in visits.into_iter().enumerate() {
        let started = Instant::now();
        match visit {
            Link(page) => {
                // A link on the page, clicked: the next page is a new document.
                let add = format!(
                    "var a = document.createElement('a'); a.id = 'next-visit'; a.href = {}; \
                     a.textContent = 'next'; document.body.prepend(a); return null;",
                    serde_json::to_string(&pages[page]).unwrap()
                );
                browser.js(&add).await;
                browser.click_to_next_page("#next-visit").await;
                history.truncate(at + 1);
                history.push(pages[page].clone());
                at += 1;
            }
            Back => {
                browser.call(Method::POST, "/back", Some(json!({}))).await;
                at -= 1;
            }
            Forward => {
                browser
                    .call(Method::POST, "/forward", Some(json!({})))
                    .await;
                at += 1;
            }
        }
        eventually(30, "the page to load", async || {
            let loaded = browser
                .js("return document.readyState === 'complete' && location.pathname;")
                .await;
            loaded
                .as_str()
                .filter(|path| *path == history[at])
                .map(str::to_owned)
        })
        .await;
        let took = started.elapsed();
        assert!(
            took < Duration::from_secs(2),
            "visit {n} ({visit:?} to {}) took {took:?}",
            history[at]
        );
    }
    let restored = browser
        .js("return Number(sessionStorage.restored || 0);")
        .await;
    assert!(
        restored.as_u64().is_some_and(|n| n > 0),
        "the back/forward cache kept pages: {restored}"
    );
    // A page shown again follows its stream again.
    browser.go(&format!("{base}{}", pages[0])).await;
    browser.call(Method::POST, "/back", Some(json!({}))).await;
    browser
        .call(Method::POST, "/forward", Some(json!({})))
        .await;
    eventually(5, "the standings stream to open again", async || {
        let live = browser
            .js("return !document.querySelector('[data-live]').hidden;")
            .await;
        live.as_bool().filter(|l| *l)
    })
    .await;
    ts.shutdown().await;
}

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
