//! A player's sign-in to his event: he picks his name among the event's players and types the
//! PIN of his slip, which is exchanged for a player token (`POST /v1/auth/player-token`) and never
//! kept. The slip's QR code opens this page with his name picked (`?player=`), never with the PIN.
//! The API counts wrong PINs per player and visitor address: the web app passes each visitor's on
//! ([`crate::State::api_for`]), and a wait is said with its real length.

use super::{Phone, PhonePage};
use crate::session::{Session, SignedIn};
use crate::signed::{ConsoleError, Signed, checked_form, form_fields, keep_session, refused};
use crate::{State, lang_of};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use catan_api::{ApiClient, ClientError, EventFormat};
use maud::html;
use serde::Deserialize;
use std::sync::Arc;
use uuid::Uuid;

/// The sign-in form as posted.
#[derive(Debug, Deserialize)]
pub struct PlayerSignInForm {
    #[serde(default)]
    player_id: String,
    #[serde(default)]
    pin: String,
}

impl PlayerSignInForm {
    /// The player and his PIN as `POST /v1/auth/player-token` takes them: the PIN as printed
    /// (upper case, without the spaces a phone's keyboard may add); none without a player.
    pub fn credentials(&self) -> Option<(Uuid, String)> {
        let player = Uuid::parse_str(self.player_id.trim()).ok()?;
        let pin: String = self
            .pin
            .chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_uppercase)
            .collect();
        Some((player, pin))
    }
}

/// Why the form is drawn again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refused {
    WrongPin,
    /// A wait of this many seconds for wrong PINs.
    WrongPinsWait(u64),
    /// A wait of this many seconds for something else (sign-ins from this address, in all).
    TooManyTries(u64),
}

impl Refused {
    /// What the API's refusal of a sign-in means for the form; `None` for a failure to reach it.
    fn of(error: &ClientError) -> Option<Refused> {
        let ClientError::Problem { problem } = error else {
            return None;
        };
        if problem.status != 429 {
            return Some(Refused::WrongPin);
        }
        let wait = problem.retry_after_seconds.unwrap_or(60).max(1);
        let for_pins = problem
            .errors
            .iter()
            .any(|e| e.code == catan_api::ErrorCode::TooManyWrongPins);
        Some(if for_pins {
            Refused::WrongPinsWait(wait)
        } else {
            Refused::TooManyTries(wait)
        })
    }

    /// The wait the refusal asks for, in seconds.
    fn wait(self) -> Option<u64> {
        match self {
            Refused::WrongPin => None,
            Refused::WrongPinsWait(wait) | Refused::TooManyTries(wait) => Some(wait),
        }
    }
}

/// The event's name, and its players to pick from by name: a classic entry's player, each member
/// of a team.
async fn players(
    api: &ApiClient,
    event_id: Uuid,
) -> Result<(String, Vec<(Uuid, String)>), ClientError> {
    let (event, entries) = tokio::join!(api.event(event_id), api.entries(event_id));
    let (event, entries) = (event?, entries?);
    let mut players = Vec::new();
    if event.format == EventFormat::Partner {
        let members = entries
            .iter()
            .flat_map(|e| e.player_ids.iter().map(move |p| (*p, e.name.clone())));
        let named = futures_util::future::try_join_all(members.map(|(player, team)| async move {
            let name = api.player(player).await?.name;
            Ok::<_, ClientError>((player, format!("{name} ({team})")))
        }))
        .await?;
        players.extend(named);
    } else {
        players.extend(
            entries
                .iter()
                .filter_map(|e| e.player_id.map(|p| (p, e.name.clone()))),
        );
    }
    players.sort_by_key(|a| a.1.to_lowercase());
    Ok((event.name, players))
}

