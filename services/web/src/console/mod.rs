//! The organisers' and directors' console (issue 30): pages where staff run an event, signed in
//! with their API key. The console writes only through the public v1 API with the signed-in
//! person's token: it has no privilege of its own, so the API decides every permission, and a
//! page only leaves out what its visitor may not do.
//!
//! Every page is a module; every form a typed struct with one mapping to its API call. A form
//! carries its session's CSRF token and a key made when it was drawn, which becomes the call's
//! `Idempotency-Key`: sent twice, it writes once. After a write the page it leads to waits for
//! that write (the session keeps the `Catan-Position`).

mod audit;
mod clock;
mod duplicates;
mod entries;
mod event;
mod events;
mod keep_apart;
mod keys;
mod pins;
mod register;
pub(crate) mod round;
mod said;
mod seasons;
pub(crate) mod sheet;
mod sign_in;

use crate::i18n::Lang;
use crate::session::{Session, SignedIn, role_word};
pub use crate::signed::{ConsoleError, Done, Shown, Signed, act, checked_form, form_fields, page};
use crate::{State, lang_of};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use catan_api::{ApiClient, ClientError, FieldError};
use maud::{Markup, html};
pub use said::{Said, go_saying};
use uuid::Uuid;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/sign-in", web::get().to(sign_in::form))
        .route("/sign-in", web::post().to(sign_in::sign_in))
        .route("/sign-out", web::post().to(sign_in::sign_out))
        .route("/console", web::get().to(page(events::list)))
        .route("/console/events", web::post().to(act(events::create)))
        .route(
            "/console/regions",
            web::post().to(act(events::create_region)),
        )
        .route("/console/keys", web::get().to(page(keys::page)))
        .route("/console/keys", web::post().to(act(keys::create)))
        .route(
            "/console/keys/{key}/revoke",
            web::post().to(act(keys::revoke)),
        )
        .route("/console/seasons", web::get().to(page(seasons::page)))
        .route("/console/seasons", web::post().to(act(seasons::create)))
        .route("/console/seasons/join", web::post().to(act(seasons::join)))
        .route("/console/duplicates", web::get().to(page(duplicates::page)))
        .route(
            "/console/duplicates/merge",
            web::post().to(act(duplicates::merge)),
        )
        .route("/console/events/{id}", web::get().to(page(event::page)))
        .route(
            "/console/events/{id}/players",
            web::post().to(act(register::register)),
        )
        .route(
            "/console/events/{id}/entries",
            web::post().to(act(event::enter)),
        )
        .route(
            "/console/events/{id}/keep-apart",
            web::post().to(act(keep_apart::change)),
        )
        .route(
            "/console/events/{id}/edit",
            web::post().to(act(event::edit)),
        )
        .route(
            "/console/events/{id}/entries/{entry}/drop",
            web::post().to(act(entries::drop)),
        )
        .route(
            "/console/events/{id}/entries/{entry}/pin",
            web::post().to(act(entries::reissue_pin)),
        )
        .route(
            "/console/events/{id}/entries/{entry}/reinstate",
            web::post().to(act(entries::reinstate)),
        )
        .route(
            "/console/events/{id}/entries/{entry}/rename",
            web::post().to(act(entries::rename)),
        )
        .route(
            "/console/events/{id}/pins",
            web::get().to(page(pins::confirm)),
        )
        .route(
            "/console/events/{id}/pins",
            web::post().to(act(pins::reissue_all)),
        )
        .route(
            "/console/events/{id}/audit",
            web::get().to(page(audit::page)),
        )
        .route(
            "/console/events/{id}/rounds",
            web::post().to(act(event::draw)),
        )
        .route(
            "/console/events/{id}/rounds/{n}/clock",
            web::post().to(act(clock::change)),
        )
        .route(
            "/console/events/{id}/rounds/{n}/redraw",
            web::post().to(act(round::redraw)),
        )
        .route(
            "/console/events/{id}/rounds/{n}/swap",
            web::post().to(act(round::swap)),
        )
        .route(
            "/console/events/{id}/rounds/{n}/tables/{t}/confirm",
            web::post().to(act(sheet::confirm)),
        )
        .route(
            "/console/events/{id}/rounds/{n}/tables/{t}/void",
            web::post().to(act(sheet::void)),
        )
        .route(
            "/console/events/{id}/rounds/{n}",
            web::get().to(page(round::page)),
        )
        .route(
            "/console/events/{id}/rounds/{n}/tables/{t}",
            web::get().to(page(sheet::page)),
        )
        .route(
            "/console/events/{id}/rounds/{n}/tables/{t}",
            web::post().to(act(sheet::send)),
        );
}

