//! The player's phone (issue 31) in headless Chromium at 360 px, used as a player uses it:
//! the slip's address opens the sign-in with his name picked, he types his PIN and sees his table
//! and seat; he confirms a result and disputes another; with players reporting, one reports the
//! table's sheet through the console's form and another confirms it; he drops out after a page
//! that asks first. Over plain HTTP: another table's player can neither report nor confirm (the
//! API's 403, shown readably), a player's session cannot reach the console, a form sent again
//! writes once, and wrong PINs are held to the visitor's own address.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a failed step fails the test"
)]

#[path = "phone/addresses.rs"]
mod addresses;
#[path = "phone/checks.rs"]
mod checks;
#[path = "phone/over_http.rs"]
mod over_http;

use catan_api::{
    ClockActionKind, ClockChange, CreateEvent, EntryStatus, PlayerReporting, Round, Table,
};
use catan_e2e::browser::Browser;
use catan_e2e::console::{assert_accessible, fill_sheet, path_of};
use catan_e2e::phone::{PHONE_WIDTH, assert_fits_phone, pin_of, sign_in_with_pin, slip_path};
use catan_e2e::{EventFixture, TestSuite, seated, spawn_suite, won_by_first};
use checks::each_language_fits;
use uuid::Uuid;

/// An 8-player classic event of three rounds (two tables a round) named `name`, with the
/// players' options `reporting` and `may_drop`.
pub(crate) async fn phone_event(
    ts: &TestSuite,
    name: &str,
    reporting: Option<PlayerReporting>,
    may_drop: bool,
) -> EventFixture {
    let body = CreateEvent {
        qualifying_rounds: Some(3),
        player_reporting: reporting,
        players_may_drop: Some(may_drop),
        ..CreateEvent::classic(name)
    };
    ts.classic_event_as(&body, 8).await
}

/// Each table of `round` won by its first seat, posted by the scorer.
async fn post_every_table(fx: &EventFixture, round: &Round) {
    for table in &round.tables {
        let sheet = won_by_first(&seated(table), &[10, 5, 4, 2]);
        fx.submit(round.number, table.number, &sheet).await;
    }
}

/// The table of `round` where `player` sits.
fn table_of(round: &Round, player: Uuid) -> &Table {
    round
        .tables
        .iter()
        .find(|t| t.seats.iter().any(|s| s.player_id == player))
        .unwrap()
}

