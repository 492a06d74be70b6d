//! Staff sign-in with an API key, and sign-out. The key is exchanged for a token
//! (`POST /v1/auth/token`) and never kept: the session holds the token, which expires on its own.

use super::{ConsoleError, Shown, checked_form, form_fields, refusal, render};
use crate::session::{Session, SignedIn};
use crate::{State, lang_of};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use maud::html;
use serde::Deserialize;

/// The sign-in form as posted.
#[derive(Deserialize)]
pub struct SignInForm {
    api_key: String,
    #[serde(default)]
    next: String,
}

/// Only a path of the console: never another host.
fn next_page(next: &str) -> &str {
    if next.starts_with("/console") && !next.starts_with("//") && !next.contains('\\') {
        next
    } else {
        "/console"
    }
}

/// The sign-in page. A visitor without a session gets one here, holding just the CSRF token his
/// form repeats.
pub async fn form(req: HttpRequest, state: web::Data<State>) -> HttpResponse {
    let session = Session::of(&req, &state.sessions).unwrap_or_else(Session::fresh);
    let next =
        web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
            .ok()
            .and_then(|q| q.get("next").cloned())
            .unwrap_or_default();
    let shown = sign_in_page(&req, &session, next_page(&next), None);
    let mut response = render(&req, &session, StatusCode::OK, &shown);
    if let Ok(cookie) = session.cookie(&state.sessions, &req).parse() {
        response
            .headers_mut()
            .append(actix_web::http::header::SET_COOKIE, cookie);
    }
    response
}

/// The sign-in form, with `refused` said above the key when a try was refused.
fn sign_in_page(req: &HttpRequest, session: &Session, next: &str, refused: Option<&str>) -> Shown {
    let w = lang_of(req).words();
    Shown {
        title: w.sign_in.to_owned(),
        body: html! {
            h1 { (w.sign_in) }
            p { (w.sign_in_help) }
            form method="post" action="/sign-in" class="console-form" {
                (form_fields(session))
                input type="hidden" name="next" value=(next);
                @if let Some(refused) = refused {
                    p class="field-errors" role="alert" id="key-error" { (refused) }
                }
                label for="api_key" { (w.api_key) }
                input id="api_key" name="api_key" type="password" required
                    autocomplete="current-password" spellcheck="false"
                    aria-describedby=[refused.map(|_| "key-error")];
                button type="submit" { (w.sign_in_button) }
            }
        },
    }
}

pub async fn sign_in(req: HttpRequest, state: web::Data<State>, body: web::Bytes) -> HttpResponse {
    let Some(session) = Session::of(&req, &state.sessions) else {
        return refusal(&req, &state, &ConsoleError::StaleForm);
    };
    if checked_form(&session, &body).is_err() {
        return refusal(&req, &state, &ConsoleError::StaleForm);
    }
    let Ok(form) = serde_urlencoded::from_bytes::<SignInForm>(&body) else {
        return refusal(&req, &state, &ConsoleError::StaleForm);
    };
    let api = state.api_for(&req);
    let signed_in = async {
        let token = api.token(&form.api_key).await?;
        let caller = api.with_token(token.access_token.clone()).me().await?;
        Ok::<_, catan_api::ClientError>(SignedIn::new(token.access_token, caller))
    }
    .await;
    match signed_in {
        Ok(person) if person.is_staff() => {
            // A new session: a session's CSRF token never outlives a change of who is signed in.
            let mut fresh = Session::fresh();
            fresh.signed_in = Some(person);
            HttpResponse::SeeOther()
                .insert_header(("location", next_page(&form.next)))
                .insert_header(("set-cookie", fresh.cookie(&state.sessions, &req)))
                .finish()
        }
        // Too many tries from this address: a wait, never said as a wrong key.
        Err(e) if e.status() == Some(429) => {
            let lang = lang_of(&req);
            let wait = match &e {
                catan_api::ClientError::Problem { problem } => problem.retry_after_seconds,
                _ => None,
            };
            let words = lang
                .words()
                .too_many_tries
                .replace("{wait}", &lang.wait(wait.unwrap_or(60).max(1)));
            let shown = sign_in_page(&req, &session, next_page(&form.next), Some(&words));
            render(&req, &session, StatusCode::TOO_MANY_REQUESTS, &shown)
        }
        Ok(_) | Err(catan_api::ClientError::Problem { .. }) => {
            let words = lang_of(&req).words().key_refused;
            let shown = sign_in_page(&req, &session, next_page(&form.next), Some(words));
            render(&req, &session, StatusCode::UNAUTHORIZED, &shown)
        }
        Err(e) => refusal(&req, &state, &ConsoleError::Api(e)),
    }
}

/// Ends the session: the cookie is cleared (the token it held expires on its own).
pub async fn sign_out(req: HttpRequest, state: web::Data<State>, body: web::Bytes) -> HttpResponse {
    let Some(session) = Session::of(&req, &state.sessions) else {
        return HttpResponse::SeeOther()
            .insert_header(("location", "/"))
            .finish();
    };
    if checked_form(&session, &body).is_err() {
        return refusal(&req, &state, &ConsoleError::StaleForm);
    }
    HttpResponse::SeeOther()
        .insert_header(("location", "/"))
        .insert_header(("set-cookie", Session::cleared(&req)))
        .finish()
}