/// The event's name and its players, kept a moment (every phone at the venue opens this page at
/// once when a round is called).
async fn event_and_players(
    state: &web::Data<State>,
    api: &ApiClient,
    event_id: Uuid,
) -> Result<Arc<(String, Vec<(Uuid, String)>)>, ClientError> {
    state
        .cached(format!("sign-in {event_id}"), players(api, event_id))
        .await
}

fn event_id(req: &HttpRequest) -> Option<Uuid> {
    req.match_info()
        .get("id")
        .and_then(|v| Uuid::parse_str(v).ok())
}

/// The sign-in page, the player of `?player=` picked. A visitor without a session gets one
/// here, holding just the CSRF token his form repeats.
pub async fn form(req: HttpRequest, state: web::Data<State>) -> HttpResponse {
    let session = Session::of(&req, &state.sessions).unwrap_or_else(Session::fresh);
    let picked =
        web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
            .ok()
            .and_then(|q| q.get("player").and_then(|p| Uuid::parse_str(p).ok()));
    let mut response = sign_in_page(&req, &state, &session, picked, None, StatusCode::OK).await;
    keep_session(&mut response, &session, &state, &req);
    response
}

async fn sign_in_page(
    req: &HttpRequest,
    state: &web::Data<State>,
    session: &Session,
    picked: Option<Uuid>,
    refused_with: Option<Refused>,
    status: StatusCode,
) -> HttpResponse {
    let Some(id) = event_id(req) else {
        return refused::<Phone>(req, state, &ConsoleError::NotFound);
    };
    let found = match event_and_players(state, &state.api_for(req), id).await {
        Ok(found) => found,
        Err(e) => return refused::<Phone>(req, state, &e.into()),
    };
    let (event_name, players) = (&found.0, &found.1);
    let lang = lang_of(req);
    let w = lang.words();
    let message = refused_with.map(|r| match r {
        Refused::WrongPin => w.pin_refused.to_owned(),
        Refused::WrongPinsWait(wait) => w.too_many_wrong_pins.replace("{wait}", &lang.wait(wait)),
        Refused::TooManyTries(wait) => w.too_many_tries.replace("{wait}", &lang.wait(wait)),
    });
    let body = html! {
        h1 { (w.player_sign_in) }
        p { a href=(format!("/events/{id}")) { (event_name) } }
        p { (w.player_sign_in_help) }
        form method="post" action=(format!("/events/{id}/sign-in")) class="console-form phone-form" {
            (form_fields(session))
            @if let Some(message) = &message {
                p class="field-errors" role="alert" id="pin-error" { (message) }
            }
            label for="player_id" { (w.player) }
            select id="player_id" name="player_id" required {
                option value="" { "—" }
                @for (player, name) in players {
                    option value=(player) selected[picked == Some(*player)] { (name) }
                }
            }
            label for="pin" { (w.pin) }
            input id="pin" name="pin" type="password" required maxlength="20"
                autocomplete="current-password" autocapitalize="characters" spellcheck="false"
                aria-invalid=[(refused_with == Some(Refused::WrongPin)).then_some("true")]
                aria-describedby=[message.is_some().then_some("pin-error")];
            button type="submit" { (w.sign_in_button) }
        }
    };
    let shown = PhonePage::online(format!("{} · {}", w.player_sign_in, event_name), body);
    let mut response = Phone::render(req, session, status, &shown);
    if let Some(wait) = refused_with.and_then(Refused::wait)
        && let Ok(value) = wait.to_string().parse()
    {
        response
            .headers_mut()
            .insert(actix_web::http::header::RETRY_AFTER, value);
    }
    response
}

