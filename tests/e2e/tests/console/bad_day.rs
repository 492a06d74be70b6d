//! The director's bad day (issue 41, "How it is shown"), in headless Chromium by clicks and
//! typing: a 13-player event where a player does not show after the draw (dropped, the round
//! redrawn), two players are swapped, a misspelt name is corrected, a sheet with a non-winner at
//! 11 VP is refused and then taken as checked by the director, a sheet is voided and entered
//! again, the dropped player is reinstated before the next draw, and a key is revoked (the API
//! then refuses it). The placements the console shows equal the API's.

use catan_api::Role;
use catan_e2e::browser::Browser;
use catan_e2e::console::{fill_sheet, path_of, said, sign_in, type_sheet};
use catan_e2e::{eventually, new_key, seated, spawn_suite};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use uuid::Uuid;

/// Opens table `table`'s sheet from the round's page, as a director clicks it.
async fn open_sheet(browser: &Browser, base: &str, round_path: &str, table: u32) {
    browser.go(&format!("{base}{round_path}")).await;
    browser
        .click_to_next_page(&format!("#round-tables tbody tr:nth-child({table}) a"))
        .await;
}

async fn send_sheet(browser: &Browser) {
    browser
        .click_to_next_page("form[data-sheet] button[type=submit]")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_directors_bad_day_is_undone_by_clicks_and_the_placements_are_the_apis() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    let fx = ts.classic_event(13, Some(2)).await;
    let event_id = fx.event.id;
    let event_path = format!("/console/events/{event_id}");
    let round_path = format!("{event_path}/rounds/1");
    let browser = Browser::open().await;
    sign_in(&browser, &base, &fx.director_key).await;

    // Round 1 drawn; then a player does not show: dropped from the entries, and the round
    // redrawn without him.
    browser.go(&format!("{base}{event_path}")).await;
    browser
        .click_to_next_page("#rounds-h ~ form button[type=submit]")
        .await;
    assert_eq!(said(&browser).await, ["Round 1 drawn"]);
    let first = ts.admin.round(event_id, 1).await.unwrap();
    let no_show = first.tables[0].seats[0].player_id;
    let absent = fx
        .entries
        .iter()
        .find(|e| e.player_id == Some(no_show))
        .unwrap();
    browser.go(&format!("{base}{event_path}")).await;
    browser
        .type_into(&format!("#reason-{}", absent.id), "did not show")
        .await;
    browser
        .click_to_next_page(&format!(
            "#entries form[action$='/entries/{}/drop'] button[name=exclude][value='']",
            absent.id
        ))
        .await;
    assert_eq!(
        said(&browser).await,
        ["Entry dropped: not drawn from the next round on"]
    );
    browser.go(&format!("{base}{round_path}")).await;
    browser.click("details.redraw summary").await;
    browser
        .click_to_next_page("details.redraw button[type=submit]")
        .await;
    assert_eq!(said(&browser).await, ["Round 1 redrawn"]);
    let redrawn = ts.admin.round(event_id, 1).await.unwrap();
    let seated_now: HashSet<Uuid> = redrawn.tables.iter().flat_map(seated).collect();
    assert_eq!(seated_now.len(), 12, "the twelve who came");
    assert!(!seated_now.contains(&no_show), "the no-show is not seated");

    // Two players swapped between tables 1 and 2.
    let (a, b) = (
        redrawn.tables[0].seats[1].player_id,
        redrawn.tables[1].seats[2].player_id,
    );
    browser.click("details.swap summary").await;
    browser
        .click(&format!("#swap-player option[value='{a}']"))
        .await;
    browser
        .click(&format!("#swap-with option[value='{b}']"))
        .await;
    browser
        .click_to_next_page("details.swap button[type=submit]")
        .await;
    assert_eq!(said(&browser).await, ["Players swapped in round 1"]);
    let round = ts.admin.round(event_id, 1).await.unwrap();
    assert!(round.changed_by_hand);
    assert_eq!(
        (
            round.tables[0].seats[1].player_id,
            round.tables[1].seats[2].player_id
        ),
        (b, a)
    );

    // A misspelt name corrected from the entries.
    let misspelt_player = round.tables[2].seats[0].player_id;
    let misspelt = fx
        .entries
        .iter()
        .find(|e| e.player_id == Some(misspelt_player))
        .unwrap();
    browser.go(&format!("{base}{event_path}")).await;
    let rename = format!("form[action$='/entries/{}/rename']", misspelt.id);
    browser
        .click(&format!("#entries details.rename:has({rename}) summary"))
        .await;
    let field = format!("#rename-{misspelt_player}");
    browser
        .js(&format!("document.querySelector('{field}').value = '';"))
        .await;
    browser.type_into(&field, "Pere Pons").await;
    browser
        .click_to_next_page(&format!("{rename} button[type=submit]"))
        .await;
    assert_eq!(said(&browser).await, ["Player renamed"]);

    // Table 1: the winner at 12 and a non-winner at 11 is refused beside his line, then taken
    // once the director marks it checked, with the reason.
    open_sheet(&browser, &base, &round_path, 1).await;
    type_sheet(&browser, &[(4, 4), (3, 4), (2, 1), (2, 0)]).await;
    send_sheet(&browser).await;
    let beside = browser.texts("tr[data-seat='1'] .field-errors").await;
    assert!(
        beside.iter().any(|t| t.contains("10 VP or more")),
        "the warning beside the non-winner: {beside:?}"
    );
    assert!(ts.anonymous.result(event_id, 1, 1).await.is_err());
    browser.click("input[name=checked]").await;
    browser
        .type_into("#checked_reason", "the road was cut on the last turn")
        .await;
    send_sheet(&browser).await;
    assert_eq!(said(&browser).await, ["Result recorded for table 1"]);
    let checked = ts.anonymous.result(event_id, 1, 1).await.unwrap();
    assert_eq!(checked.scores[1].vp, 11);

    // Tables 2 and 3 entered; table 3's sheet voided and entered again.
    for table in 2..=3 {
        open_sheet(&browser, &base, &round_path, table).await;
        fill_sheet(&browser, 4).await;
        send_sheet(&browser).await;
        assert_eq!(
            said(&browser).await,
            [format!("Result recorded for table {table}")]
        );
    }
    open_sheet(&browser, &base, &round_path, 3).await;
    browser.click_to_next_page("button[data-void]").await;
    assert!(
        said(&browser)
            .await
            .iter()
            .any(|t| t.contains("Result voided for table 3")),
        "{:?}",
        said(&browser).await
    );
    assert!(ts.anonymous.result(event_id, 1, 3).await.is_err());
    fill_sheet(&browser, 4).await;
    send_sheet(&browser).await;
    assert_eq!(said(&browser).await, ["Result recorded for table 3"]);
    let history = ts.anonymous.result_history(event_id, 1, 3).await.unwrap();
    let versions: Vec<(u32, bool)> = history
        .items
        .iter()
        .map(|v| (v.version, v.voided))
        .collect();
    assert_eq!(versions, [(1, true), (2, false)], "the void is kept");

    // The no-show arrives: reinstated before round 2, which seats him.
    browser.go(&format!("{base}{event_path}")).await;
    browser
        .click_to_next_page(&format!(
            "#entries form[action$='/entries/{}/reinstate'] button",
            absent.id
        ))
        .await;
    assert_eq!(said(&browser).await, ["Entry reinstated"]);
    browser
        .click_to_next_page("#rounds-h ~ form button[type=submit]")
        .await;
    assert_eq!(said(&browser).await, ["Round 2 drawn"]);
    let second = ts.admin.round(event_id, 2).await.unwrap();
    assert!(
        second.tables.iter().flat_map(seated).any(|p| p == no_show),
        "the reinstated player plays round 2"
    );
    browser.click_to_next_page("form.sign-out button").await;

    // A table app's key is lost with its tablet: the admin revokes it from the console, and the
    // API refuses it from then on.
    let lost = ts
        .admin
        .create_api_key(&new_key(
            "Table 2 tablet",
            Role::Scorer,
            Some(vec![event_id]),
        ))
        .await
        .unwrap();
    sign_in(&browser, &base, &ts.admin_key).await;
    browser.go(&format!("{base}/console/keys")).await;
    browser
        .click_to_next_page(&format!(
            "form[action='/console/keys/{}/revoke'] button",
            lost.id
        ))
        .await;
    assert_eq!(path_of(&browser).await, "/console/keys");
    assert_eq!(said(&browser).await, ["Key revoked: it signs in no more"]);
    let refused = ts.anonymous.token(&lost.api_key).await;
    assert_eq!(
        refused.unwrap_err().status(),
        Some(401),
        "the key is refused"
    );

    // The rest of the event from the table apps, to its placements: the console shows the
    // API's, with the corrected name.
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let mut round = second;
    loop {
        for table in &round.tables {
            fx.submit_random(&round, table, &mut rng).await;
        }
        ts.settled().await;
        let placements = ts.admin.placements(event_id).await.unwrap();
        if placements.complete {
            break;
        }
        assert!(round.number < 8, "the event ends");
        round = fx.draw().await;
    }
    let placements = eventually(20, "the placements", async || {
        let p = ts.admin.placements(event_id).await.ok()?;
        p.complete.then_some(p)
    })
    .await;
    let expected: Vec<String> = placements.rows.iter().map(|r| r.name.clone()).collect();
    assert!(expected.contains(&"Pere Pons".to_owned()), "{expected:?}");
    assert!(!expected.contains(&misspelt.name), "{expected:?}");
    browser.go(&format!("{base}{event_path}")).await;
    let shown = browser.texts("#placements tbody tr td:nth-child(2)").await;
    assert_eq!(shown, expected, "the console's placements are the API's");
    browser.close().await;
    ts.shutdown().await;
}
