//! The league dashboard (issue 11) in a real browser: headless Chromium driven over WebDriver by
//! chromedriver (Debian's `chromium` and `chromium-driver`; `.ci/run` installs them), against the
//! whole suite, the pages served at `/` of the API's base URL. And without a browser: the pages'
//! languages, their CSV, and that every page answers without JavaScript.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a failed step fails the test"
)]

use base64::Engine;
use catan_api::{CreateEntry, CreateEvent, Round, SmallFieldRule};
use catan_e2e::{EventFixture, TestSuite, eventually, new_player, seated, spawn_suite};
use chrono::NaiveDate;
use reqwest::Method;
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// A chromedriver of its own, ended with the test.
struct Driver {
    child: Child,
    url: String,
    http: reqwest::Client,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One browser window.
struct Browser {
    session: String,
    driver: Driver,
}

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Driver {
    async fn start() -> Driver {
        let port = {
            let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            probe.local_addr().unwrap().port()
        };
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect(
                "chromedriver runs (Debian: apt-get install chromium chromium-driver; .ci/run does)",
            );
        let driver = Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
            http: reqwest::Client::new(),
        };
        eventually(20, "chromedriver to answer", async || {
            let status = driver
                .http
                .get(format!("{}/status", driver.url))
                .send()
                .await;
            let body: Value = status.ok()?.json().await.ok()?;
            body["value"]["ready"].as_bool().filter(|r| *r)
        })
        .await;
        driver
    }
}

impl Browser {
    async fn open() -> Browser {
        let driver = Driver::start().await;
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "pageLoadStrategy": "normal",
            "goog:chromeOptions": {
                "binary": chromium(),
                "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                         "--disable-gpu", "--window-size=1280,900", "--hide-scrollbars",
                         "--lang=en-US"],
            }
        }}});
        let answer: Value = driver
            .http
            .post(format!("{}/session", driver.url))
            .json(&capabilities)
            .send()
            .await
            .expect("new session")
            .json()
            .await
            .expect("session answer");
        let session = answer["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("a session: {answer}"))
            .to_string();
        Browser { session, driver }
    }

    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/session/{}{path}", self.driver.url, self.session);
        let mut request = self.driver.http.request(method, url);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let answer: Value = request
            .send()
            .await
            .expect("webdriver")
            .json()
            .await
            .expect("webdriver answer");
        assert!(
            answer["value"].get("error").is_none(),
            "webdriver {path}: {answer}"
        );
        answer["value"].clone()
    }

    async fn go(&self, url: &str) {
        self.call(Method::POST, "/url", Some(json!({"url": url})))
            .await;
    }

    /// Runs `script` (a function body) in the page and answers what it returns.
    async fn js(&self, script: &str) -> Value {
        self.call(
            Method::POST,
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
        .await
    }

    async fn element(&self, css: &str) -> String {
        let found = self
            .call(
                Method::POST,
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        match found[ELEMENT].as_str() {
            Some(id) => id.to_string(),
            None => {
                let page = self.js("return document.documentElement.outerHTML;").await;
                panic!("no element {css}: {found} in {page}")
            }
        }
    }

    async fn type_into(&self, css: &str, text: &str) {
        let element = self.element(css).await;
        self.call(
            Method::POST,
            &format!("/element/{element}/value"),
            Some(json!({"text": text})),
        )
        .await;
    }

    async fn click(&self, css: &str) {
        let element = self.element(css).await;
        self.call(
            Method::POST,
            &format!("/element/{element}/click"),
            Some(json!({})),
        )
        .await;
    }

    /// The texts of every element `css` selects.
    async fn texts(&self, css: &str) -> Vec<String> {
        let script = format!(
            "return Array.from(document.querySelectorAll({})).map(e => e.textContent.trim());",
            serde_json::to_string(css).unwrap()
        );
        serde_json::from_value(self.js(&script).await).unwrap()
    }

    async fn resize(&self, width: u32, height: u32) {
        self.call(
            Method::POST,
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        )
        .await;
    }

    async fn screenshot(&self) -> Vec<u8> {
        let png = self.call(Method::GET, "/screenshot", None).await;
        base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap())
            .unwrap()
    }

    /// The page printed to PDF on A4.
    async fn print_a4(&self) -> Vec<u8> {
        let pdf = self
            .call(
                Method::POST,
                "/print",
                Some(json!({"page": {"width": 21.0, "height": 29.7}, "background": true})),
            )
            .await;
        base64::engine::general_purpose::STANDARD
            .decode(pdf.as_str().unwrap())
            .unwrap()
    }

    async fn close(self) {
        let _ = self
            .driver
            .http
            .delete(format!("{}/session/{}", self.driver.url, self.session))
            .send()
            .await;
    }
}

