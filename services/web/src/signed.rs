//! Pages and forms of signed-in visitors: staff at the console ([`crate::console::Desk`]) and
//! players on their phones ([`crate::player::Phone`]). Both are served alike: a page needs its
//! visitor signed in as its kind (else to that kind's sign-in); a form carries its session's CSRF
//! token and a key made when it was drawn, which becomes its write's `Idempotency-Key`, so that a
//! form sent twice (a double click, a phone sending it again once the network is back) writes
//! once. After a write the page it leads to waits for that write (the session keeps the
//! `Catan-Position`).

use crate::State;
use crate::i18n::Lang;
use crate::session::{CSRF_FIELD, Session};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use catan_api::{ApiClient, ClientError};
use maud::{Markup, html};
use serde::de::DeserializeOwned;
use std::pin::Pin;
use uuid::Uuid;

/// The form field that carries the key a form was drawn with (its writes' `Idempotency-Key`).
pub const FORM_KEY_FIELD: &str = "form_key";

/// The hidden fields of a form drawn for `session`: its CSRF token and a fresh key.
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
pub enum Done<S = Shown> {
    /// The page to show next (Post/Redirect/Get).
    GoTo(String),
    /// A page drawn in answer: a form again with what was wrong (`422`), or something shown
    /// once, such as new PINs (`200`).
    Show(StatusCode, S),
}

/// Why a page or action could not be served.
#[derive(Debug)]
pub enum ConsoleError {
    /// Nobody is signed in (or not as this page's kind of visitor): to the sign-in, then back.
    SignIn,
    /// The signed-in person may not use this page or action.
    Forbidden,
    /// A player's session on a staff page.
    StaffOnly,
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

/// A kind of signed-in visitor, as [`page`] and [`act`] serve him.
pub trait Signed: Sized + 'static {
    /// What his pages show.
    type Shown: 'static;

    /// The visitor of `req`, signed in as this kind; else why not.
    fn of(req: &HttpRequest, state: &web::Data<State>) -> Result<Self, ConsoleError>;

    fn session(&self) -> &Session;

    /// The API as this visitor, reading his session's own writes.
    fn api(&self) -> &ApiClient;

    /// His writes from now on keyed by the form's `key`.
    fn key_writes(&mut self, key: &str);

    /// A page drawn for him.
    fn render(
        req: &HttpRequest,
        session: &Session,
        status: StatusCode,
        shown: &Self::Shown,
    ) -> HttpResponse;

    /// Where a visitor not signed in as this kind is sent for `req`.
    fn sign_in_path(req: &HttpRequest) -> String;

    /// A refusal's page for `session`: its title and body (its message and the way back).
    fn refusal_shown(
        req: &HttpRequest,
        session: &Session,
        lang: Lang,
        message: &str,
    ) -> Self::Shown;

    /// What a `403` of the API says to him.
    fn forbidden_words(lang: Lang) -> &'static str;
}

type Handled = Pin<Box<dyn Future<Output = HttpResponse>>>;

/// A page of visitor `V` as an actix handler.
pub fn page<V, F, Fut>(
    handler: F,
) -> impl Fn(HttpRequest, web::Data<State>) -> Handled + Clone + 'static
where
    V: Signed,
    F: Fn(V) -> Fut + Clone + 'static,
    Fut: Future<Output = Result<V::Shown, ConsoleError>> + 'static,
{
    move |req: HttpRequest, state: web::Data<State>| {
        let handler = handler.clone();
        Box::pin(async move {
            let visitor = match V::of(&req, &state) {
                Ok(visitor) => visitor,
                Err(e) => return refused::<V>(&req, &state, &e),
            };
            let session = visitor.session().clone();
            match handler(visitor).await {
                Ok(shown) => V::render(&req, &session, StatusCode::OK, &shown),
                Err(e) => refused::<V>(&req, &state, &e),
            }
        })
    }
}

/// A form's action of visitor `V` as an actix handler: the CSRF token checked, the form read
/// into `F`, the API keyed by the form's key; the session's position kept after the write.
pub fn act<V, F, H, Fut>(
    handler: H,
) -> impl Fn(HttpRequest, web::Data<State>, web::Bytes) -> Handled + Clone + 'static
where
    V: Signed,
    F: DeserializeOwned + 'static,
    H: Fn(V, F) -> Fut + Clone + 'static,
    Fut: Future<Output = Result<Done<V::Shown>, ConsoleError>> + 'static,
{
    move |req: HttpRequest, state: web::Data<State>, body: web::Bytes| {
        let handler = handler.clone();
        Box::pin(async move {
            let outcome = async {
                let mut visitor = V::of(&req, &state)?;
                let form_key = checked_form(visitor.session(), &body)?;
                let form: F = serde_urlencoded::from_bytes(&body).map_err(|e| {
                    tracing::debug!(error = %e, "a form did not read");
                    ConsoleError::NotFound
                })?;
                visitor.key_writes(&form_key);
                let api = visitor.api().clone();
                let mut session = visitor.session().clone();
                let done = handler(visitor, form).await?;
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
                    let mut response = V::render(&req, &session, status, &shown);
                    keep_session(&mut response, &session, &state, &req);
                    response
                }
                Err(e) => refused::<V>(&req, &state, &e),
            }
        })
    }
}

/// Sets `session`'s cookie on `response`.
pub fn keep_session(
    response: &mut HttpResponse,
    session: &Session,
    state: &web::Data<State>,
    req: &HttpRequest,
) {
    if let Ok(cookie) = session.cookie(&state.sessions, req).parse() {
        response
            .headers_mut()
            .append(actix_web::http::header::SET_COOKIE, cookie);
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

/// The answer to a page or action of visitor `V` that could not be served, as a readable page.
pub fn refused<V: Signed>(
    req: &HttpRequest,
    state: &web::Data<State>,
    error: &ConsoleError,
) -> HttpResponse {
    let lang = crate::lang_of(req);
    let w = lang.words();
    let (status, message) = match error {
        ConsoleError::SignIn => {
            return HttpResponse::SeeOther()
                .insert_header(("location", V::sign_in_path(req)))
                .finish();
        }
        ConsoleError::Forbidden => (StatusCode::FORBIDDEN, V::forbidden_words(lang)),
        ConsoleError::StaffOnly => (StatusCode::FORBIDDEN, w.not_for_players),
        ConsoleError::StaleForm => (StatusCode::FORBIDDEN, w.stale_form),
        ConsoleError::NotFound => (StatusCode::NOT_FOUND, w.not_found),
        ConsoleError::Api(cause) => {
            tracing::warn!(%cause, "a signed-in page could not use the API");
            (StatusCode::SERVICE_UNAVAILABLE, w.unavailable)
        }
    };
    let session = Session::of(req, &state.sessions).unwrap_or_else(Session::fresh);
    let shown = V::refusal_shown(req, &session, lang, message);
    V::render(req, &session, status, &shown)
}
