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
mod entries;
mod event;
mod events;
mod keep_apart;
mod keys;
mod register;
mod round;
mod seasons;
mod sheet;
mod sign_in;

use crate::i18n::Lang;
use crate::session::{CSRF_FIELD, Session, SignedIn, role_word};
use crate::{State, lang_of};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use catan_api::{ApiClient, ClientError, FieldError};
use maud::{Markup, html};
use serde::de::DeserializeOwned;
use std::pin::Pin;
use uuid::Uuid;

/// The form field that carries the key a form was drawn with (its writes' `Idempotency-Key`).
pub const FORM_KEY_FIELD: &str = "form_key";

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
        .route("/console/seasons", web::get().to(page(seasons::page)))
        .route("/console/seasons", web::post().to(act(seasons::create)))
        .route("/console/seasons/join", web::post().to(act(seasons::join)))
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
            "/console/events/{id}/rounds/{n}/tables/{t}/confirm",
            web::post().to(act(sheet::confirm)),
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

/// The hidden fields of a form drawn for `session`.
pub fn form_fields(session: &Session) -> Markup {
    html! {
        input type="hidden" name=(CSRF_FIELD) value=(session.csrf);
        input type="hidden" name=(FORM_KEY_FIELD) value=(Uuid::new_v4());
    }
}

/// What a page shows: its title and body.
pub struct Shown {
    pub title: String,
    pub body: Markup,
}

/// What an action leads to.
pub enum Done {
    /// The page to show next (Post/Redirect/Get).
    GoTo(String),
    /// A page drawn in answer: a form again with what was wrong (`422`), or something shown
    /// once, such as new PINs (`200`).
    Show(StatusCode, Shown),
}

/// Why a console page or action could not be served.
#[derive(Debug)]
pub enum ConsoleError {
    /// Nobody (or a player) is signed in: to the sign-in, then back.
    SignIn,
    /// The signed-in person may not use this page or action.
    Forbidden,
    /// The form does not carry this session's CSRF token.
    StaleForm,
    NotFound,
    /// The API refused or could not be reached.
    Api(ClientError),
}

impl From<ClientError> for ConsoleError {
    fn from(e: ClientError) -> Self {
        match e.status() {
            Some(401) => ConsoleError::SignIn,
            Some(403) => ConsoleError::Forbidden,
            Some(404) => ConsoleError::NotFound,
            _ => ConsoleError::Api(e),
        }
    }
}

type Handled = Pin<Box<dyn Future<Output = HttpResponse>>>;

/// The signed-in person of `req`, with the API as that person; else why not.
fn desk_of(req: &HttpRequest, state: &web::Data<State>) -> Result<Desk, ConsoleError> {
    let session = Session::of(req, &state.sessions).ok_or(ConsoleError::SignIn)?;
    let person = session
        .signed_in
        .clone()
        .filter(SignedIn::is_staff)
        .ok_or(ConsoleError::SignIn)?;
    let api = state
        .api_for(req)
        .with_token(person.token.clone())
        .with_position(session.position());
    Ok(Desk {
        lang: lang_of(req),
        req: req.clone(),
        state: state.clone(),
        session,
        person,
        api,
    })
}

/// A console page as an actix handler.
fn page<F, Fut>(handler: F) -> impl Fn(HttpRequest, web::Data<State>) -> Handled + Clone + 'static
where
    F: Fn(Desk) -> Fut + Clone + 'static,
    Fut: Future<Output = Result<Shown, ConsoleError>> + 'static,
{
    move |req: HttpRequest, state: web::Data<State>| {
        let handler = handler.clone();
        Box::pin(async move {
            let desk = match desk_of(&req, &state) {
                Ok(desk) => desk,
                Err(e) => return refusal(&req, &state, &e),
            };
            let session = desk.session.clone();
            match handler(desk).await {
                Ok(shown) => render(&req, &session, StatusCode::OK, &shown),
                Err(e) => refusal(&req, &state, &e),
            }
        })
    }
}