fn chromium() -> &'static str {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap_or("/usr/bin/chromium")
}

/// The pages of a PDF, as poppler's `pdfinfo` counts them.
fn pdf_pages(pdf: &[u8]) -> usize {
    let path = std::env::temp_dir().join(format!("catan-sheets-{}.pdf", Uuid::new_v4()));
    std::fs::write(&path, pdf).unwrap();
    let out = Command::new("pdfinfo")
        .arg(&path)
        .output()
        .expect("pdfinfo runs (Debian: apt-get install poppler-utils; .ci/run does)");
    let _ = std::fs::remove_file(&path);
    let info = String::from_utf8_lossy(&out.stdout);
    info.lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("pdfinfo says no page count: {info}"))
}

/// Each page's text of a PDF, as poppler's `pdftotext` reads it.
fn pdf_page_texts(pdf: &[u8]) -> Vec<String> {
    let path = std::env::temp_dir().join(format!("catan-sheets-{}.pdf", Uuid::new_v4()));
    std::fs::write(&path, pdf).unwrap();
    let out = Command::new("pdftotext")
        .arg(&path)
        .arg("-")
        .output()
        .expect("pdftotext runs (Debian: apt-get install poppler-utils; .ci/run does)");
    let _ = std::fs::remove_file(&path);
    let text = String::from_utf8_lossy(&out.stdout);
    // Pages end with a form feed.
    let mut pages: Vec<String> = text.split('\u{c}').map(str::to_owned).collect();
    if pages.last().is_some_and(|p| p.trim().is_empty()) {
        pages.pop();
    }
    pages
}

/// An event of `names` entered, as the admin creates it with `body`.
async fn event_of(ts: &TestSuite, body: CreateEvent, names: &[&str]) -> EventFixture {
    let mut fx = ts.event(&body).await;
    for name in names {
        let mut player = new_player(name);
        player.region_id = body.region_id;
        let player = fx.director.create_player(&player).await.expect("player");
        let entry = fx
            .director
            .create_entry(fx.event.id, &CreateEntry::player(player.id))
            .await
            .expect("entry");
        fx.entries.push(entry);
    }
    fx
}

/// The name of the player in `seat` of `round`'s table `table` (0-based).
fn name_at(fx: &EventFixture, round: &Round, table: usize, seat: usize) -> String {
    let player = seated(&round.tables[table])[seat];
    fx.entries
        .iter()
        .find(|e| e.player_id == Some(player))
        .expect("entered")
        .name
        .clone()
}

/// A league of one region: a season scored by place whose one event of 4 is played (so its
/// table's order is the sheet's), and an 11-player event in its first round, none posted.
struct League {
    season: Uuid,
    /// The season's table as it must read: the played event's places 1 to 4.
    season_order: Vec<String>,
    live: EventFixture,
    round: Round,
}

