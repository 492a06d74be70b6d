//! What every player's page shows in each language at 360 px: the page fits the phone, axe-core
//! finds nothing serious, and My event carries what its offline script needs.

use catan_e2e::browser::Browser;
use catan_e2e::console::assert_accessible;
use catan_e2e::phone::{assert_fits_phone, slip_path};
use uuid::Uuid;

/// The sign-in and My event of `player` in English, Spanish and Chinese: each fits a phone and
/// passes axe-core; My event says when it was drawn, in the page's language, keeps a place for
/// what waits to be sent, and each of its forms (it has some) keeps its CSRF token and key.
pub async fn each_language_fits(browser: &Browser, base: &str, event: Uuid, player: Uuid) {
    let me = format!("/events/{event}/me");
    for (tag, updated, waiting) in [
        ("en", "Updated", "Waiting to be sent"),
        ("es", "Actualizado", "Pendiente de envío"),
        ("zh", "更新于", "等待发送"),
    ] {
        browser.go(&format!("{base}/lang?to={tag}&back={me}")).await;
        let drawn = browser
            .js("return document.querySelector('main[data-offline-page]').dataset.updatedAt;")
            .await;
        let drawn = chrono::DateTime::parse_from_rfc3339(drawn.as_str().unwrap()).unwrap();
        let age = chrono::Utc::now().signed_duration_since(drawn);
        assert!(age.num_seconds() < 120, "{tag}: drawn at {drawn}");
        let shown = browser.texts(".updated").await;
        assert!(
            shown[0].starts_with(updated) && shown[0].contains(&drawn.format("%H:%M").to_string()),
            "{tag}: {shown:?}"
        );
        assert_eq!(
            browser
                .texts("section[data-offline-waiting][hidden] h2")
                .await,
            vec![waiting]
        );
        let forms = browser
            .js(
                "const forms = Array.from(document.querySelectorAll('form[data-offline-queue]'));\
                 return [forms.length, forms.filter(f => \
                   !f.querySelector('input[type=hidden][name=csrf]') || \
                   !f.querySelector('input[type=hidden][name=form_key]')).length];",
            )
            .await;
        assert!(forms[0].as_u64() > Some(0), "{tag}: My event's forms");
        assert_eq!(
            forms[1].as_u64(),
            Some(0),
            "{tag}: every queued form is keyed"
        );
        assert_fits_phone(browser, &format!("{tag} My event")).await;
        assert_accessible(browser, &format!("{tag} My event")).await;
        browser
            .go(&format!("{base}{}", slip_path(event, player)))
            .await;
        assert_fits_phone(browser, &format!("{tag} sign-in")).await;
        assert_accessible(browser, &format!("{tag} sign-in")).await;
    }
    browser.go(&format!("{base}/lang?to=en&back={me}")).await;
}
