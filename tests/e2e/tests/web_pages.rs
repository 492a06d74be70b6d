//! The league dashboard without a browser (no JavaScript at all): the pages' languages, their
//! CSV, and that every page answers.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a failed step fails the test"
)]

use catan_api::{CreateEvent, SmallFieldRule};
use catan_e2e::league::{event_of, league, name_at};
use catan_e2e::{TestSuite, eventually, spawn_suite};
use chrono::NaiveDate;
use reqwest::Method;
use uuid::Uuid;

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
    // Chinese puts the number inside the words ("截至第 0 轮", "第 1 轮"), never after a
    // question word; every name is isolated from the text around it.
    assert!(
        html.contains("截至第 <span data-after-round>0</span> 轮") && !html.contains('几'),
        "{html}"
    );
    assert!(html.contains("第 1 轮 · 预选赛"), "{html}");
    assert!(html.contains("<h1><bdi>Girona cup</bdi></h1>"), "{html}");
    for name in league.live.entries.iter().map(|e| &e.name) {
        assert!(
            html.contains(&format!("<bdi>{name}</bdi>")),
            "{name} isolated"
        );
    }
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
