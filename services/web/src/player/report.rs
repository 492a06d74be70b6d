//! "Report our table's result", where the round lets players report: the console's sheet form
//! ([`crate::console::sheet`]), sent with the player's token (`PUT .../result`, keyed by the form:
//! the form sent again writes once). The API counts a player's sheet as its reporter's
//! confirmation.

use super::{Phone, PhonePage};
use crate::console::sheet::{Drawn, Seating, SheetForm, sheet_form};
use crate::console::{ConsoleError, Done, field_errors};
use actix_web::http::StatusCode;
use catan_api::FieldError;
use maud::html;

pub async fn page(phone: Phone) -> Result<PhonePage, ConsoleError> {
    let (n, t) = (phone.number("n")?, phone.number("t")?);
    let round = phone.api.round(phone.event_id, n).await?;
    let table = round
        .tables
        .iter()
        .find(|table| table.number == t)
        .ok_or(ConsoleError::NotFound)?;
    let players: Vec<_> = table.seats.iter().map(|s| s.player_id).collect();
    report_page(&phone, n, t, &SheetForm::blank(&players), &[]).await
}

/// The form, filled with `form` and with `errors` beside their fields.
async fn report_page(
    phone: &Phone,
    n: u32,
    t: u32,
    form: &SheetForm,
    errors: &[FieldError],
) -> Result<PhonePage, ConsoleError> {
    let (id, api) = (phone.event_id, &phone.api);
    let (event, round, entries) = tokio::join!(api.event(id), api.round(id, n), api.entries(id));
    let (event, round, entries) = (event?, round?, entries?);
    let seating = Seating::of(api, &round, t, &entries).await?;
    let lang = phone.lang;
    let w = lang.words();
    let drawn = Drawn {
        form,
        errors,
        conflict: None,
        // The early reason and the "checked" box are the director's: never on a player's form.
        director: false,
    };
    let action = format!("{}/rounds/{n}/tables/{t}/report", phone.home());
    let at_table = super::me::round_and_table(lang, n, t);
    let label = format!("{}: {at_table}", w.report_our_result);
    let now = chrono::Utc::now();
    let body = html! {
        p class="crumbs" { a href=(phone.home()) { (w.my_event) } }
        h1 { (w.report_our_result) }
        p { strong { (crate::layout::name(&event.name)) } " · " (at_table) }
        (super::me::updated(lang, now))
        (sheet_form(lang, &phone.session, &action, Some(&label), &drawn, &seating))
        script src="/static/console.js" defer {}
    };
    // Kept for the phone to open offline too, as My event links it.
    Ok(PhonePage {
        title: format!("{} · {}", w.report_our_result, event.name),
        body,
        offline_at: Some(now),
    })
}

pub async fn send(phone: Phone, form: SheetForm) -> Result<Done<PhonePage>, ConsoleError> {
    let (id, n, t) = (phone.event_id, phone.number("n")?, phone.number("t")?);
    let sent = match form.to_request() {
        Ok(sheet) => phone
            .api
            .submit_result(id, n, t, &sheet)
            .await
            .map_err(field_errors),
        Err(errors) => Err(Ok(errors)),
    };
    match sent {
        Ok(_) => Ok(Done::GoTo(format!("{}#result-{n}-{t}", phone.home()))),
        Err(Err(refused)) => Err(refused),
        Err(Ok(errors)) => Ok(Done::Show(
            StatusCode::UNPROCESSABLE_ENTITY,
            report_page(&phone, n, t, &form, &errors).await?,
        )),
    }
}
