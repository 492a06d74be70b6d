//! An 8-team partner event run from the console in headless Chromium (issue 30), with clicks
//! and typing only after the admin's first key: the region and the event made through the
//! console's forms, the teams registered (four typed, four pasted from a CSV), three Swiss rounds
//! drawn and every partner sheet entered, its winning team chosen. The placements the console
//! shows equal the API's; axe-core checks the partner pages.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a failed step fails the test"
)]

use catan_api::Stage;
use catan_e2e::browser::Browser;
use catan_e2e::console::{assert_accessible, create_event, path_of, register, sign_in};
use catan_e2e::{eventually, spawn_suite};

const TYPED: &str = "Los Tigres, Ana Pérez, Luis Gil\nHarbour Hawks, Ada Lovelace, Grace Hopper\n\
                     长城, 王伟, 李娜\nNorth Stars, Alan Turing, Edsger Dijkstra";

const CSV: &str = "team,first,second\nThe Knights, Barbara Liskov, Donald Knuth\n\
                   Road Builders, Frances Allen, John Backus\n\
                   \"Wheat & Sheep\", Tony Hoare, Leslie Lamport\nOre Miners, Ken Thompson, Radia Perlman\n";

/// Fills the open partner sheet: the team of the first row wins with 10 VP a player (2
/// settlements, 4 cities), the other team's players have 4 each; the winner is that team.
async fn fill_partner_sheet(browser: &Browser) {
    let teams: Vec<String> = serde_json::from_value(
        browser
            .js(
                "return Array.from(document.querySelectorAll('tr[data-seat] .team'))\
                 .map(t => t.getAttribute('data-team'));",
            )
            .await,
    )
    .unwrap();
    assert_eq!(teams.len(), 4, "four players, each with a team");
    for (i, team) in teams.iter().enumerate() {
        let cities = if *team == teams[0] { 4 } else { 1 };
        for (field, value) in [("settlements", 2), ("cities", cities)] {
            let css = format!("input[name={field}{i}]");
            browser.type_into(&css, &value.to_string()).await;
        }
    }
    browser
        .click(&format!("#winner option[value='{}']", teams[0]))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_eight_team_partner_event_runs_from_the_browser() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    let browser = Browser::open().await;
    sign_in(&browser, &base, &ts.admin_key).await;
    browser.type_into("#region-name", "Pairs South").await;
    browser
        .click_to_next_page("#new-region ~ form button[type=submit]")
        .await;
    let regions = ts.admin.regions().await.unwrap();
    let region = regions.iter().find(|r| r.name == "Pairs South").unwrap();
    let (event_path, event_id) = create_event(
        &browser,
        region.id,
        "Console Pairs",
        true,
        &[("time_limit_rule", "draw")],
    )
    .await;
    let event = ts.admin.event(event_id).await.unwrap();
    assert_eq!(event.format, catan_api::EventFormat::Partner);
    let rules = event.partner_rules.unwrap();
    assert_eq!(rules.rounds, 3);
    assert_eq!(rules.time_limit_rule, catan_api::TimeLimitRule::Draw);

    register(&browser, TYPED).await;
    assert_eq!(
        browser.texts(".slips li").await.len(),
        8,
        "a PIN each player"
    );
    register(&browser, CSV).await;
    assert_eq!(browser.texts(".slips li").await.len(), 8);
    assert_accessible(&browser, "partner event").await;
    let entries = ts.admin.entries(event_id).await.unwrap();
    assert_eq!(entries.len(), 8, "eight teams");
    assert!(entries.iter().all(|e| e.player_ids.len() == 2));
    assert!(entries.iter().any(|e| e.name == "Wheat & Sheep"));

    for round in 1..=3 {
        browser.go(&format!("{base}{event_path}")).await;
        browser
            .click_to_next_page("#rounds-h ~ form button[type=submit]")
            .await;
        let round_path = path_of(&browser).await;
        assert_eq!(round_path, format!("{event_path}/rounds/{round}"));
        assert_eq!(
            ts.admin.round(event_id, round).await.unwrap().stage,
            Stage::Swiss
        );
        let tables = browser.texts("#round-tables tbody tr").await.len();
        assert_eq!(tables, 4, "four tables of two teams");
        for t in 1..=tables {
            browser
                .click_to_next_page(&format!("#round-tables tbody tr:nth-child({t}) a"))
                .await;
            if round == 1 && t == 1 {
                assert_accessible(&browser, "partner sheet").await;
            }
            fill_partner_sheet(&browser).await;
            browser
                .click_to_next_page("form[data-sheet] button[type=submit]")
                .await;
            let refused = browser.texts("[role=alert]").await;
            assert_eq!(path_of(&browser).await, round_path, "{refused:?}");
        }
    }

    let placements = eventually(20, "the placements", async || {
        let p = ts.admin.placements(event_id).await.ok()?;
        p.complete.then_some(p)
    })
    .await;
    browser.go(&format!("{base}{event_path}")).await;
    let shown = browser.texts("#placements tbody tr td:nth-child(2)").await;
    let expected: Vec<String> = placements.rows.iter().map(|r| r.name.clone()).collect();
    assert_eq!(shown, expected, "the console's placements are the API's");
    assert_eq!(shown.len(), 8);
    browser.close().await;
    ts.shutdown().await;
}
