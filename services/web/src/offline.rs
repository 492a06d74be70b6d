//! The installable web app and the player's pages through a network drop (issue 31): the
//! manifest, the service worker at the site's root, and the scripts that keep the pages marked
//! `data-offline-page` for reading offline and the forms marked `data-offline-queue` until the
//! network is back (`static/offline.js`, `static/offline-store.js`, `static/sw.js`). No build
//! step: the files are served as written.

use crate::i18n::{LANGS, Lang};
use crate::lang_of;
use actix_web::{HttpRequest, HttpResponse, web};
use maud::{Markup, PreEscaped, html};

/// The colour of the site's header, which the installed app's title bar takes.
const THEME_COLOUR: &str = "#7a2e0b";

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/manifest.webmanifest", web::get().to(manifest))
        .route("/sw.js", web::get().to(service_worker))
        .route(
            "/static/offline.js",
            web::get().to(|| script(include_str!("../static/offline.js"))),
        )
        .route(
            "/static/offline-store.js",
            web::get().to(|| script(include_str!("../static/offline-store.js"))),
        )
        .route("/static/icon.svg", web::get().to(icon));
}

/// What a page that works offline adds to its head: the manifest, the icon, the words its
/// script shows (in every language: the script takes the page's, by `<html lang>`) and the
/// scripts.
pub fn pwa_head() -> Markup {
    html! {
        link rel="manifest" href="/manifest.webmanifest";
        meta name="theme-color" content=(THEME_COLOUR);
        link rel="icon" href="/static/icon.svg" type="image/svg+xml";
        script type="application/json" id="offline-words" { (PreEscaped(offline_words())) }
        script src="/static/offline-store.js" defer {}
        script src="/static/offline.js" defer {}
    }
}

/// The script's words, by language tag, as JSON safe inside a `<script>` element.
fn offline_words() -> String {
    let by_lang: serde_json::Map<String, serde_json::Value> = LANGS
        .iter()
        .map(|lang| {
            let w = lang.words();
            let words = serde_json::json!({
                "banner": w.offline_banner,
                "saved": w.offline_saved,
                "waiting_since": w.offline_waiting_since,
                "sent": w.offline_sent,
                "refused": w.offline_refused,
            });
            (lang.tag().to_owned(), words)
        })
        .collect();
    // `<` escaped, no word can end the script element.
    serde_json::Value::Object(by_lang)
        .to_string()
        .replace('<', "\\u003c")
}

/// The web app's manifest, named in the visitor's language.
async fn manifest(req: HttpRequest) -> HttpResponse {
    let lang = lang_of(&req);
    HttpResponse::Ok()
        .content_type("application/manifest+json")
        .insert_header(("cache-control", "no-cache"))
        .insert_header(("content-language", lang.tag()))
        .insert_header(("vary", "cookie, accept-language"))
        .body(manifest_for(lang).to_string())
}

fn manifest_for(lang: Lang) -> serde_json::Value {
    let w = lang.words();
    serde_json::json!({
        "id": "/",
        "name": w.site,
        "short_name": w.site,
        "lang": lang.tag(),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": THEME_COLOUR,
        "icons": [
            {"src": "/static/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"}
        ],
    })
}

/// The service worker, at the root so that its scope is the whole site; never taken from a
/// cache without asking, so that a new version reaches the phones at their next visit.
async fn service_worker() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header(("cache-control", "no-cache"))
        .body(include_str!("../static/sw.js"))
}

async fn script(body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header(("cache-control", "no-cache"))
        .body(body)
}

async fn icon() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("image/svg+xml")
        .insert_header(("cache-control", "public, max-age=86400"))
        .body(include_str!("../static/icon.svg"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::{TestRequest, call_service, init_service, read_body_json};

    #[test]
    fn the_words_block_has_every_language_and_cannot_end_its_script() {
        let json = offline_words();
        assert!(!json.contains('<'));
        let words: serde_json::Value = serde_json::from_str(&json).unwrap();
        for lang in LANGS {
            let banner = words[lang.tag()]["banner"].as_str().unwrap();
            assert!(banner.contains("{time}"), "{banner}");
            assert!(
                words[lang.tag()]["waiting_since"]
                    .as_str()
                    .unwrap()
                    .contains("{time}")
            );
        }
        assert_ne!(words["en"]["banner"], words["es"]["banner"]);
    }

    #[actix_web::test]
    async fn the_manifest_and_the_service_worker_are_served_as_browsers_need_them() {
        let app = init_service(actix_web::App::new().configure(routes)).await;
        let answer = call_service(
            &app,
            TestRequest::get()
                .uri("/manifest.webmanifest")
                .insert_header(("accept-language", "es"))
                .to_request(),
        )
        .await;
        assert_eq!(
            answer.headers().get("content-type").unwrap(),
            "application/manifest+json"
        );
        let manifest: serde_json::Value = read_body_json(answer).await;
        assert_eq!(manifest["name"], "Liga de Catan");
        assert_eq!(manifest["display"], "standalone");
        assert_eq!(manifest["scope"], "/");
        let worker = call_service(&app, TestRequest::get().uri("/sw.js").to_request()).await;
        assert_eq!(worker.headers().get("cache-control").unwrap(), "no-cache");
        assert!(
            worker
                .headers()
                .get("content-type")
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("text/javascript")
        );
        for path in [
            "/static/offline.js",
            "/static/offline-store.js",
            "/static/icon.svg",
        ] {
            let answer = call_service(&app, TestRequest::get().uri(path).to_request()).await;
            assert!(answer.status().is_success(), "{path}");
        }
    }
}
