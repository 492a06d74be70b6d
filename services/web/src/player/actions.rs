//! The player's own writes from My event: confirming a result of his, disputing one with its
//! reason, and dropping out of the event (after a page that asks first). Each form is one call
//! of the API with the player's token; a refusal the API explains is drawn beside the form.

use super::me::{Refused, my_event};
use super::{Phone, PhonePage};
use crate::console::{ConsoleError, Done, errors_for, field_errors};
use crate::i18n::Lang;
use actix_web::http::StatusCode;
use catan_api::{ClientError, DropEntry, FieldError};
use maud::html;
use serde::Deserialize;

/// "Confirm this result": one `POST .../result/confirm` as the player.
#[derive(Debug, Deserialize)]
pub struct ConfirmForm {}

pub async fn confirm(phone: Phone, _form: ConfirmForm) -> Result<Done<PhonePage>, ConsoleError> {
    let (n, t) = (phone.number("n")?, phone.number("t")?);
    let sent = phone.api.confirm_result(phone.event_id, n, t).await;
    answered(&phone, n, t, sent.map(|_| ())).await
}

/// "Dispute this result" with what is wrong: one `POST .../result/dispute` as the player.
#[derive(Debug, Deserialize)]
pub struct DisputeForm {
    #[serde(default)]
    reason: String,
}

impl DisputeForm {
    /// The reason as sent: without the blanks around it (the API refuses an empty one).
    pub fn reason(&self) -> &str {
        self.reason.trim()
    }
}

pub async fn dispute(phone: Phone, form: DisputeForm) -> Result<Done<PhonePage>, ConsoleError> {
    let (n, t) = (phone.number("n")?, phone.number("t")?);
    let sent = phone
        .api
        .dispute_result(phone.event_id, n, t, form.reason())
        .await;
    answered(&phone, n, t, sent.map(|_| ())).await
}

/// Back to the result on My event; or My event again with the refusal beside the table's forms.
async fn answered(
    phone: &Phone,
    n: u32,
    t: u32,
    sent: Result<(), ClientError>,
) -> Result<Done<PhonePage>, ConsoleError> {
    match sent {
        Ok(()) => Ok(Done::GoTo(format!("{}#result-{n}-{t}", phone.home()))),
        Err(e) => {
            let refused = Refused {
                round: n,
                table: t,
                errors: field_errors(e)?,
            };
            let page = my_event(phone, Some(&refused)).await?;
            Ok(Done::Show(StatusCode::UNPROCESSABLE_ENTITY, page))
        }
    }
}

/// "Drop me out", confirmed: one `POST /v1/events/{id}/entries/{entry}/drop` as the player, for
/// his own entry.
#[derive(Debug, Deserialize)]
pub struct DropForm {
    #[serde(default)]
    reason: String,
}

impl DropForm {
    /// A drop (never an exclusion), with the player's reason or, without one, words saying he
    /// dropped out himself.
    pub fn to_request(&self, lang: Lang) -> DropEntry {
        let reason = self.reason.trim();
        DropEntry {
            reason: if reason.is_empty() {
                lang.words().drop_default_reason.to_owned()
            } else {
                reason.to_owned()
            },
            exclude: false,
        }
    }
}

/// The page that asks before the player drops out.
pub async fn drop_page(phone: Phone) -> Result<PhonePage, ConsoleError> {
    drop_asked(&phone, &[]).await
}

async fn drop_asked(phone: &Phone, errors: &[FieldError]) -> Result<PhonePage, ConsoleError> {
    let event = phone.api.event(phone.event_id).await?;
    let lang = phone.lang;
    let w = lang.words();
    let body = html! {
        p class="crumbs" { a href=(phone.home()) { (w.my_event) } }
        h1 { (w.drop_question) }
        p { strong { (crate::layout::name(&event.name)) } }
        p { (w.drop_explained) }
        (errors_for(lang, errors, ""))
        form method="post" action=(format!("{}/drop", phone.home())) class="console-form phone-form" data-offline-queue
            data-offline-label=(w.drop_myself) {
            (phone.form_fields())
            label for="drop-reason" { (w.drop_reason) }
            input id="drop-reason" name="reason" type="text" maxlength="200"
                aria-invalid=[errors.iter().any(|e| e.field == "reason").then_some("true")];
            (errors_for(lang, errors, "reason"))
            button type="submit" class="danger" { (w.drop_yes) }
        }
        p { a class="button-link secondary" href=(phone.home()) { (w.keep_playing) } }
    };
    Ok(PhonePage::online(
        format!("{} · {}", w.drop_question, event.name),
        body,
    ))
}

pub async fn drop(phone: Phone, form: DropForm) -> Result<Done<PhonePage>, ConsoleError> {
    let id = phone.event_id;
    let entries = phone.api.entries(id).await?;
    let me = phone.me();
    let entry = entries
        .iter()
        .find(|e| e.player_ids.contains(&me))
        .ok_or(ConsoleError::Forbidden)?;
    match phone
        .api
        .drop_entry(id, entry.id, &form.to_request(phone.lang))
        .await
    {
        Ok(_) => Ok(Done::GoTo(phone.home())),
        Err(e) => {
            let errors = field_errors(e)?;
            Ok(Done::Show(
                StatusCode::UNPROCESSABLE_ENTITY,
                drop_asked(&phone, &errors).await?,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_players_drop_is_never_an_exclusion_and_always_has_a_reason() {
        let given = DropForm {
            reason: "  train home ".into(),
        };
        let sent = given.to_request(Lang::Es);
        assert_eq!((sent.reason.as_str(), sent.exclude), ("train home", false));
        let blank = DropForm { reason: " ".into() };
        assert_eq!(
            blank.to_request(Lang::Es).reason,
            Lang::Es.words().drop_default_reason
        );
    }

    #[test]
    fn a_disputes_reason_is_sent_without_its_blanks() {
        let form: DisputeForm =
            serde_urlencoded::from_str("reason=+Ana+had+9+VP+&csrf=x&form_key=y").unwrap();
        assert_eq!(form.reason(), "Ana had 9 VP");
        let confirm: Result<ConfirmForm, _> = serde_urlencoded::from_str("csrf=x&form_key=y");
        assert!(
            confirm.is_ok(),
            "a confirmation carries nothing but its keys"
        );
    }
}