/// What a console page is given: the signed-in person and the API as that person.
pub struct Desk {
    pub req: HttpRequest,
    pub lang: Lang,
    pub state: web::Data<State>,
    pub session: Session,
    pub person: SignedIn,
    /// The API with the person's token, reading the session's own writes.
    pub api: ApiClient,
}

impl Desk {
    /// The path segment parameter `name` as an id.
    pub fn id(&self, name: &str) -> Result<Uuid, ConsoleError> {
        self.req
            .match_info()
            .get(name)
            .and_then(|v| Uuid::parse_str(v).ok())
            .ok_or(ConsoleError::NotFound)
    }

    /// The path segment parameter `name` as a number.
    pub fn number(&self, name: &str) -> Result<u32, ConsoleError> {
        self.req
            .match_info()
            .get(name)
            .and_then(|v| v.parse().ok())
            .ok_or(ConsoleError::NotFound)
    }

    /// A query parameter, if given and not blank.
    pub fn param(&self, name: &str) -> Option<String> {
        web::Query::<std::collections::HashMap<String, String>>::from_query(self.req.query_string())
            .ok()
            .and_then(|q| q.get(name).map(|v| v.trim().to_owned()))
            .filter(|v| !v.is_empty())
    }

    /// The public reads a page shows beside what it is about (an event, its entries, a drawn
    /// round), kept for [`crate::CACHE_TTL`] and shared by every session: each session's own
    /// writes are in the key (its position), so a page it is led to after a write reads anew.
    pub async fn kept<T: Send + Sync + 'static>(
        &self,
        what: String,
        read: impl Future<Output = catan_api::ClientResult<T>>,
    ) -> catan_api::ClientResult<std::sync::Arc<T>> {
        let position = self.session.position.as_deref().unwrap_or_default();
        let key = format!("console {what} {position}");
        self.state.cached(key, read).await
    }

    /// Refuses the page to a person who does not run `event` (as director or scorer, or as
    /// the organiser of its region): a director's session sees only its events.
    pub fn require_event(&self, event: &catan_api::Event) -> Result<(), ConsoleError> {
        use catan_api::Role;
        let roles = [Role::Director, Role::Scorer, Role::Organiser];
        if self.person.may_run(event.id, event.region_id, &roles) {
            Ok(())
        } else {
            Err(ConsoleError::Forbidden)
        }
    }

    /// The hidden fields every form of this session carries: its CSRF token and a fresh key.
    pub fn form_fields(&self) -> Markup {
        form_fields(&self.session)
    }
}

impl Signed for Desk {
    type Shown = Shown;

