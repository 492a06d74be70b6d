//! Every PIN of an event reissued in one action, after a confirm step (every old PIN stops
//! working), and what a page that showed PINs says when it is loaded again: they were shown once,
//! and how to reissue them.

use super::{ConsoleError, Desk, Done, Shown};
use catan_api::{ClientError, ErrorCode, Event, Role};
use maud::{Markup, html};
use serde::Deserialize;

/// The query a page that showed PINs is loaded again with (`/static/console.js` puts it in the
/// address, so that a reload asks for the event page, not the form again).
pub const SHOWN_QUERY: &str = "pins=shown";

/// Whether `error` is the API's refusal of a write that showed PINs once, sent again (its
/// `Idempotency-Key` keeps no PINs): a form sent again by a reload.
pub fn is_shown_once(error: &ClientError) -> bool {
    matches!(error, ClientError::Problem { problem }
        if problem.status == 409 && problem.errors.iter().any(|e| e.code == ErrorCode::ShownOnce))
}

/// Whether the person may reissue the event's PINs (the API decides; the page leaves out what
/// it would refuse).
fn may_reissue(desk: &Desk, event: &Event) -> bool {
    desk.person.may_run(
        event.id,
        event.region_id,
        &[Role::Director, Role::Organiser],
    )
}

fn confirm_path(event: &Event) -> String {
    format!("/console/events/{}/pins", event.id)
}

/// The way to the confirm step, beside the players.
pub fn reissue_all_link(desk: &Desk, event: &Event) -> Markup {
    html! {
        @if may_reissue(desk, event) {
            p { a class="button-link secondary" href=(confirm_path(event)) { (desk.lang.words().reissue_all_pins) } }
        }
    }
}

/// Said where new PINs were shown, on a page loaded again: they are not kept, and how to have
/// new ones.
pub fn shown_once_notice(desk: &Desk, event: &Event) -> Markup {
    let w = desk.lang.words();
    html! {
        section class="pins-shown" aria-labelledby="pins-shown-h" role="status" {
            h2 id="pins-shown-h" { (w.new_pins) }
            p { (w.pins_were_shown) }
            (reissue_all_link(desk, event))
        }
    }
}

/// The confirm step: what reissuing every PIN does, and the button that does it.
pub async fn confirm(desk: Desk) -> Result<Shown, ConsoleError> {
    let id = desk.id("id")?;
    let event = desk.api.event(id).await?;
    desk.require_event(&event)?;
    if !may_reissue(&desk, &event) {
        return Err(ConsoleError::Forbidden);
    }
    let w = desk.lang.words();
    let body = html! {
        p class="crumbs" {
            a href="/console" { (w.console) } " › "
            a href=(format!("/console/events/{id}")) { (event.name) }
        }
        h1 { (w.reissue_all_pins) }
        p { (w.reissue_all_warning) }
        form method="post" action=(confirm_path(&event)) class="console-form" {
            (desk.form_fields())
            button type="submit" { (w.reissue_all_pins) }
        }
        p { a class="button-link secondary" href=(format!("/console/events/{id}")) { (w.keep_old_pins) } }
    };
    Ok(Shown {
        title: format!("{} · {}", w.reissue_all_pins, event.name),
        body,
    })
}

/// "Reissue all PINs", confirmed: one `POST /v1/events/{id}/pins`; the new PINs shown once as
/// slips.
#[derive(Deserialize)]
pub struct ReissueAllForm {}

pub async fn reissue_all(desk: Desk, _form: ReissueAllForm) -> Result<Done, ConsoleError> {
    let id = desk.id("id")?;
    let pins = desk.api.reissue_all_pins(id).await;
    super::event::shown_after(&desk, id, pins).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conflict(code: ErrorCode) -> ClientError {
        ClientError::Problem {
            problem: catan_api::Problem {
                kind: "/problems/conflict".into(),
                title: "Conflict".into(),
                status: 409,
                detail: "refused".into(),
                errors: vec![catan_api::FieldError {
                    field: "Idempotency-Key".into(),
                    code,
                    message: "refused".into(),
                }],
                retry_after_seconds: None,
            },
        }
    }

    #[test]
    fn a_form_sent_again_is_told_apart_from_other_conflicts() {
        assert!(is_shown_once(&conflict(ErrorCode::ShownOnce)));
        assert!(!is_shown_once(&conflict(ErrorCode::EventCheckedOut)));
        assert!(!is_shown_once(&ClientError::Transport("down".into())));
    }
}
