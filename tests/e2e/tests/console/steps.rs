//! Steps of the console's browser test run apart from its main line: a dispute worked
//! through, a confirmation made for a player, and the round's clock controlled.

use catan_api::ResultStatus;
use catan_e2e::browser::Browser;
use catan_e2e::console::{assert_accessible, correct_fourth_seats_settlements};
use uuid::Uuid;

/// Round 1: a player at table 2, his PIN reissued from the console (shown once), disputes the
/// result from his table app; the dispute is in the console's queue and the director resolves it
/// with a correction. The director confirms table 3's result for one of its players.
pub(crate) async fn dispute_resolved_and_confirmed(
    ts: &catan_e2e::TestSuite,
    browser: &Browser,
    base: &str,
    event_path: &str,
    event_id: Uuid,
) {
    let round = ts.admin.round(event_id, 1).await.unwrap();
    let player = round.tables[1].seats[0].player_id;
    let entries = ts.admin.entries(event_id).await.unwrap();
    let name = &entries
        .iter()
        .find(|e| e.player_id == Some(player))
        .unwrap()
        .name;
    browser.go(&format!("{base}{event_path}")).await;
    let row = browser
        .js(&format!(
            "return Array.from(document.querySelectorAll('#entries tbody tr'))\
             .findIndex(r => r.cells[0].textContent.trim() === {});",
            serde_json::to_string(name).unwrap()
        ))
        .await
        .as_i64()
        .unwrap();
    browser
        .click_to_next_page(&format!(
            "#entries tbody tr:nth-child({}) form[action$='/pin'] button",
            row + 1
        ))
        .await;
    let slips = browser.texts(".slips .slip-name").await;
    assert_eq!(slips, vec![name.clone()], "the new PIN's slip");
    let pin = browser.texts(".slips code.pin").await.remove(0);
    assert_accessible(browser, "a new PIN").await;

    let phone = ts.player_client(event_id, player, &pin).await;
    phone
        .dispute_result(event_id, 1, 2, "my cities were 2, not 1")
        .await
        .unwrap();
    browser.go(&format!("{base}{event_path}")).await;
    assert_eq!(browser.texts(".disputes li a").await.len(), 1, "the queue");
    browser.click_to_next_page(".disputes li a").await;
    let reasons = browser.texts("ul.disputes li").await;
    assert!(reasons[0].contains("my cities were 2"), "{reasons:?}");
    assert_accessible(browser, "a disputed sheet").await;
    correct_fourth_seats_settlements(browser).await;
    let resolved = ts.admin.result(event_id, 1, 2).await.unwrap();
    assert_eq!(resolved.status, ResultStatus::Resolved);
    browser.go(&format!("{base}{event_path}")).await;
    assert!(
        browser.texts(".disputes li").await.is_empty(),
        "the queue is empty"
    );

    browser
        .go(&format!("{base}{event_path}/rounds/1/tables/3"))
        .await;
    browser
        .click_to_next_page(".confirm-list form button")
        .await;
    let confirmed = ts.admin.result(event_id, 1, 3).await.unwrap();
    assert_eq!(confirmed.confirmed_by.len(), 1, "confirmed for one player");
    assert_eq!(confirmed.confirmed_by_director.len(), 1);
    browser.go(&format!("{base}{event_path}/audit")).await;
    assert!(
        browser.texts("#audit tbody tr").await.len() > 16,
        "the trail"
    );
    assert_accessible(browser, "audit trail").await;
}

/// Round 2: the director starts the clock, pauses it, gives table 1 five more minutes and
/// resumes, each from the round's page.
pub(crate) async fn clock_controlled(
    ts: &catan_e2e::TestSuite,
    browser: &Browser,
    base: &str,
    event_path: &str,
    event_id: Uuid,
) {
    browser.go(&format!("{base}{event_path}/rounds/2")).await;
    browser
        .click_to_next_page(".clock-buttons form button")
        .await;
    let running = browser
        .texts(".console-clock p[role=status]")
        .await
        .remove(0);
    assert!(running.starts_with("In play · Time left: "), "{running:?}");
    let clock = ts.admin.round_clock(event_id, 2).await.unwrap();
    assert_eq!(clock.state, catan_api::RoundState::Running);
    assert_accessible(browser, "a running clock").await;
    browser
        .click_to_next_page(".clock-buttons form:first-child button")
        .await;
    let paused = browser
        .texts(".console-clock p[role=status]")
        .await
        .remove(0);
    assert!(paused.starts_with("Paused"), "{paused:?}");
    browser
        .js("document.querySelector('#extend-minutes').value = '';")
        .await;
    browser.type_into("#extend-minutes", "5").await;
    browser.type_into("#extend-table", "1").await;
    browser.click_to_next_page(".clock-extend button").await;
    let clock = ts.admin.round_clock(event_id, 2).await.unwrap();
    assert_eq!(clock.tables[0].extra_minutes, 5, "{clock:?}");
    browser
        .click_to_next_page(".clock-buttons form:first-child button")
        .await;
    let clock = ts.admin.round_clock(event_id, 2).await.unwrap();
    assert_eq!(clock.state, catan_api::RoundState::Running);
}
