//! An event's entries in the console: each with its status, and for the director a drop or an
//! exclusion (with its reason) and a new PIN for a player who lost his.

use super::{ConsoleError, Desk, Done};
use catan_api::{DropEntry, Entry, EntryStatus, Event};
use maud::{Markup, html};
use serde::Deserialize;
use uuid::Uuid;

/// The entries' table; with `runs`, each active entry's actions.
pub fn table(desk: &Desk, event: &Event, entries: &[Entry], runs: bool) -> Markup {
    let lang = desk.lang;
    let w = lang.words();
    html! {
        div class="scroll" {
            table class="console-entries" id="entries" {
                thead { tr {
                    th scope="col" { (w.player) }
                    th scope="col" { (w.status) }
                    @if runs { th scope="col" { (w.actions) } }
                } }
                tbody {
                    @for entry in entries {
                        tr {
                            td { (entry.name) }
                            td {
                                (crate::pages::entry_status_word(lang, entry.status))
                                @if let Some(reason) = &entry.status_reason { " · " (reason) }
                            }
                            @if runs {
                                td { (actions(desk, event, entry)) }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn actions(desk: &Desk, event: &Event, entry: &Entry) -> Markup {
    let w = desk.lang.words();
    let base = format!("/console/events/{}/entries/{}", event.id, entry.id);
    let reason_id = format!("reason-{}", entry.id);
    html! {
        @if entry.status == EntryStatus::Active {
            form method="post" action=(format!("{base}/drop")) class="entry-action" {
                (desk.form_fields())
                label for=(reason_id) { (w.reason) }
                input id=(reason_id) name="reason" type="text" required maxlength="200";
                button type="submit" name="exclude" value="" aria-label=(format!("{} {}", w.drop, entry.name)) { (w.drop) }
                button type="submit" name="exclude" value="on" aria-label=(format!("{} {}", w.exclude, entry.name)) { (w.exclude) }
            }
        }
        @for player in &entry.player_ids {
            form method="post" action=(format!("{base}/pin")) class="entry-action" {
                (desk.form_fields())
                input type="hidden" name="player_id" value=(player);
                button type="submit" aria-label=(format!("{} {}", w.reissue_pin, entry.name)) { (w.reissue_pin) }
            }
        }
    }
}

/// A drop or, with `exclude`, an exclusion: one `POST .../entries/{entry}/drop`.
#[derive(Deserialize)]
pub struct DropForm {
    reason: String,
    #[serde(default)]
    exclude: String,
}

impl DropForm {
    pub fn to_request(&self) -> DropEntry {
        DropEntry {
            reason: self.reason.trim().to_owned(),
            exclude: self.exclude == "on",
        }
    }
}

pub async fn drop(desk: Desk, form: DropForm) -> Result<Done, ConsoleError> {
    let (id, entry) = (desk.id("id")?, desk.id("entry")?);
    match desk.api.drop_entry(id, entry, &form.to_request()).await {
        Ok(_) => Ok(Done::GoTo(format!("/console/events/{id}#entries"))),
        Err(e) => super::event::shown_after(&desk, id, Err(e)).await,
    }
}

/// A new PIN for one player of the entry: one `POST .../players/{player}/pin`, shown once.
#[derive(Deserialize)]
pub struct PinForm {
    player_id: Uuid,
}

pub async fn reissue_pin(desk: Desk, form: PinForm) -> Result<Done, ConsoleError> {
    let id = desk.id("id")?;
    let pin = desk.api.reissue_pin(id, form.player_id).await;
    super::event::shown_after(&desk, id, pin.map(|pin| vec![pin])).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exclude_button_makes_an_exclusion_and_the_drop_button_a_drop() {
        let drop = DropForm {
            reason: " left after round 2 ".into(),
            exclude: String::new(),
        };
        assert!(!drop.to_request().exclude);
        assert_eq!(drop.to_request().reason, "left after round 2");
        let exclusion = DropForm {
            reason: "conduct".into(),
            exclude: "on".into(),
        };
        assert!(exclusion.to_request().exclude);
    }
}