async fn league(ts: &TestSuite) -> League {
    let region = ts.admin.create_region("Catalunya").await.expect("region");
    let season = ts
        .http(Method::POST, "/v1/seasons")
        .token(&ts.admin_token)
        .json(&json!({
            "name": "Circuit 2027", "region_id": region.id,
            "starts_on": "2027-01-01", "ends_on": "2027-12-31",
            "scoring": {"mode": "placement", "points": [25, 18, 15, 12], "best_n": 4},
            "qualification": {"event_slots": 1, "pass_down": true, "season_slots": 1}
        }))
        .send()
        .await;
    assert_eq!(season.status, 201, "season: {}", season.text);
    let season: Uuid = season.body()["id"].as_str().unwrap().parse().unwrap();
    let played = event_of(
        ts,
        CreateEvent {
            region_id: Some(region.id),
            starts_on: NaiveDate::from_ymd_opt(2027, 3, 6),
            qualifying_rounds: Some(1),
            small_field_playoff: Some(SmallFieldRule::NoPlayoff),
            ..CreateEvent::classic("Barcelona open")
        },
        &["Ana Ávila", "Bruno Blanco", "Chen Wei", "Dana Díaz"],
    )
    .await;
    eventually(10, "ranking to know the event", async || {
        ts.admin
            .join_season(season, played.event.id)
            .await
            .ok()
            .map(|_| ())
    })
    .await;
    let round = played.draw().await;
    let sheet = catan_e2e::won_by_first(&seated(&round.tables[0]), &[10, 7, 5, 3]);
    played.submit(1, 1, &sheet).await;
    let season_order = (0..4).map(|s| name_at(&played, &round, 0, s)).collect();
    let names: Vec<String> = (0..11).map(|i| format!("Live player {i:02}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let live = event_of(
        ts,
        CreateEvent {
            region_id: Some(region.id),
            starts_on: NaiveDate::from_ymd_opt(2027, 4, 10),
            qualifying_rounds: Some(2),
            venue: Some("Casal de Gràcia".into()),
            ..CreateEvent::classic("Girona cup")
        },
        &names,
    )
    .await;
    let round = live.draw().await;
    ts.settled().await;
    eventually(10, "the season's table", async || {
        let table = ts
            .anonymous
            .season_standings_summary(season, 10, 0)
            .await
            .ok()?;
        (table.rows.len() == 4).then_some(())
    })
    .await;
    League {
        season,
        season_order,
        live,
        round,
    }
}

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

/// What a page answers, read without a browser (no JavaScript at all).
async fn page(ts: &TestSuite, path: &str, language: &str) -> (u16, String) {
    let answer = ts
        .http(Method::GET, path)
        .header("accept-language", language)
        .send()
        .await;
    (answer.status.as_u16(), answer.text)
}

#[tokio::test]
async fn every_page_is_complete_without_javascript_in_each_language() {
    let ts = spawn_suite().await;
    let league = league(&ts).await;
    let event = league.live.event.id;
    let player = league.live.entries[0].player_id.unwrap();

    // Accept-Language chooses the language; the rules' terms are translated, not the names.
    let (status, html) = page(&ts, &format!("/events/{event}"), "es-ES,es;q=0.9").await;
    assert_eq!(status, 200);
    assert!(html.contains("<html lang=\"es\">"), "{html}");
    assert!(html.contains("Clasificación") && html.contains("Girona cup"));
    assert!(
        html.contains("10 de abril de 2027"),
        "the date the Spanish way"
    );
    let (_, html) = page(&ts, &format!("/events/{event}"), "zh-CN").await;
    assert!(html.contains("lang=\"zh-Hans\"") && html.contains("排名"));
    assert!(html.contains("2027年4月10日"));
    let (_, html) = page(&ts, &format!("/events/{event}"), "fr").await;
    assert!(html.contains("lang=\"en\"") && html.contains("Standings"));

    // The tables are in the HTML itself: standings, seats in play order, the found seat.
    for name in league.live.entries.iter().map(|e| &e.name) {
        assert!(html.contains(name.as_str()), "{name} listed");
    }
    let seated = name_at(&league.live, &league.round, 1, 3);
    let (_, found) = page(
        &ts,
        &format!("/events/{event}?find={}", seated.replace(' ', "+")),
        "en",
    )
    .await;
    assert!(found.contains("data-found"), "{found}");

    // The sheets carry every box the rules ask for, and a signature line per player.
    let (status, sheets) = page(&ts, &format!("/events/{event}/rounds/1/sheets"), "es").await;
    assert_eq!(status, 200);
    for term in [
        "Asentamientos",
        "Ciudades",
        "Cartas de puntos de victoria",
        "Camino más largo",
        "Ejército más grande",
        "Ganador",
    ] {
        assert!(sheets.contains(term), "{term} on the sheet");
    }
    assert_eq!(
        sheets.matches("class=\"signature\"").count(),
        11,
        "one line per player"
    );
    assert_eq!(
        sheets.matches("class=\"sheet\"").count(),
        3,
        "one sheet per table"
    );
    assert!(
        !sheets.contains("board.svg"),
        "a classic event's sheets carry no board"
    );

    // The other pages answer, and an unknown one is a page, not a problem document.
    for path in [
        "/".to_string(),
        format!("/seasons/{}", league.season),
        format!("/players/{player}"),
        "/ratings?min_games=1".to_string(),
    ] {
        let (status, html) = page(&ts, &path, "en").await;
        assert_eq!(status, 200, "{path}: {html}");
        assert!(html.starts_with("<!DOCTYPE html>"), "{path}");
    }
    let (status, html) = page(&ts, &format!("/events/{}", Uuid::new_v4()), "en").await;
    assert_eq!((status, html.contains("Not found")), (404, true));
    let missing = ts.http(Method::GET, "/v1/nothing").send().await;
    assert!(missing.is_problem(), "/v1/ stays the API's");

    // The standings and the season table as CSV, names quoted as needed.
    let csv = ts
        .http(
            Method::GET,
            &format!("/seasons/{}/standings.csv", league.season),
        )
        .send()
        .await;
    assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
    let lines: Vec<&str> = csv.text.lines().collect();
    assert_eq!(lines.len(), 5, "{}", csv.text);
    assert!(lines[0].starts_with("rank,player_id,name,points"));
    assert!(
        lines[1].contains(&league.season_order[0]) && lines[1].contains(",25.00,"),
        "{}",
        lines[1]
    );
    let csv = ts
        .http(Method::GET, &format!("/events/{event}/standings.csv"))
        .send()
        .await;
    assert_eq!(csv.text.lines().count(), 12, "{}", csv.text);

    // The season page is kept as rendered while its table is unchanged: a visitor holding it is
    // answered 304, and a change to the table shows on the next visit.
    let season_page = format!("/seasons/{}", league.season);
    let first = ts.http(Method::GET, &season_page).send().await;
    let etag = first.header("etag").expect("the page's ETag").to_owned();
    assert!(!first.text.contains("Eva Esteve"), "not in the season yet");
    let held = ts
        .http(Method::GET, &season_page)
        .header("if-none-match", &etag)
        .send()
        .await;
    assert_eq!(held.status, 304, "{}", held.text);
    let valencia = event_of(
        &ts,
        CreateEvent {
            region_id: ts.anonymous.season(league.season).await.unwrap().region_id,
            starts_on: NaiveDate::from_ymd_opt(2027, 5, 8),
            qualifying_rounds: Some(1),
            small_field_playoff: Some(SmallFieldRule::NoPlayoff),
            ..CreateEvent::classic("Valencia open")
        },
        &["Eva Esteve", "Fermín Font", "Gala Gil", "Hugo Haro"],
    )
    .await;
    eventually(10, "ranking to know the event", async || {
        ts.admin
            .join_season(league.season, valencia.event.id)
            .await
            .ok()
    })
    .await;
    let round = valencia.draw().await;
    let sheet = catan_e2e::won_by_first(&catan_e2e::seated(&round.tables[0]), &[10, 7, 5, 3]);
    valencia.submit(1, 1, &sheet).await;
    let changed = eventually(10, "the season page to show the played event", async || {
        let page = ts.http(Method::GET, &season_page).send().await;
        page.text.contains("Eva Esteve").then_some(page)
    })
    .await;
    assert_ne!(changed.header("etag"), Some(etag.as_str()), "a new version");

    // The switcher remembers the language in a cookie, and goes back only to this site.
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let switched = no_redirects
        .get(format!(
            "{}/lang?to=zh-Hans&back=//evil.example/",
            ts.suite.url()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(switched.status(), 303);
    let header = |name: &str| switched.headers()[name].to_str().unwrap().to_string();
    assert_eq!(header("location"), "/");
    assert!(header("set-cookie").starts_with("lang=zh-Hans;"));
    let remembered = ts
        .http(Method::GET, "/ratings")
        .header("cookie", "lang=zh-Hans")
        .header("accept-language", "es")
        .send()
        .await;
    assert!(remembered.text.contains("lang=\"zh-Hans\""));
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
