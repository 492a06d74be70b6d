//! The player's phone (issue 31) as the tests use it: a player's PIN from his entry, the sign-in
//! from his slip's address (in the browser, or over plain HTTP), and the checks every phone page
//! passes at 360 px (no sideways scroll, inside tables too; every control at least 44 px high).

use crate::browser::Browser;
use crate::console::path_of;
use crate::visitor::{Page, Visitor};
use catan_api::Entry;
use reqwest::StatusCode;
use uuid::Uuid;

/// The phone's width the pages are made for.
pub const PHONE_WIDTH: u32 = 360;

/// The PIN `player` got when his entry was made (the entries as their creation answered them).
pub fn pin_of(entries: &[Entry], player: Uuid) -> String {
    entries
        .iter()
        .flat_map(|e| e.pins.iter().flatten())
        .find(|p| p.player_id == player)
        .map(|p| p.pin.clone())
        .unwrap_or_else(|| panic!("no PIN for {player}"))
}

/// The address a PIN slip's QR code holds: the sign-in with the player picked, never the PIN.
pub fn slip_path(event: Uuid, player: Uuid) -> String {
    format!("/events/{event}/sign-in?player={player}")
}

/// Opens the slip's address in the browser, finds the player picked, types the PIN and signs in:
/// the browser is on the player's My event page after.
pub async fn sign_in_with_pin(browser: &Browser, base: &str, event: Uuid, player: Uuid, pin: &str) {
    browser
        .go(&format!("{base}{}", slip_path(event, player)))
        .await;
    let picked = browser
        .js("return document.querySelector('#player_id').value;")
        .await;
    assert_eq!(
        picked.as_str(),
        Some(player.to_string().as_str()),
        "the slip's code picks the player"
    );
    browser.type_into("#pin", pin).await;
    browser
        .click_to_next_page("form[action$='/sign-in'] button[type=submit]")
        .await;
    assert_eq!(
        path_of(browser).await,
        format!("/events/{event}/me"),
        "signed in: {:?}",
        browser.texts("[role=alert]").await
    );
}

/// Signs in over plain HTTP as the form does; answers the web app's answer (a `303` to My event
/// when the PIN is right).
pub async fn post_sign_in(visitor: &mut Visitor, event: Uuid, player: Uuid, pin: &str) -> Page {
    let form = visitor.get(&slip_path(event, player)).await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    let csrf = form.hidden("csrf");
    let player = player.to_string();
    visitor
        .post(
            &format!("/events/{event}/sign-in"),
            &[("csrf", &csrf), ("player_id", &player), ("pin", pin)],
        )
        .await
}

/// The page fits a 360 px phone: nothing scrolls sideways, neither the page nor anything inside
/// it (a table, or the box around one), and every visible control (buttons, links drawn as
/// buttons, the header's and the way-back links, inputs, selects; a radio button or a checkbox
/// by the label a thumb touches) is at least 44 px high.
pub async fn assert_fits_phone(browser: &Browser, page: &str) {
    let width = browser
        .js("return document.documentElement.scrollWidth;")
        .await;
    assert!(
        width.as_u64().is_some_and(|w| w <= u64::from(PHONE_WIDTH)),
        "{page} is {width} px wide at {PHONE_WIDTH} px"
    );
    let hidden = hidden_sideways(browser).await;
    assert_eq!(
        hidden.as_array().map(Vec::len),
        Some(0),
        "{page}: wider than the phone inside: {hidden}"
    );
    let small = browser
        .js("return Array.from(document.querySelectorAll(\
               'button, a.button-link, header a, .crumbs a, input:not([type=hidden]), select, textarea'))\
             .filter(e => e.offsetParent !== null)\
             .map(e => e.matches('[type=radio], [type=checkbox]') && e.closest('label') || e)\
             .map(e => [e.outerHTML.slice(0, 80), e.getBoundingClientRect().height])\
             .filter(([, h]) => h < 44);")
        .await;
    assert_eq!(
        small.as_array().map(Vec::len),
        Some(0),
        "{page}: controls under 44 px: {small}"
    );
}

/// What shows wider than the phone inside the page: every table wider than its box, and every
/// box whose content scrolls sideways (columns hidden off to the right behind a scroll bar a
/// phone does not show), each as the start of its HTML and its widths.
pub async fn hidden_sideways(browser: &Browser) -> serde_json::Value {
    browser
        .js("const wide = e => e.scrollWidth > e.clientWidth + 1;\
             const tables = Array.from(document.querySelectorAll('table'))\
               .filter(t => t.offsetParent !== null)\
               .filter(t => wide(t)\
                 || t.getBoundingClientRect().width > t.parentElement.clientWidth + 1\
                 || t.getBoundingClientRect().right > window.innerWidth + 1);\
             const boxes = Array.from(document.querySelectorAll('body *'))\
               .filter(e => e.offsetParent !== null && e.clientWidth > 1)\
               .filter(e => !e.matches('input, textarea, select'))\
               .filter(e => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(e).overflowX))\
               .filter(wide);\
             return tables.concat(boxes)\
               .map(e => e.outerHTML.slice(0, 120) + ' ' + e.scrollWidth + '>' + e.clientWidth);")
        .await
}
