//! The venue screen (issue 32) in a real browser: headless Chromium over WebDriver against the
//! whole suite. The countdown follows the director's clock at once, turns red in the last five
//! minutes, keeps counting with the network cut (DevTools' offline emulation) and says so, and
//! at the end of the round reads 0:00 and gives way to the standings; all in the event's
//! language, whatever the browser's.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a failed step fails the test"
)]

use catan_api::{ClockActionKind, ClockChange, CreateEvent, EventLanguage, RoundClockReading};
use catan_e2e::browser::Browser;
use catan_e2e::http::Method;
use catan_e2e::{EventFixture, spawn_suite};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

async fn act(fx: &EventFixture, action: ClockActionKind, minutes: Option<i64>) -> Instant {
    let change = ClockChange {
        action,
        minutes,
        table: None,
    };
    fx.director
        .change_clock(fx.event.id, 1, &change)
        .await
        .unwrap_or_else(|e| panic!("{change:?}: {e}"));
    Instant::now()
}

/// What the screen shows: the clock's state, the countdown, whether it is red, the status line,
/// whether it says it is offline, and which of the tables and the standings are shown.
#[derive(Debug)]
struct Shown {
    state: String,
    countdown: String,
    late: bool,
    status: String,
    offline: bool,
    tables: bool,
    standings: bool,
}

impl Shown {
    fn left_ms(&self) -> i64 {
        self.countdown
            .split(':')
            .map(|part| part.parse::<i64>().unwrap_or_else(|_| panic!("{self:?}")))
            .fold(0, |total, part| total * 60 + part)
            * 1000
    }
}