async fn phone_browser() -> Browser {
    let browser = Browser::open().await;
    browser.resize(PHONE_WIDTH, 800).await;
    browser
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_player_signs_in_from_his_slip_sees_his_seat_confirms_disputes_and_drops_out() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    let fx = phone_event(&ts, "Phone open", None, true).await;
    let id = fx.event.id;
    let first = fx.draw().await;
    post_every_table(&fx, &first).await;
    let second = fx.draw().await;
    let table = &second.tables[0];
    let seat = &table.seats[1];
    let player = seat.player_id;
    let t1 = table_of(&first, player).number;
    post_every_table(&fx, &second).await;
    let start = ClockChange {
        action: ClockActionKind::Start,
        minutes: Some(60),
        table: None,
    };
    fx.director.change_clock(id, 2, &start).await.unwrap();

    // The event's page leads players to their sign-in; the slip's code opens it with his name
    // picked, and he types the PIN.
    let browser = phone_browser().await;
    browser.go(&format!("{base}/events/{id}")).await;
    browser.click_to_next_page("main a[href$='/sign-in']").await;
    assert_eq!(path_of(&browser).await, format!("/events/{id}/sign-in"));
    sign_in_with_pin(&browser, &base, id, player, &pin_of(&fx.entries, player)).await;
    assert_eq!(
        browser.texts("[data-table]").await,
        vec![table.number.to_string()]
    );
    assert_eq!(
        browser.texts("[data-seat]").await,
        vec![format!("{:?} · plays 2nd", seat.position)],
        "his seat and his turn"
    );
    let order = browser.texts(".turn-order li").await;
    assert_eq!(
        order.len(),
        table.seats.len(),
        "the table's players in turn order"
    );
    assert!(order[1].ends_with("(you)"), "{order:?}");
    let left: u32 = browser.texts("[data-time-left] strong").await[0]
        .parse()
        .unwrap();
    assert!((58..=60).contains(&left), "the table's time left: {left}");
    assert!(
        browser.texts("a[href$='/report']").await.is_empty(),
        "staff report in this event"
    );

    // Every page of his in English, Spanish and Chinese at 360 px.
    each_language_fits(&browser, &base, id, player).await;

    // Beside Confirm and Dispute, the table's whole sheet: every player's name (isolated), VP
    // and credited VP, as stacked lines.
    let lines = browser
        .texts(&format!("#result-1-{t1} [data-table-sheet] li"))
        .await;
    let names = browser
        .texts(&format!("#result-1-{t1} [data-table-sheet] li bdi"))
        .await;
    assert_eq!((lines.len(), names.len()), (4, 4), "{lines:?}");
    assert!(
        lines[0].ends_with("10 VP · credited 10 · Winner"),
        "{lines:?}"
    );
    assert!(lines[1].ends_with("5 VP · credited 5"), "{lines:?}");
    assert_fits_phone(&browser, "my event with the table's sheet").await;

    // He confirms round 1's result.
    browser
        .click_to_next_page(&format!("#result-1-{t1} form[action$='/confirm'] button"))
        .await;
    let confirmed = ts.admin.result(id, 1, t1).await.unwrap();
    assert!(confirmed.confirmed_by.contains(&player));
    assert_eq!(
        browser.texts(&format!("#result-1-{t1} .done")).await,
        vec!["You confirmed it."]
    );

    // He disputes round 2's: a blank reason is refused beside the field, then a reason is kept.
    let t2 = table.number;
    let reason_field = format!("#reason-2-{t2}");
    let dispute = format!("#result-2-{t2} form[action$='/dispute'] button");
    browser.type_into(&reason_field, "   ").await;
    browser.click_to_next_page(&dispute).await;
    assert!(
        !browser
            .texts(&format!("#result-2-{t2} .field-errors"))
            .await
            .is_empty(),
        "the refusal is shown beside the dispute"
    );
    browser
        .type_into(&reason_field, "Seat W had 3 VP, not 2")
        .await;
    browser.click_to_next_page(&dispute).await;
    let disputed = ts.admin.result(id, 2, t2).await.unwrap();
    let kept: Vec<_> = disputed
        .disputes
        .iter()
        .map(|d| (d.player_id, d.reason.as_str()))
        .collect();
    assert_eq!(kept, vec![(player, "Seat W had 3 VP, not 2")]);
    assert!(browser.texts(&format!("#result-2-{t2} .done")).await[0].contains("Seat W had 3"));

    // His standing is the API's.
    let rank = ts
        .standings(id)
        .await
        .rows
        .iter()
        .find(|r| r.player_id == player)
        .unwrap()
        .rank;
    browser.go(&format!("{base}/events/{id}/me")).await;
    let shown = browser
        .js("return document.querySelector('.my-rank').dataset.rank;")
        .await;
    assert_eq!(shown.as_str(), Some(rank.to_string().as_str()));

    // The console is not his.
    browser.go(&format!("{base}/console")).await;
    assert_eq!(path_of(&browser).await, "/console", "no sign-in offered");
    assert_eq!(
        browser.texts("h1").await,
        vec!["The console is for the event's staff: your PIN opens your own page only."]
    );

    // He drops out, after a page that asks first.
    browser.go(&format!("{base}/events/{id}/me")).await;
    browser.click_to_next_page("a[href$='/me/drop']").await;
    assert_fits_phone(&browser, "drop").await;
    assert_accessible(&browser, "drop").await;
    let entry = fx.entries.iter().find(|e| e.player_ids.contains(&player));
    let status = async || {
        let entries = ts.admin.entries(id).await.unwrap();
        let id = entry.unwrap().id;
        entries.iter().find(|e| e.id == id).unwrap().status
    };
    assert_eq!(
        status().await,
        EntryStatus::Active,
        "asked, not yet dropped"
    );
    browser
        .click_to_next_page("form[action$='/me/drop'] button[type=submit]")
        .await;
    assert_eq!(path_of(&browser).await, format!("/events/{id}/me"));
    assert_eq!(status().await, EntryStatus::Dropped);
    assert_eq!(
        browser.texts(".done[role=status]").await,
        vec!["You have left this event."]
    );
    browser.close().await;
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_players_reporting_one_reports_the_sheet_and_another_confirms_it() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    let fx = phone_event(&ts, "Phone reported", Some(PlayerReporting::Report), false).await;
    let id = fx.event.id;
    let round = fx.draw().await;
    let table = &round.tables[0];
    let (reporter, other) = (table.seats[0].player_id, table.seats[2].player_id);
    let t = table.number;

    let browser = phone_browser().await;
    sign_in_with_pin(
        &browser,
        &base,
        id,
        reporter,
        &pin_of(&fx.entries, reporter),
    )
    .await;
    browser.click_to_next_page("a[href$='/report']").await;
    assert_eq!(
        path_of(&browser).await,
        format!("/events/{id}/me/rounds/1/tables/{t}/report")
    );
    assert_fits_phone(&browser, "the report form").await;
    assert_accessible(&browser, "the report form").await;
    assert!(
        browser
            .texts("#early_reason, input[name=checked]")
            .await
            .is_empty(),
        "no director-only field on a player's form"
    );
    fill_sheet(&browser, 4).await;
    browser
        .click_to_next_page("form[data-sheet] button[type=submit]")
        .await;
    assert_eq!(path_of(&browser).await, format!("/events/{id}/me"));
    let reported = ts.admin.result(id, 1, t).await.unwrap();
    assert_eq!(reported.winner_player_id, Some(reporter));
    assert_eq!(reported.confirmed_by, vec![reporter], "its reporter agrees");
    assert!(
        browser.texts("a[href$='/report']").await.is_empty(),
        "reported once"
    );

    // Another player of the table confirms it on his phone.
    browser.click_to_next_page("form.sign-out button").await;
    sign_in_with_pin(&browser, &base, id, other, &pin_of(&fx.entries, other)).await;
    browser
        .click_to_next_page(&format!("#result-1-{t} form[action$='/confirm'] button"))
        .await;
    let held = ts.admin.result(id, 1, t).await.unwrap();
    assert_eq!(held.version, 1);
    let mut confirmed = held.confirmed_by.clone();
    confirmed.sort();
    let mut expected = vec![reporter, other];
    expected.sort();
    assert_eq!(confirmed, expected, "the API holds both confirmations");
    browser.close().await;
    ts.shutdown().await;
}

