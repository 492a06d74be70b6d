//! API keys in the console: the keys the admin or an organiser may list, and a new director or
//! scorer key for one of their events (the admin also makes organiser keys for regions). A new
//! key is shown once, with a QR code a table app scans: the code holds the API's address and the
//! key as JSON text, never a link a phone would open and keep in its history.

use super::{
    ConsoleError, Desk, Done, Said, Shown, all_errors, field_errors, go_saying, signed_in_as,
};
use crate::pages::table::{stacked_table, text};
use actix_web::http::StatusCode;
use catan_api::{ApiKeyCreated, ClientError, CreateApiKey, Event, FieldError, Role};
use maud::{Markup, PreEscaped, html};
use serde::Deserialize;
use uuid::Uuid;

/// Keys listed at most.
const LISTED: u32 = 500;

pub async fn page(desk: Desk) -> Result<Shown, ConsoleError> {
    keys_page(&desk, None, &[]).await
}

/// What the keys page shows after a form: a key made (shown once), or why one was not revoked.
#[derive(Default)]
struct After<'a> {
    created: Option<&'a ApiKeyCreated>,
    refused: Vec<FieldError>,
}

async fn keys_page(
    desk: &Desk,
    created: Option<&ApiKeyCreated>,
    errors: &[FieldError],
) -> Result<Shown, ConsoleError> {
    keys_page_after(
        desk,
        After {
            created,
            ..After::default()
        },
        errors,
    )
    .await
}

async fn keys_page_after(
    desk: &Desk,
    after: After<'_>,
    errors: &[FieldError],
) -> Result<Shown, ConsoleError> {
    if !matches!(desk.person.role, Role::Admin | Role::Organiser) {
        return Err(ConsoleError::Forbidden);
    }
    let (keys, events, regions) = tokio::join!(
        desk.api.api_keys(LISTED, 0),
        super::events::my_events(desk),
        desk.api.regions()
    );
    let (keys, events, regions) = (keys?, events?, regions?);
    let lang = desk.lang;
    let w = lang.words();
    let event_name = |id: &Uuid| {
        events
            .iter()
            .find(|e| e.id == *id)
            .map_or_else(|| id.to_string(), |e| e.name.clone())
    };
    let rows = html! {
        @for key in &keys {
            tr {
                td data-label=(w.name) { bdi { (key.name) } }
                td data-label=(w.role) { (crate::session::role_word(lang, key.role)) }
                td data-label=(w.events) {
                    @for id in key.event_ids.iter().flatten() { bdi { (event_name(id)) } " " }
                }
                td data-label=(w.status) {
                    @if key.revoked_at.is_some() { (w.revoked) }
                    // A person's own key is not revoked from the session it opened.
                    @else if key.id != desk.person.subject {
                        form method="post" action=(format!("/console/keys/{}/revoke", key.id)) class="inline" {
                            (desk.form_fields())
                            button type="submit" aria-label=(format!("{} {}", w.revoke, key.name)) { (w.revoke) }
                        }
                    }
                }
            }
        }
    };
    let body = html! {
        p class="crumbs" { a href="/console" { (w.console) } }
        h1 { (w.api_keys) }
        (signed_in_as(lang, &desk.person))
        @if let Some(created) = after.created {
            (shown_once(desk, created))
        }
        (new_key_form(desk, &events, &regions, errors))
        (all_errors(lang, &after.refused))
        (stacked_table(Some("keys"), None, &[text(w.name), text(w.role), text(w.events), text(w.status)], rows))
    };
    Ok(Shown {
        title: w.api_keys.to_owned(),
        body,
    })
}

fn new_key_form(
    desk: &Desk,
    events: &[Event],
    regions: &[catan_api::Region],
    errors: &[FieldError],
) -> Markup {
    let lang = desk.lang;
    let w = lang.words();
    let admin = desk.person.role == Role::Admin;
    html! {
        section aria-labelledby="new-key" {
            h2 id="new-key" { (w.new_key) }
            (all_errors(lang, errors))
            form method="post" action="/console/keys" class="console-form" {
                (desk.form_fields())
                label for="key-name" { (w.key_name) }
                input id="key-name" name="name" type="text" required maxlength="200";
                label for="key-role" { (w.role) }
                select id="key-role" name="role" {
                    option value="director" { (w.role_director) }
                    option value="scorer" { (w.role_scorer) }
                    @if admin { option value="organiser" { (w.role_organiser) } }
                }
                label for="key-event" { (w.event) }
                select id="key-event" name="event_id" {
                    @if admin { option value="" { "—" } }
                    @for event in events { option value=(event.id) { (event.name) } }
                }
                @if admin {
                    label for="key-region" { (w.region_for_organiser) }
                    select id="key-region" name="region_id" {
                        option value="" { "—" }
                        @for region in regions { option value=(region.id) { (region.name) } }
                    }
                }
                button type="submit" { (w.make_key) }
            }
        }
    }
}

