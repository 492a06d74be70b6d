//! The console as a person uses it in the browser tests: signing in, making keys, creating an
//! event, registering players and filling a results sheet through its forms, and axe-core's
//! verdict on each page.

use crate::browser::Browser;
use uuid::Uuid;

/// The page's serious and critical accessibility violations, none expected.
pub async fn assert_accessible(browser: &Browser, page: &str) {
    let violations = browser.accessibility_violations().await;
    assert!(
        violations.is_empty(),
        "{page}: axe-core finds {violations:#?}"
    );
    let refused = browser.csp_violations().await;
    assert!(
        refused.is_empty(),
        "{page}: the content security policy refused {refused:#?}"
    );
}

/// The path of the page the browser shows.
pub async fn path_of(browser: &Browser) -> String {
    let url = browser.js("return location.pathname;").await;
    url.as_str().unwrap().to_owned()
}

/// Makes a key of `role` on the keys page (for the first region or event offered); answers it as
/// the page shows it, once, with its QR code.
pub async fn make_key(browser: &Browser, base: &str, role: &str, name: &str) -> String {
    browser.go(&format!("{base}/console/keys")).await;
    browser.type_into("#key-name", name).await;
    browser
        .click(&format!("#key-role option[value={role}]"))
        .await;
    if role == "organiser" {
        browser.click("#key-region option:nth-child(2)").await;
    }
    browser
        .click_to_next_page("#new-key ~ form button[type=submit]")
        .await;
    assert_eq!(browser.texts("figure.qr svg").await.len(), 1, "its QR code");
    assert_accessible(browser, "a new key").await;
    let key = browser.texts("code.new-key").await.remove(0);
    browser.go(&format!("{base}/console/keys")).await;
    assert!(browser.texts("code.new-key").await.is_empty(), "shown once");
    key
}

/// Signs in through the form with `key`, from the console's address.
pub async fn sign_in(browser: &Browser, base: &str, key: &str) {
    browser.go(&format!("{base}/console")).await;
    assert_eq!(
        path_of(browser).await,
        "/sign-in",
        "the console asks to sign in first"
    );
    assert_accessible(browser, "sign-in").await;
    browser.type_into("#api_key", key).await;
    browser
        .click_to_next_page("form.console-form button[type=submit]")
        .await;
    assert_eq!(path_of(browser).await, "/console");
}

/// Creates the event `name` (of 3 rounds, at Hall B) in `region` through the console's form, a
/// partner event if `partner`, with each of `choices` (a select's id, the option's value)
/// chosen; answers its console path and its id.
pub async fn create_event(
    browser: &Browser,
    region: Uuid,
    name: &str,
    partner: bool,
    choices: &[(&str, &str)],
) -> (String, Uuid) {
    browser.type_into("#name", name).await;
    if partner {
        browser.click("input[name=format][value=partner]").await;
    }
    browser
        .click(&format!("#region_id option[value='{region}']"))
        .await;
    browser.type_into("#rounds", "3").await;
    browser.type_into("#venue", "Hall B").await;
    for (select, value) in choices {
        browser
            .click(&format!("#{select} option[value='{value}']"))
            .await;
    }
    browser
        .click_to_next_page("#new-event ~ form button[type=submit]")
        .await;
    let event_path = path_of(browser).await;
    let refused = browser.texts("[role=alert]").await;
    assert!(
        event_path.starts_with("/console/events/"),
        "{event_path}: {refused:?}"
    );
    let event_id = Uuid::parse_str(event_path.trim_start_matches("/console/events/")).unwrap();
    (event_path, event_id)
}

/// Registers and enters the names of a CSV file chosen in the form (read into its box by the
/// page's script, as a person sees it before sending).
pub async fn register_file(browser: &Browser, csv: &str) {
    let file = std::env::temp_dir().join(format!("catan-names-{}.csv", Uuid::new_v4()));
    std::fs::write(&file, csv).unwrap();
    browser
        .type_into("#names-file", file.to_str().unwrap())
        .await;
    crate::eventually(10, "the file read into the box", async || {
        let read = browser
            .js("return document.querySelector('#names').value;")
            .await;
        read.as_str()
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    })
    .await;
    browser
        .click_to_next_page("form[action$='/players'] button[type=submit]")
        .await;
    let _ = std::fs::remove_file(file);
}

/// Registers and enters `names` (one a line, or a CSV) through the event's form.
pub async fn register(browser: &Browser, names: &str) {
    browser.type_into("#names", names).await;
    browser
        .click_to_next_page("form[action$='/players'] button[type=submit]")
        .await;
}

/// What the console's page says the last action did ("Result recorded for table 3").
pub async fn said(browser: &Browser) -> Vec<String> {
    browser.texts("p[role=status][data-said]").await
}

/// Fills the open result form: the first seat wins with `winner_cities` cities and 2
/// settlements (10 VP with 4 cities), the others lose with distinct totals.
pub async fn fill_sheet(browser: &Browser, winner_cities: u32) {
    let seats = browser.texts("tr[data-seat]").await.len();
    let lines: Vec<(u32, u32)> = (0..seats)
        .map(|i| match i {
            0 => (2, winner_cities),
            1 => (3, 1),
            2 => (2, 1),
            _ => (2, 0),
        })
        .collect();
    type_sheet(browser, &lines).await;
}

/// Types each seat's settlements and cities into the open result form, in seat order, and
/// picks the first seat as the winner.
pub async fn type_sheet(browser: &Browser, lines: &[(u32, u32)]) {
    for (i, (settlements, cities)) in lines.iter().enumerate() {
        for (field, value) in [("settlements", settlements), ("cities", cities)] {
            let css = format!("input[name={field}{i}]");
            browser
                .js(&format!("document.querySelector('{css}').value = '';"))
                .await;
            browser.type_into(&css, &value.to_string()).await;
        }
    }
    browser.click("#winner option:nth-child(2)").await;
}

/// On an open results sheet, the fourth seat's settlements retyped as 3 and the sheet sent: the
/// correction the tests make to a recorded result.
pub async fn correct_fourth_seats_settlements(browser: &Browser) {
    browser
        .js("document.querySelector('input[name=settlements3]').value = '';")
        .await;
    browser.type_into("input[name=settlements3]", "3").await;
    browser
        .click_to_next_page("form[data-sheet] button[type=submit]")
        .await;
}