/// `cargo test -p catan-e2e --test player_phone -- --ignored --exact phone_screenshots`: the
/// player's pages at 360 px as the README shows them, written to `docs/screenshots/`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "writes docs/screenshots/phone-*.png; run it to refresh the README's pictures"]
async fn phone_screenshots() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    let fx = phone_event(&ts, "Spring open", Some(PlayerReporting::Report), true).await;
    let id = fx.event.id;
    let first = fx.draw().await;
    post_every_table(&fx, &first).await;
    let second = fx.draw().await;
    let player = second.tables[0].seats[1].player_id;
    let start = ClockChange {
        action: ClockActionKind::Start,
        minutes: Some(60),
        table: None,
    };
    fx.director.change_clock(id, 2, &start).await.unwrap();
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/screenshots");
    std::fs::create_dir_all(&out).unwrap();
    let browser = phone_browser().await;
    let shoot = async |name: &str, height: u32| {
        browser.resize(PHONE_WIDTH, height).await;
        std::fs::write(out.join(format!("{name}.png")), browser.screenshot().await).unwrap();
    };
    browser
        .go(&format!("{base}{}", slip_path(id, player)))
        .await;
    shoot("phone-sign-in", 720).await;
    sign_in_with_pin(&browser, &base, id, player, &pin_of(&fx.entries, player)).await;
    shoot("phone-my-event", 1500).await;
    browser
        .go(&format!("{base}/lang?to=es&back=/events/{id}/me"))
        .await;
    shoot("phone-my-event-es", 1500).await;
    browser
        .go(&format!("{base}/lang?to=zh&back=/events/{id}/me"))
        .await;
    shoot("phone-my-event-zh", 1500).await;
    browser
        .go(&format!("{base}/lang?to=en&back=/events/{id}/me"))
        .await;
    browser.click_to_next_page("a[href$='/report']").await;
    shoot("phone-report", 1100).await;
    browser.close().await;
    ts.shutdown().await;
}