/// The new key, shown this once, and its QR code.
fn shown_once(desk: &Desk, created: &ApiKeyCreated) -> Markup {
    let w = desk.lang.words();
    // The suite's public address (else the one the person reached the console at): the API is
    // served beside the console.
    let payload = serde_json::json!({
        "api": format!("{}/v1", desk.state.public_url(&desk.req)),
        "api_key": created.api_key,
    })
    .to_string();
    html! {
        section class="pins" aria-labelledby="key-h" role="status" {
            h2 id="key-h" { (w.new_key) (w.colon) (crate::layout::name(&created.name)) }
            p { (w.key_shown_once) }
            p { code class="new-key" { (created.api_key) } }
            figure class="qr" {
                (PreEscaped(qr_svg(&payload, w.key_qr)))
                figcaption { (w.key_qr) }
            }
        }
    }
}

/// `text` as a QR code (medium error correction), an SVG of dark squares on white.
pub fn qr_svg(text: &str, label: &str) -> String {
    use qrcodegen::{QrCode, QrCodeEcc};
    let Ok(code) = QrCode::encode_text(text, QrCodeEcc::Medium) else {
        return String::new();
    };
    let size = code.size();
    let border = 4;
    let mut path = String::new();
    for y in 0..size {
        for x in 0..size {
            if code.get_module(x, y) {
                path.push_str(&format!("M{},{}h1v1h-1z", x + border, y + border));
            }
        }
    }
    let full = size + 2 * border;
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {full} {full}\" width=\"240\" \
         height=\"240\" role=\"img\" aria-label=\"{}\" shape-rendering=\"crispEdges\">\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/><path d=\"{path}\" fill=\"#000\"/></svg>",
        maud::html! { (label) }.into_string()
    )
}

/// The new-key form as posted: one `POST /v1/api-keys`.
#[derive(Debug, Deserialize)]
pub struct KeyForm {
    name: String,
    role: String,
    #[serde(default)]
    event_id: String,
    #[serde(default)]
    region_id: String,
}

impl KeyForm {
    pub fn to_request(&self) -> CreateApiKey {
        let role = match self.role.as_str() {
            "scorer" => Role::Scorer,
            "organiser" => Role::Organiser,
            _ => Role::Director,
        };
        let id = |text: &str| Uuid::parse_str(text.trim()).ok();
        let (event_ids, region_ids) = match role {
            Role::Organiser => (None, id(&self.region_id).map(|r| vec![r])),
            _ => (id(&self.event_id).map(|e| vec![e]), None),
        };
        CreateApiKey {
            name: self.name.trim().to_owned(),
            role,
            event_ids,
            region_ids,
        }
    }
}

pub async fn create(desk: Desk, form: KeyForm) -> Result<Done, ConsoleError> {
    match desk.api.create_api_key(&form.to_request()).await {
        Ok(created) => Ok(Done::Show(
            StatusCode::CREATED,
            keys_page(&desk, Some(&created), &[]).await?,
        )),
        Err(e) => {
            let errors = field_errors(e)?;
            Ok(Done::Show(
                StatusCode::UNPROCESSABLE_ENTITY,
                keys_page(&desk, None, &errors).await?,
            ))
        }
    }
}

/// "Revoke": one `DELETE /v1/api-keys/{key}`; the keys page then says so, the key listed as
/// revoked.
#[derive(Deserialize)]
pub struct RevokeForm {}

pub async fn revoke(desk: Desk, _form: RevokeForm) -> Result<Done, ConsoleError> {
    let id = desk.id("key")?;
    match desk.api.revoke_api_key(id).await {
        Ok(()) => Ok(go_saying("/console/keys".into(), Said::KeyRevoked)),
        Err(e) => {
            let after = After {
                refused: field_errors_or_refusal(e)?,
                ..After::default()
            };
            Ok(Done::Show(
                StatusCode::CONFLICT,
                keys_page_after(&desk, after, &[]).await?,
            ))
        }
    }
}

/// A refusal the page can show (403, 404, 409, 422) as its message; else the error.
fn field_errors_or_refusal(error: ClientError) -> Result<Vec<FieldError>, ConsoleError> {
    match error {
        ClientError::Problem { problem } if matches!(problem.status, 403 | 404) => {
            Ok(vec![FieldError {
                field: String::new(),
                code: catan_api::ErrorCode::NotAllowed,
                message: problem.detail,
            }])
        }
        other => field_errors(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_director_key_names_its_event_and_an_organiser_key_its_region() {
        let (event, region) = (Uuid::new_v4(), Uuid::new_v4());
        let form = |role: &str| KeyForm {
            name: " Hall B ".into(),
            role: role.into(),
            event_id: event.to_string(),
            region_id: region.to_string(),
        };
        let director = form("director").to_request();
        assert_eq!(
            (
                director.name.as_str(),
                director.role,
                director.event_ids,
                director.region_ids
            ),
            ("Hall B", Role::Director, Some(vec![event]), None)
        );
        let organiser = form("organiser").to_request();
        assert_eq!(
            (organiser.role, organiser.event_ids, organiser.region_ids),
            (Role::Organiser, None, Some(vec![region]))
        );
    }

    #[test]
    fn a_qr_code_is_an_svg_of_squares_labelled_for_screen_readers() {
        let svg = qr_svg("{\"api_key\":\"ck_x\"}", "Key <for> the app");
        assert!(svg.starts_with("<svg") && svg.contains("role=\"img\""));
        assert!(svg.contains("aria-label=\"Key &lt;for&gt; the app\""));
        assert!(
            svg.matches("h1v1h-1z").count() > 100,
            "a code's dark modules"
        );
    }
}
