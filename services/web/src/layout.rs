//! The frame of every page: `lang`, the navigation, the language switcher (plain links that
//! remember the choice in a cookie) and the style sheet.

use crate::i18n::{LANGS, Lang};
use crate::session::Session;
use actix_web::HttpRequest;
use maud::{DOCTYPE, Markup, html};

/// A whole page titled `title` around `body`, the same for every visitor (public pages are kept
/// as rendered and shared): its navigation offers the staff sign-in.
pub fn page(lang: Lang, req: &HttpRequest, title: &str, body: Markup) -> Markup {
    frame(lang, req, title, body, None)
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
    frame(lang, req, title, body, Some(session))
}

fn frame(
    lang: Lang,
    req: &HttpRequest,
    title: &str,
    body: Markup,
    session: Option<&Session>,
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
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · " (w.site) }
                link rel="stylesheet" href="/static/style.css";
            }
            body {
                header class="site" {
                    nav aria-label=(w.site) {
                        a class="brand" href="/" { (w.site) }
                        a href="/" { (w.home) }
                        a href="/ratings" { (w.ratings) }
                        @if let Some(session) = signed_in {
                            a href="/console" { (w.console) }
                            form class="sign-out" method="post" action="/sign-out" {
                                (crate::console::form_fields(session))
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
                main { (body) }
            }
        }
    }
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