/// A console form's action as an actix handler: the CSRF token checked, the form read into `F`,
/// the API keyed by the form's key; the session's position kept after the write.
fn act<F, H, Fut>(
    handler: H,
) -> impl Fn(HttpRequest, web::Data<State>, web::Bytes) -> Handled + Clone + 'static
where
    F: DeserializeOwned + 'static,
    H: Fn(Desk, F) -> Fut + Clone + 'static,
    Fut: Future<Output = Result<Done, ConsoleError>> + 'static,
{
    move |req: HttpRequest, state: web::Data<State>, body: web::Bytes| {
        let handler = handler.clone();
        Box::pin(async move {
            let outcome = async {
                let mut desk = desk_of(&req, &state)?;
                let form_key = checked_form(&desk.session, &body)?;
                let form: F = serde_urlencoded::from_bytes(&body).map_err(|e| {
                    tracing::debug!(error = %e, "a console form did not read");
                    ConsoleError::NotFound
                })?;
                desk.api = desk.api.with_idempotency_key(&form_key);
                let api = desk.api.clone();
                let mut session = desk.session.clone();
                let done = handler(desk, form).await?;
                let position = api.position();
                if !position.is_empty() {
                    session.position = Some(position.to_string());
                }
                Ok::<_, ConsoleError>((done, session))
            }
            .await;
            match outcome {
                Ok((Done::GoTo(to), session)) => HttpResponse::SeeOther()
                    .insert_header(("location", to))
                    .insert_header(("set-cookie", session.cookie(&state.sessions, &req)))
                    .finish(),
                Ok((Done::Show(status, shown), session)) => {
                    let mut response = render(&req, &session, status, &shown);
                    if let Ok(cookie) = session.cookie(&state.sessions, &req).parse() {
                        response
                            .headers_mut()
                            .append(actix_web::http::header::SET_COOKIE, cookie);
                    }
                    response
                }
                Err(e) => refusal(&req, &state, &e),
            }
        })
    }
}

/// The form's key, once its CSRF token is found to be `session`'s; else the form is refused.
pub fn checked_form(session: &Session, body: &[u8]) -> Result<String, ConsoleError> {
    let fields: Vec<(String, String)> =
        serde_urlencoded::from_bytes(body).map_err(|_| ConsoleError::StaleForm)?;
    let field = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    if !field(CSRF_FIELD).is_some_and(|sent| session.csrf_matches(sent)) {
        return Err(ConsoleError::StaleForm);
    }
    // A key drawn by this web app is a UUID; anything else gets a fresh one.
    Ok(field(FORM_KEY_FIELD)
        .and_then(|key| Uuid::parse_str(key).ok())
        .unwrap_or_else(Uuid::new_v4)
        .to_string())
}

/// A console page drawn in its frame.
fn render(req: &HttpRequest, session: &Session, status: StatusCode, shown: &Shown) -> HttpResponse {
    let lang = lang_of(req);
    let body = html! {
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

/// The answer to a page or action that could not be served, as a readable page.
fn refusal(req: &HttpRequest, state: &web::Data<State>, error: &ConsoleError) -> HttpResponse {
    let lang = lang_of(req);
    let w = lang.words();
    let (status, message) = match error {
        ConsoleError::SignIn => {
            let here = req
                .uri()
                .path_and_query()
                .map_or("/console", |p| p.as_str());
            // Back to the page after signing in; a form's action, to the console.
            let next = if req.method() == actix_web::http::Method::GET {
                here
            } else {
                "/console"
            };
            return HttpResponse::SeeOther()
                .insert_header((
                    "location",
                    format!("/sign-in?next={}", crate::layout::encode(next)),
                ))
                .finish();
        }
        ConsoleError::Forbidden => (StatusCode::FORBIDDEN, w.not_yours),
        ConsoleError::StaleForm => (StatusCode::FORBIDDEN, w.stale_form),
        ConsoleError::NotFound => (StatusCode::NOT_FOUND, w.not_found),
        ConsoleError::Api(cause) => {
            tracing::warn!(%cause, "a console page could not use the API");
            (StatusCode::SERVICE_UNAVAILABLE, w.unavailable)
        }
    };
    let session = Session::of(req, &state.sessions).unwrap_or_else(Session::fresh);
    let shown = Shown {
        title: message.to_owned(),
        body: html! {
            h1 { (message) }
            p { a href="/console" { (w.console) } }
        },
    };
    render(req, &session, status, &shown)
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
