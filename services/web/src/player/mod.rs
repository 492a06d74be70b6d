//! The player's phone (issue 31): a player signs in to his event with the PIN on his slip, and
//! his "My event" page shows where he sits now, his results to confirm or dispute, his standing,
//! and (as the event allows) the form to report his table's result and the way to drop out.
//!
//! The pages write only through the public v1 API with the player's own token, so the API
//! decides every permission. Their forms are served as the console's are
//! ([`crate::signed`]): CSRF token, and a form key that becomes the write's `Idempotency-Key`,
//! so that a form the phone sends again once the network is back writes once. The My event page
//! and its forms carry what the page's offline script needs (`data-offline-page`,
//! `data-updated-at`, `data-offline-queue`, `data-offline-waiting`).

mod actions;
mod me;
mod report;
mod sign_in;

use crate::i18n::Lang;
use crate::layout::Extras;
use crate::session::{Session, SignedIn};
use crate::signed::{ConsoleError, Signed, act, page};
use crate::{State, lang_of};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use catan_api::ApiClient;
use chrono::{DateTime, Utc};
use maud::{Markup, html};
use uuid::Uuid;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/events/{id}/sign-in", web::get().to(sign_in::form))
        .route("/events/{id}/sign-in", web::post().to(sign_in::sign_in))
        .route("/events/{id}/me", web::get().to(page(me::page)))
        .route(
            "/events/{id}/me/rounds/{n}/tables/{t}/confirm",
            web::post().to(act(actions::confirm)),
        )
        .route(
            "/events/{id}/me/rounds/{n}/tables/{t}/dispute",
            web::post().to(act(actions::dispute)),
        )
        .route(
            "/events/{id}/me/rounds/{n}/tables/{t}/report",
            web::get().to(page(report::page)),
        )
        .route(
            "/events/{id}/me/rounds/{n}/tables/{t}/report",
            web::post().to(act(report::send)),
        )
        .route(
            "/events/{id}/me/drop",
            web::get().to(page(actions::drop_page)),
        )
        .route("/events/{id}/me/drop", web::post().to(act(actions::drop)));
}

/// A signed-in player on his phone, on a page of his event.
pub struct Phone {
    pub req: HttpRequest,
    pub lang: Lang,
    pub session: Session,
    pub person: SignedIn,
    /// The API with the player's token, reading the session's own writes.
    pub api: ApiClient,
    pub event_id: Uuid,
}

impl Phone {
    /// The signed-in player's id.
    pub fn me(&self) -> Uuid {
        self.person.subject
    }

    /// The path segment parameter `name` as a number.
    pub fn number(&self, name: &str) -> Result<u32, ConsoleError> {
        self.req
            .match_info()
            .get(name)
            .and_then(|v| v.parse().ok())
            .ok_or(ConsoleError::NotFound)
    }

    /// The hidden fields every form of this session carries: its CSRF token and a fresh key.
    pub fn form_fields(&self) -> Markup {
        crate::signed::form_fields(&self.session)
    }

    /// The player's My event page.
    pub fn home(&self) -> String {
        format!("/events/{}/me", self.event_id)
    }
}

/// A page of the player's: its title and body, and whether it is kept for reading offline (the
/// time it was drawn).
pub struct PhonePage {
    pub title: String,
    pub body: Markup,
    pub offline_at: Option<DateTime<Utc>>,
}

impl PhonePage {
    /// A page that is not kept offline.
    pub fn online(title: String, body: Markup) -> PhonePage {
        PhonePage {
            title,
            body,
            offline_at: None,
        }
    }
}

/// The event of the page's path.
fn event_of(req: &HttpRequest) -> Result<Uuid, ConsoleError> {
    req.match_info()
        .get("id")
        .and_then(|v| Uuid::parse_str(v).ok())
        .ok_or(ConsoleError::NotFound)
}

impl Signed for Phone {
    type Shown = PhonePage;

    /// The player of `req`'s session, signed in to the page's event; anyone else signs in first.
    fn of(req: &HttpRequest, state: &web::Data<State>) -> Result<Phone, ConsoleError> {
        let event_id = event_of(req)?;
        let session = Session::of(req, &state.sessions).ok_or(ConsoleError::SignIn)?;
        let person = session
            .signed_in
            .clone()
            .filter(|p| p.plays_in(event_id))
            .ok_or(ConsoleError::SignIn)?;
        let api = state.api_as(req, &session, &person);
        Ok(Phone {
            lang: lang_of(req),
            req: req.clone(),
            session,
            person,
            api,
            event_id,
        })
    }

    fn session(&self) -> &Session {
        &self.session
    }

    fn api(&self) -> &ApiClient {
        &self.api
    }

    fn key_writes(&mut self, key: &str) {
        self.api = self.api.with_idempotency_key(key);
    }

    fn render(
        req: &HttpRequest,
        session: &Session,
        status: StatusCode,
        shown: &PhonePage,
    ) -> HttpResponse {
        let lang = lang_of(req);
        let extras = Extras {
            head: Some(crate::offline::pwa_head()),
            offline_page_at: shown.offline_at,
        };
        let document = crate::layout::page_with(
            lang,
            req,
            &shown.title,
            shown.body.clone(),
            session,
            &extras,
        );
        HttpResponse::build(status)
            .content_type("text/html; charset=utf-8")
            .insert_header(("cache-control", "no-store"))
            .insert_header(("content-language", lang.tag()))
            .body(document.into_string())
    }

    fn sign_in_path(req: &HttpRequest) -> String {
        match event_of(req) {
            Ok(event) => format!("/events/{event}/sign-in"),
            Err(_) => "/".into(),
        }
    }

    fn refusal_shown(
        req: &HttpRequest,
        _session: &Session,
        lang: Lang,
        message: &str,
    ) -> PhonePage {
        let back = event_of(req).map_or_else(|_| "/".into(), |e| format!("/events/{e}/me"));
        PhonePage::online(
            message.to_owned(),
            html! {
                h1 { (message) }
                p { a class="button-link" href=(back) { (lang.words().my_event) } }
            },
        )
    }

    fn forbidden_words(lang: Lang) -> &'static str {
        lang.words().player_refused
    }
}