/// `POST` of the form: the PIN exchanged for a player token, then a new session holding it.
pub async fn sign_in(req: HttpRequest, state: web::Data<State>, body: web::Bytes) -> HttpResponse {
    let Some(session) = Session::of(&req, &state.sessions) else {
        return refused::<Phone>(&req, &state, &ConsoleError::StaleForm);
    };
    if checked_form(&session, &body).is_err() {
        return refused::<Phone>(&req, &state, &ConsoleError::StaleForm);
    }
    let Some(id) = event_id(&req) else {
        return refused::<Phone>(&req, &state, &ConsoleError::NotFound);
    };
    let form = serde_urlencoded::from_bytes::<PlayerSignInForm>(&body).ok();
    let Some((player, pin)) = form.as_ref().and_then(PlayerSignInForm::credentials) else {
        return sign_in_page(
            &req,
            &state,
            &session,
            None,
            Some(Refused::WrongPin),
            StatusCode::UNPROCESSABLE_ENTITY,
        )
        .await;
    };
    let api = state.api_for(&req);
    let signed_in = async {
        let token = api.player_token(id, player, &pin).await?;
        let caller = api.with_token(token.access_token.clone()).me().await?;
        Ok::<_, ClientError>(SignedIn::new(token.access_token, caller))
    }
    .await;
    let (refused_with, status) = match signed_in {
        Ok(person) if person.plays_in(id) => {
            // A new session: a session's CSRF token never outlives a change of who is signed in.
            let mut fresh = Session::fresh();
            fresh.signed_in = Some(person);
            return HttpResponse::SeeOther()
                .insert_header(("location", format!("/events/{id}/me")))
                .insert_header(("set-cookie", fresh.cookie(&state.sessions, &req)))
                .finish();
        }
        Ok(_) => (Refused::WrongPin, StatusCode::UNAUTHORIZED),
        Err(e) => match Refused::of(&e) {
            Some(Refused::WrongPin) => (Refused::WrongPin, StatusCode::UNAUTHORIZED),
            Some(wait) => (wait, StatusCode::TOO_MANY_REQUESTS),
            None => return refused::<Phone>(&req, &state, &ConsoleError::Api(e)),
        },
    };
    sign_in_page(
        &req,
        &state,
        &session,
        Some(player),
        Some(refused_with),
        status,
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pin_is_sent_as_printed_whatever_the_phone_typed() {
        let player = Uuid::new_v4();
        let form = PlayerSignInForm {
            player_id: format!(" {player} "),
            pin: "7kq4 wm9r ".into(),
        };
        assert_eq!(form.credentials(), Some((player, "7KQ4WM9R".into())));
        let nobody = PlayerSignInForm {
            player_id: String::new(),
            pin: "7KQ4WM9R".into(),
        };
        assert_eq!(nobody.credentials(), None, "no player picked");
    }

    fn refusal(status: u16, code: Option<catan_api::ErrorCode>, wait: Option<u64>) -> ClientError {
        ClientError::Problem {
            problem: catan_api::Problem {
                kind: "/problems/x".into(),
                title: "Refused".into(),
                status,
                detail: "refused".into(),
                errors: code
                    .into_iter()
                    .map(|code| catan_api::FieldError {
                        field: "pin".into(),
                        code,
                        message: "wait".into(),
                    })
                    .collect(),
                retry_after_seconds: wait,
            },
        }
    }

    #[test]
    fn a_wait_is_told_as_long_as_the_api_says_and_never_as_a_wrong_pin() {
        let pins = Some(catan_api::ErrorCode::TooManyWrongPins);
        assert_eq!(
            Refused::of(&refusal(429, pins, Some(4))),
            Some(Refused::WrongPinsWait(4))
        );
        assert_eq!(
            Refused::of(&refusal(429, None, Some(1))),
            Some(Refused::TooManyTries(1))
        );
        assert_eq!(
            Refused::of(&refusal(401, None, None)),
            Some(Refused::WrongPin)
        );
        assert_eq!(
            Refused::of(&ClientError::Transport("down".into())),
            None,
            "not a refusal: the API could not be reached"
        );
        let said = crate::i18n::EN
            .too_many_wrong_pins
            .replace("{wait}", &crate::i18n::Lang::En.wait(4));
        assert_eq!(said, "Wrong PIN too many times: try again in 4 seconds.");
    }
}