    /// The signed-in staff of `req`, with the API as that person; a player is refused the
    /// console (it is for staff: his PIN opens his own page only).
    fn of(req: &HttpRequest, state: &web::Data<State>) -> Result<Desk, ConsoleError> {
        let session = Session::of(req, &state.sessions).ok_or(ConsoleError::SignIn)?;
        let person = session.signed_in.clone().ok_or(ConsoleError::SignIn)?;
        if !person.is_staff() {
            return Err(ConsoleError::StaffOnly);
        }
        let api = state.api_as(req, &session, &person);
        Ok(Desk {
            lang: lang_of(req),
            req: req.clone(),
            state: state.clone(),
            session,
            person,
            api,
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
        shown: &Shown,
    ) -> HttpResponse {
        render(req, session, status, shown)
    }

    /// The staff sign-in, then back to the page (a form's action: to the console).
    fn sign_in_path(req: &HttpRequest) -> String {
        let here = req
            .uri()
            .path_and_query()
            .map_or("/console", |p| p.as_str());
        let next = if req.method() == actix_web::http::Method::GET {
            here
        } else {
            "/console"
        };
        format!("/sign-in?next={}", crate::layout::encode(next))
    }

    /// The message, and the way back: to the console, or a player to his own page.
    fn refusal_shown(_req: &HttpRequest, session: &Session, lang: Lang, message: &str) -> Shown {
        let w = lang.words();
        let player_event = session.signed_in.as_ref().and_then(SignedIn::player_event);
        Shown {
            title: message.to_owned(),
            body: html! {
                h1 { (message) }
                @match player_event {
                    Some(event) => p { a href=(format!("/events/{event}/me")) { (w.my_event) } },
                    None => p { a href="/console" { (w.console) } },
                }
            },
        }
    }

    fn forbidden_words(lang: Lang) -> &'static str {
        lang.words().not_yours
    }
}

/// A console page drawn in its frame, with what the action that led to it did.
fn render(req: &HttpRequest, session: &Session, status: StatusCode, shown: &Shown) -> HttpResponse {
    let lang = lang_of(req);
    let said = Said::of_query(req.query_string());
    let body = html! {
        @if let Some(said) = said {
            p class="done flash" role="status" data-said { (said.words(lang)) }
        }
        (shown.body)
        script src="/static/console.js" defer {}
    };
    let document = crate::layout::page_for(lang, req, &shown.title, body, session);
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header(("cache-control", "no-store"))
        .insert_header(("content-language", lang.tag()))
        .body(document.into_string())
}

/// The answer to a console page or action that could not be served, as a readable page.
fn refusal(req: &HttpRequest, state: &web::Data<State>, error: &ConsoleError) -> HttpResponse {
    crate::signed::refused::<Desk>(req, state, error)
}

/// The field errors of a refusal, when the API named the fields (`422`); else the refusal.
pub fn field_errors(error: ClientError) -> Result<Vec<FieldError>, ConsoleError> {
    match error {
        ClientError::Problem { problem } if problem.status == 422 || problem.status == 409 => {
            if problem.errors.is_empty() {
                Ok(vec![FieldError {
                    field: String::new(),
                    code: catan_api::ErrorCode::NotAllowed,
                    message: problem.detail,
                }])
            } else {
                Ok(problem.errors)
            }
        }
        other => Err(other.into()),
    }
}

/// The messages of `errors` about `field` (or, with `field` empty, about none of the form's
/// fields), announced to screen readers as they appear.
pub fn errors_for(lang: Lang, errors: &[FieldError], field: &str) -> Markup {
    let messages: Vec<String> = errors
        .iter()
        .filter(|e| e.field == field)
        .map(|e| crate::i18n::rule_message(lang, e))
        .collect();
    html! {
        @if !messages.is_empty() {
            div class="field-errors" role="alert" {
                ul { @for message in &messages { li { (message) } } }
            }
        }
    }
}

/// Every message of `errors`, whatever its field: for a page whose forms are many small ones.
pub fn all_errors(lang: Lang, errors: &[FieldError]) -> Markup {
    html! {
        @if !errors.is_empty() {
            div class="field-errors" role="alert" {
                ul { @for e in errors { li { (crate::i18n::rule_message(lang, e)) } } }
            }
        }
    }
}

/// The line at the top of every console page: who is signed in.
pub fn signed_in_as(lang: Lang, person: &SignedIn) -> Markup {
    html! {
        p class="signed-in" { (lang.words().signed_in_as) " " strong { (role_word(lang, person.role)) } }
    }
}