async fn shown(browser: &Browser) -> Shown {
    let v = browser
        .js("const q = s => document.querySelector(s);
             return {state: q('[data-clock]').dataset.state,
                     countdown: q('[data-countdown]').textContent.trim(),
                     late: q('[data-clock]').classList.contains('late'),
                     status: q('[data-status]').textContent.trim(),
                     offline: !q('[data-offline]').hidden,
                     tables: !q('[data-tables]').hidden,
                     standings: !q('[data-standings]').hidden};")
        .await;
    let text = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    let yes = |k: &str| v[k].as_bool().unwrap_or_default();
    Shown {
        state: text("state"),
        countdown: text("countdown"),
        late: yes("late"),
        status: text("status"),
        offline: yes("offline"),
        tables: yes("tables"),
        standings: yes("standings"),
    }
}

/// Waits at most `within` for the screen to show what `done` looks for.
async fn within(
    browser: &Browser,
    within: Duration,
    since: Instant,
    what: &str,
    done: impl Fn(&Shown) -> bool,
) -> Shown {
    loop {
        let now = shown(browser).await;
        if done(&now) {
            return now;
        }
        assert!(
            since.elapsed() < within,
            "{what} not shown within {within:?}: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The round's own time left now by the API's reading.
fn left_now(reading: &RoundClockReading) -> i64 {
    let ends = reading.ends_at.expect("a running clock ends");
    (ends - chrono::Utc::now()).num_milliseconds()
}

/// axe-core finds no serious or critical violation on the screen as it is now.
async fn accessible(browser: &Browser, when: &str) {
    let violations = browser.accessibility_violations().await;
    assert!(violations.is_empty(), "the screen {when}: {violations:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_venue_screen_follows_the_clock_offline_too_in_the_events_language() {
    let ts = spawn_suite().await;
    let body = CreateEvent {
        qualifying_rounds: Some(2),
        language: Some(EventLanguage::Es),
        ..CreateEvent::classic(&format!(
            "Open de la sala {}",
            uuid::Uuid::new_v4().simple()
        ))
    };
    let fx = ts.classic_event_as(&body, 8).await;
    assert_eq!(fx.event.language, EventLanguage::Es);
    let round = fx.draw().await;
    let id = fx.event.id;
    let path = format!("/events/{id}/screen");
    // The browser asks for English (`--lang=en-US`): the screen speaks the event's Spanish.
    let browser = Browser::open().await;
    browser.go(&format!("{}{path}", ts.suite.url())).await;
    assert_eq!(
        browser.js("return document.documentElement.lang;").await,
        json!("es")
    );
    let before = shown(&browser).await;
    assert_eq!(
        (before.state.as_str(), before.countdown.as_str()),
        ("not_started", "–:––"),
        "{before:?}"
    );
    assert_eq!(before.status, "La ronda no ha empezado");
    assert!(
        before.tables && !before.standings && !before.late,
        "{before:?}"
    );
    // Every table with its players, for each to find his own.
    let tables = browser.texts("[data-table]").await;
    assert_eq!(tables.len(), round.tables.len(), "{tables:?}");
    for entry in &fx.entries {
        assert!(
            tables.iter().any(|t| t.contains(&entry.name)),
            "{} has a table: {tables:?}",
            entry.name
        );
    }
    assert!(tables[0].starts_with("Mesa 1"), "{tables:?}");
    accessible(&browser, "before the start").await;

    // Four minutes: red at once, and counting.
    let since = act(&fx, ClockActionKind::Start, Some(4)).await;
    let started = within(&browser, Duration::from_secs(1), since, "the start", |s| {
        s.state == "running" && s.late
    })
    .await;
    assert!(
        (230_000..=240_000).contains(&started.left_ms()),
        "{started:?}"
    );
    assert_eq!(started.status, "En juego");
    accessible(&browser, "in red").await;

    // Ten more minutes show at once, out of the red.
    let since = act(&fx, ClockActionKind::ExtendRound, Some(10)).await;
    let extended = within(
        &browser,
        Duration::from_secs(1),
        since,
        "the extension",
        |s| s.left_ms() > 13 * 60_000,
    )
    .await;
    assert!(!extended.late, "over five minutes is not red: {extended:?}");

    // A table given minutes of its own shows them at once.
    let table = ClockChange {
        action: ClockActionKind::ExtendTable,
        minutes: Some(5),
        table: Some(round.tables[0].number),
    };
    fx.director
        .change_clock(id, 1, &table)
        .await
        .expect("extend a table");
    let since = Instant::now();
    let extra = format!("[data-extra-of=\"{}\"]", round.tables[0].number);
    loop {
        if browser.texts(&extra).await == ["+5 min"] {
            break;
        }
        assert!(since.elapsed() < Duration::from_secs(1), "no +5 min shown");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // A pause freezes the countdown within a second, and it stays frozen.
    let since = act(&fx, ClockActionKind::Pause, None).await;
    let paused = within(&browser, Duration::from_secs(1), since, "the pause", |s| {
        s.state == "paused"
    })
    .await;
    assert_eq!(paused.status, "En pausa");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(shown(&browser).await.countdown, paused.countdown, "frozen");
    // Without JavaScript the page shows the same reading, and draws itself again.
    let page = ts.http(Method::GET, &path).send().await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert_eq!(page.header("content-language"), Some("es"));
    assert!(
        page.text
            .contains(&format!("data-countdown>{}</p>", paused.countdown))
            && page.text.contains("<noscript><meta http-equiv=\"refresh\""),
        "{}",
        page.text
    );

    // With the network cut, the screen says it is offline and keeps counting from the reading.
    let since = act(&fx, ClockActionKind::Resume, None).await;
    within(&browser, Duration::from_secs(1), since, "the resume", |s| {
        s.state == "running"
    })
    .await;
    browser.offline(true).await;
    let cut = Instant::now();
    let first = within(&browser, Duration::from_secs(5), cut, "offline", |s| {
        s.offline
    })
    .await;
    // What the director does meanwhile does not reach the screen, which counts on as it read.
    let reading = ts.anonymous.round_clock(id, 1).await.expect("clock");
    act(&fx, ClockActionKind::ExtendRound, Some(1)).await;
    tokio::time::sleep(Duration::from_millis(2200)).await;
    let later = shown(&browser).await;
    assert!(later.offline, "{later:?}");
    let counted = first.left_ms() - later.left_ms();
    assert!((1000..=4000).contains(&counted), "{first:?} then {later:?}");
    let drift = (later.left_ms() - left_now(&reading)).abs();
    assert!(drift <= 2000, "offline, on time: {later:?} {reading:?}");
    // Offline the screen counts on its own to 0:00 and says the time is up: here its own clock
    // jumps 20 minutes ahead (a laptop's clock set wrong would be as far off)...
    browser
        .js("const real = Date.now; Date.now = () => real() + 20 * 60 * 1000; return null;")
        .await;
    let up = within(
        &browser,
        Duration::from_secs(1),
        Instant::now(),
        "0:00",
        |s| s.countdown == "0:00",
    )
    .await;
    assert!(up.offline && up.late, "{up:?}");
    assert_eq!(up.status, "La ronda ha terminado");
    // ...and with the network back, the screen reads the clock again, corrects its clock by the
    // server's time, and shows the extra minute given meanwhile.
    browser.offline(false).await;
    let back = Instant::now();
    let reading = ts.anonymous.round_clock(id, 1).await.expect("clock");
    within(
        &browser,
        Duration::from_secs(10),
        back,
        "back online",
        |s| !s.offline && (s.left_ms() - left_now(&reading)).abs() <= 2000,
    )
    .await;

    // Ended early: 0:00 within a second, the round over, and the standings in the tables' place.
    let since = act(&fx, ClockActionKind::EndEarly, None).await;
    let ended = within(&browser, Duration::from_secs(1), since, "the end", |s| {
        s.state == "ended"
    })
    .await;
    assert_eq!(ended.countdown, "0:00");
    assert_eq!(ended.status, "La ronda ha terminado");
    assert!(ended.standings && !ended.tables, "{ended:?}");
    accessible(&browser, "between rounds").await;
    let headings: Value = browser
        .js("return Array.from(document.querySelectorAll('h2')).filter(h => !h.closest('[hidden]')).map(h => h.textContent);")
        .await;
    assert!(
        headings
            .as_array()
            .unwrap()
            .contains(&json!("Clasificación")),
        "{headings}"
    );
    browser.close().await;
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn between_rounds_the_screen_shows_the_standings_in_english_by_default() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(4, None).await;
    assert_eq!(fx.event.language, EventLanguage::En, "English by default");
    let id = fx.event.id;
    // A viewer who chose Spanish still sees the event's English: the screen speaks to the room.
    let page = ts
        .http(Method::GET, &format!("/events/{id}/screen"))
        .header("cookie", "lang=es")
        .send()
        .await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert_eq!(page.header("content-language"), Some("en"));
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert!(
        page.text.contains("<html lang=\"en\">")
            && page.text.contains("No round in play")
            && page.text.contains("data-standings>")
            && !page.text.contains("data-tables"),
        "no round drawn: the standings, nothing hidden: {}",
        page.text
    );
    let event_page = ts.http(Method::GET, &format!("/events/{id}")).send().await;
    assert!(
        event_page
            .text
            .contains(&format!("href=\"/events/{id}/screen\"")),
        "the event's page links its screen"
    );
    let none = ts
        .http(
            Method::GET,
            &format!("/events/{}/screen", uuid::Uuid::new_v4()),
        )
        .send()
        .await;
    assert_eq!(none.status, 404);

    // Only the screen's three languages are taken.
    let refused = ts
        .http(Method::POST, "/v1/events")
        .token(&ts.admin_token)
        .json(&json!({"name": "Open", "format": "classic", "language": "fr"}))
        .send()
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused.text.contains("unknown variant `fr`"),
        "{}",
        refused.text
    );
    ts.shutdown().await;
}

/// What the screen shows of a round played without its clock: whether the tables and the
/// standings are shown, the status line and whether the countdown shows.
async fn without_clock(browser: &Browser) -> (bool, bool, String, bool) {
    let v = browser
        .js("const q = s => document.querySelector(s);
             return [!q('[data-tables]').hidden, !q('[data-standings]').hidden,
                     q('[data-status]').textContent.trim(), !q('[data-countdown]').hidden];")
        .await;
    (
        v[0].as_bool().unwrap(),
        v[1].as_bool().unwrap(),
        v[2].as_str().unwrap().to_owned(),
        v[3].as_bool().unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_a_clock_the_screen_lists_who_sits_where_then_shows_the_standings() {
    use catan_domain::duplicates::folded_name;
    let ts = spawn_suite().await;
    let firsts = [
        "Zoë", "ángel", "Bea", "álvaro", "carla", "Óscar", "david", "Érica",
    ];
    let names: Vec<String> = (0..40)
        .map(|i| format!("{} {i:02}", firsts[i % firsts.len()]))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let body = CreateEvent {
        qualifying_rounds: Some(2),
        language: Some(EventLanguage::Zh),
        ..CreateEvent::classic(&format!("场馆公开赛 {}", uuid::Uuid::new_v4().simple()))
    };
    let fx = catan_e2e::league::event_of(&ts, body, &names).await;
    let round = fx.draw().await;
    let id = fx.event.id;
    let url = format!("{}/events/{id}/screen", ts.suite.url());
    let browser = Browser::open().await;
    browser.resize(1280, 720).await;
    browser.go(&url).await;

    // In play without a clock: the tables, and every player in alphabetical order (case and
    // accents aside) with his table and seat, as the draw placed him.
    let (tables, standings, status, _) = without_clock(&browser).await;
    assert!(tables && !standings, "the round in play: {status}");
    let mut expected: Vec<(String, String)> = Vec::new();
    for table in &round.tables {
        for seat in &table.seats {
            let name = fx
                .entries
                .iter()
                .find(|e| e.player_id == Some(seat.player_id))
                .unwrap()
                .name
                .clone();
            let position = format!("{:?}", seat.position);
            expected.push((name, format!("第 {} 桌 · 座位 {position}", table.number)));
        }
    }
    expected.sort_by_key(|(name, _)| (folded_name(name), name.clone()));
    let shown: Vec<(String, String)> = serde_json::from_value(
        browser
            .js("return Array.from(document.querySelectorAll('[data-seat]'))
                   .map(li => [li.querySelector('bdi').textContent,
                               li.querySelector('.seat-where').textContent]);")
            .await,
    )
    .unwrap();
    assert_eq!(shown, expected, "alphabetical, each with table and seat");
    assert_eq!(shown[0].0, "álvaro 03", "accents aside: {shown:?}");
    accessible(&browser, "in play without a clock").await;

    // Longer than the projector is high, the list scrolls by itself...
    let list = "document.querySelector('.screen-seats [data-scroll]')";
    let scrolled = |script: &str| format!("const list = {list}; {script}");
    let fits = browser
        .js(&scrolled("return list.scrollHeight > list.clientHeight;"))
        .await;
    assert_eq!(fits, json!(true), "40 names do not fit at once");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let top = browser.js(&scrolled("return list.scrollTop;")).await;
    assert!(top.as_f64().unwrap() > 5.0, "scrolled by itself: {top}");
    // ...unless the room asked for less motion.
    browser
        .cdp(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}),
        )
        .await;
    browser.go(&url).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let still = browser.js(&scrolled("return list.scrollTop;")).await;
    assert_eq!(still.as_f64(), Some(0.0), "still with reduced motion");

    // On a phone it fits, the list one name a line.
    browser.resize(catan_e2e::phone::PHONE_WIDTH, 800).await;
    catan_e2e::phone::assert_fits_phone(&browser, "the screen in play").await;
    accessible(&browser, "in play at 360 px").await;
    browser.resize(1280, 720).await;

    // A first result in without a clock: the room is told how many tables have theirs, not
    // that the round has not started, and no dash of a countdown shows.
    let first = &round.tables[0];
    let sheet = catan_e2e::won_by_first(&catan_e2e::seated(first), &[10, 7, 5, 3]);
    fx.submit(1, first.number, &sheet).await;
    let page = ts
        .http(Method::GET, &format!("/events/{id}/screen"))
        .send()
        .await;
    let tables = round.tables.len();
    assert!(
        page.text
            .contains(&format!(">进行中：{tables} 桌中已有 1 桌交回成绩</p>"))
            && page.text.contains("data-countdown hidden>"),
        "{}",
        page.text
    );

    // Every table's result in, still without a clock: the round is over, the standings show
    // by themselves, and no dash of a countdown is left.
    for table in &round.tables[1..] {
        let sheet = catan_e2e::won_by_first(&catan_e2e::seated(table), &[10, 7, 5, 3]);
        fx.submit(1, table.number, &sheet).await;
    }
    let since = Instant::now();
    let over = loop {
        let now = without_clock(&browser).await;
        if now.1 {
            break now;
        }
        assert!(
            since.elapsed() < Duration::from_secs(45),
            "the standings not shown by themselves: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert_eq!(
        (over.0, over.2.as_str(), over.3),
        (false, "本轮已结束", false),
        "{over:?}"
    );
    let rows = browser.texts("#standings tbody tr").await;
    assert_eq!(rows.len(), 40, "every player in the standings");
    accessible(&browser, "a finished round without a clock").await;
    browser.resize(catan_e2e::phone::PHONE_WIDTH, 800).await;
    catan_e2e::phone::assert_fits_phone(&browser, "the standings on the screen").await;

    // Without JavaScript too.
    let page = ts
        .http(Method::GET, &format!("/events/{id}/screen"))
        .send()
        .await;
    assert!(
        page.text.contains("data-standings>")
            && page.text.contains("data-tables hidden")
            && page.text.contains(">本轮已结束</p>")
            && page.text.contains("data-countdown hidden>"),
        "{}",
        page.text
    );
    browser.close().await;
    ts.shutdown().await;
}
