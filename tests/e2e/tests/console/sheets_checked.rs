//! Sheets that cannot be, in the console (issue 41, items 2, 3 and 6), by clicks and typing on a
//! 360 px phone, where each player's line is a card that nothing hides off to the right: a
//! non-winner at 11 VP is refused with the warning beside his line and what each player is
//! credited, then taken once the director ticks "checked by the director" with a reason, and the
//! round's page says so; corrected, it says that; the sheet is then voided from its page and the
//! table has no result.

use catan_e2e::browser::Browser;
use catan_e2e::console::{assert_accessible, path_of, said, sign_in, type_sheet};
use catan_e2e::phone::{PHONE_WIDTH, assert_fits_phone};
use catan_e2e::spawn_suite;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_director_sees_the_credit_and_marks_a_doubtful_sheet_checked() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    let fx = ts.classic_event(8, Some(2)).await;
    let event_id = fx.event.id;
    fx.draw().await;
    let browser = Browser::open().await;
    sign_in(&browser, &base, &fx.director_key).await;
    let sheet_path = format!("/console/events/{event_id}/rounds/1/tables/1");
    browser.go(&format!("{base}{sheet_path}")).await;
    assert!(
        browser.texts("input[name=checked]").await.is_empty(),
        "no box before the sheet needs one"
    );
    assert_accessible(&browser, "the sheet form on a desk").await;
    browser.resize(PHONE_WIDTH, 800).await;
    assert_fits_phone(&browser, "the sheet form").await;
    let shown = browser
        .js(
            "return Array.from(document.querySelectorAll(\"tr[data-seat='0'] .cell-label\"))\
               .filter(e => e.getBoundingClientRect().width > 1\
                 && e.getBoundingClientRect().right <= window.innerWidth)\
               .map(e => e.textContent);",
        )
        .await;
    assert_eq!(
        shown,
        serde_json::json!([
            "Settlements",
            "Cities",
            "VP cards",
            "Longest road",
            "Largest army",
            "VP"
        ]),
        "on a phone every field of a player's card shows its name, none off to the right"
    );
    for lang in ["es", "zh", "en"] {
        browser
            .go(&format!("{base}/lang?to={lang}&back={sheet_path}"))
            .await;
        assert_fits_phone(&browser, &format!("the sheet form in {lang}")).await;
    }

    // The winner at 12, a non-winner at 11 (4 settlements and 4 cities; 3 and 4).
    type_sheet(&browser, &[(4, 4), (3, 4), (2, 1), (2, 0)]).await;
    browser
        .click_to_next_page("form[data-sheet] button[type=submit]")
        .await;
    assert_eq!(
        path_of(&browser).await,
        sheet_path,
        "refused: the form again"
    );
    let beside = browser.texts("tr[data-seat='1'] .field-errors").await;
    assert!(
        beside.iter().any(|t| t.contains("10 VP or more")),
        "the warning beside the non-winner's line: {beside:?}"
    );
    let credited = browser.texts("#credited li").await;
    assert_eq!(credited.len(), 4, "{credited:?}");
    assert!(credited[0].ends_with("12 VP · credited 10"), "{credited:?}");
    assert!(credited[1].ends_with("11 VP · credited 9"), "{credited:?}");
    assert_fits_phone(&browser, "the refused sheet with the director's box").await;
    assert_accessible(&browser, "the refused sheet with the director's box").await;
    assert!(
        ts.anonymous.result(event_id, 1, 1).await.is_err(),
        "nothing saved yet"
    );

    // Ticked, with a reason: saved as typed, the reason in the audit trail.
    let reason = "S cut N's road on S's turn: N had 11";
    browser.click("input[name=checked]").await;
    browser.type_into("#checked_reason", reason).await;
    browser
        .click_to_next_page("form[data-sheet] button[type=submit]")
        .await;
    assert_eq!(
        path_of(&browser).await,
        format!("/console/events/{event_id}/rounds/1")
    );
    assert_eq!(said(&browser).await, ["Result recorded for table 1"]);
    let saved = ts.anonymous.result(event_id, 1, 1).await.expect("saved");
    let figures: Vec<(u8, u8)> = saved.scores.iter().map(|s| (s.vp, s.credited_vp)).collect();
    assert_eq!(figures, [(12, 10), (11, 9), (4, 4), (2, 2)]);
    let kept = format!(
        "SELECT count(*) AS n FROM results.audit_log WHERE targets->>'checked_reason' = '{}'",
        reason.replace('\'', "''")
    );
    assert_eq!(ts.count(&kept), 1);

    // Corrected (the second seat's cities 4 → 3: 9 VP, nothing to check): the round says so.
    browser.go(&format!("{base}{sheet_path}")).await;
    browser
        .js("document.querySelector('input[name=cities1]').value = '';")
        .await;
    browser.type_into("input[name=cities1]", "3").await;
    browser
        .click_to_next_page("form[data-sheet] button[type=submit]")
        .await;
    assert_eq!(said(&browser).await, ["Result corrected for table 1"]);
    let corrected = ts.anonymous.result(event_id, 1, 1).await.expect("kept");
    assert_eq!((corrected.version, corrected.scores[1].vp), (2, 9));

    // Voided from the sheet's page: the table has no result and a new sheet can be entered.
    browser.go(&format!("{base}{sheet_path}")).await;
    browser.click_to_next_page("button[data-void]").await;
    assert_eq!(path_of(&browser).await, sheet_path);
    let voided = said(&browser).await;
    assert!(
        voided
            .iter()
            .any(|t| t.contains("Result voided for table 1")),
        "{voided:?}"
    );
    assert!(
        ts.anonymous.result(event_id, 1, 1).await.is_err(),
        "no result"
    );
    let history = ts.anonymous.result_history(event_id, 1, 1).await.unwrap();
    let versions: Vec<(u32, bool)> = history
        .items
        .iter()
        .map(|v| (v.version, v.voided))
        .collect();
    assert_eq!(
        versions,
        [(1, false), (2, true)],
        "the history keeps it, voided"
    );
    browser.close().await;
    ts.shutdown().await;
}
