//! The frame of every page: `lang`, the navigation, the language switcher (plain links that
//! remember the choice in a cookie) and the style sheet.

use crate::i18n::{LANGS, Lang};
use crate::session::{Session, SignedIn};
use actix_web::HttpRequest;
use chrono::{DateTime, Utc};
use maud::{DOCTYPE, Markup, html};

/// What a page adds to the frame: in its head, and on its `<main>`.
#[derive(Default)]
pub struct Extras {
    /// More of the head (the installable web app's links and scripts).
    pub head: Option<Markup>,
    /// A page kept for reading offline, drawn at this time: its `<main>` says so
    /// (`data-offline-page`, `data-updated-at`) for the page's script.
    pub offline_page_at: Option<DateTime<Utc>>,
}

/// A whole page titled `title` around `body`, the same for every visitor (public pages are kept
/// as rendered and shared): its navigation offers the staff sign-in.
pub fn page(lang: Lang, req: &HttpRequest, title: &str, body: Markup) -> Markup {
    frame(lang, req, title, body, None, &Extras::default())
}

/// A page for the visitor of `session`: once signed in, its navigation leads to the console and
/// signs out.
pub fn page_for(
    lang: Lang,
    req: &HttpRequest,
    title: &str,
    body: Markup,
    session: &Session,
) -> Markup {
    frame(lang, req, title, body, Some(session), &Extras::default())
}

/// A page for the visitor of `session`, with `extras`.
pub fn page_with(
    lang: Lang,
    req: &HttpRequest,
    title: &str,
    body: Markup,
    session: &Session,
    extras: &Extras,
) -> Markup {
    frame(lang, req, title, body, Some(session), extras)
}

fn frame(
    lang: Lang,
    req: &HttpRequest,
    title: &str,
    body: Markup,
    session: Option<&Session>,
    extras: &Extras,
) -> Markup {
    let signed_in = session.filter(|s| s.signed_in.is_some());
    let w = lang.words();
    let here = req
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    html! {
        (DOCTYPE)
        html lang=(lang.tag()) {
            (head(lang, title, extras))
            body {
                header class="site" {
                    nav aria-label=(w.site) {
                        a class="brand" href="/" { (w.site) }
                        a href="/" { (w.home) }
                        a href="/ratings" { (w.ratings) }
                        @if let Some(session) = signed_in {
                            @match session.signed_in.as_ref().and_then(SignedIn::player_event) {
                                Some(event) => a href=(format!("/events/{event}/me")) { (w.my_event) },
                                None => a href="/console" { (w.console) },
                            }
                            form class="sign-out" method="post" action="/sign-out" {
                                (crate::signed::form_fields(session))
                                button type="submit" { (w.sign_out) }
                            }
                        } @else {
                            a href="/sign-in" { (w.sign_in) }
                        }
                    }
                    nav class="langs" aria-label=(w.language) {
                        @for other in LANGS {
                            @if other == lang {
                                span aria-current="true" lang=(other.tag()) { (other.own_name()) }
                            } @else {
                                a lang=(other.tag()) hreflang=(other.tag())
                                    href=(format!("/lang?to={}&back={}", other.tag(), encode(&here))) {
                                    (other.own_name())
                                }
                            }
                        }
                    }
                }
                @if let Some(at) = extras.offline_page_at {
                    main data-offline-page
                        data-updated-at=(at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)) {
                        (body)
                    }
                } @else {
                    main { (body) }
                }
            }
        }
    }
}

/// The head of every page: its title, the viewport for phones, the style sheet and what the
/// page adds.
fn head(lang: Lang, title: &str, extras: &Extras) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            title { (title) " · " (lang.words().site) }
            link rel="stylesheet" href="/static/style.css";
            @if let Some(head) = &extras.head { (head) }
        }
    }
}

/// A page without the site's navigation nor language switcher, for a screen the room only
/// looks at (the venue screen): the same head, `body` in a `<main>` of a body of class
/// `class`.
pub fn bare(lang: Lang, title: &str, class: &str, body: Markup, extras: &Extras) -> Markup {
    html! {
        (DOCTYPE)
        html lang=(lang.tag()) {
            (head(lang, title, extras))
            body class=(class) {
                main { (body) }
            }
        }
    }
}

/// A person's, a team's, an event's or a place's name as a page shows it: isolated from the
/// text around it (`<bdi>`), so that a name in a right-to-left script never reorders the
/// figures beside it ("فاطمة الزهراء: 5 VP" stays in that order).
pub fn name(text: &str) -> Markup {
    html! { bdi { (text) } }
}

/// `text` percent-encoded for a query value.
pub fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
