//! An event's entries in the console: each with its status, and for the director a drop or an
//! exclusion (with its reason), its undoing before the next draw, a misspelt name corrected, and
//! a new PIN for a player who lost his.

use super::{ConsoleError, Desk, Done, Said, go_saying};
use crate::pages::table::{stacked_table, text};
use catan_api::{DropEntry, Entry, EntryStatus, Event};
use maud::{Markup, html};
use serde::Deserialize;
use uuid::Uuid;

/// The entries' table (a card a row on a phone); with `runs`, each entry's actions.
pub fn table(desk: &Desk, event: &Event, entries: &[Entry], runs: bool) -> Markup {
    let lang = desk.lang;
    let w = lang.words();
    let mut columns = vec![text(w.player), text(w.status)];
    if runs {
        columns.push(text(w.actions));
    }
    let rows = html! {
        @for entry in entries {
            tr {
                td class="lead" { bdi { (entry.name) } }
                td data-label=(w.status) {
                    (crate::pages::entry_status_word(lang, entry.status))
                    @if let Some(reason) = &entry.status_reason { " · " (reason) }
                }
                @if runs {
                    td class="entry-actions" { (actions(desk, event, entry)) }
                }
            }
        }
    };
    stacked_table(Some("entries"), None, &columns, rows)
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
        @if entry.status != EntryStatus::Active {
            form method="post" action=(format!("{base}/reinstate")) class="entry-action" {
                (desk.form_fields())
                button type="submit" aria-label=(format!("{} {}", w.reinstate, entry.name)) { (w.reinstate) }
            }
        }
        @if let Some(player) = entry.player_id {
            (rename_form(desk, &base, player, &entry.name))
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

/// A player's name corrected, behind a disclosure (it is seldom needed).
fn rename_form(desk: &Desk, base: &str, player: Uuid, name: &str) -> Markup {
    let w = desk.lang.words();
    let field = format!("rename-{player}");
    html! {
        details class="entry-action rename" {
            summary aria-label=(format!("{} {}", w.rename, name)) { (w.rename) }
            form method="post" action=(format!("{base}/rename")) {
                (desk.form_fields())
                input type="hidden" name="player_id" value=(player);
                label for=(field) { (w.new_name) }
                input id=(field) name="name" type="text" required maxlength="200" value=(name);
                button type="submit" { (w.save) }
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
    let request = form.to_request();
    match desk.api.drop_entry(id, entry, &request).await {
        Ok(_) => Ok(go_saying(
            format!("/console/events/{id}#entries"),
            Said::EntryDropped {
                excluded: request.exclude,
            },
        )),
        Err(e) => super::event::shown_after(&desk, id, Err(e)).await,
    }
}

/// "Reinstate": one `POST .../entries/{entry}/reinstate`.
#[derive(Deserialize)]
pub struct ReinstateForm {}

pub async fn reinstate(desk: Desk, _form: ReinstateForm) -> Result<Done, ConsoleError> {
    let (id, entry) = (desk.id("id")?, desk.id("entry")?);
    match desk.api.reinstate_entry(id, entry).await {
        Ok(_) => Ok(go_saying(
            format!("/console/events/{id}"),
            Said::EntryReinstated,
        )),
        Err(e) => super::event::shown_after(&desk, id, Err(e)).await,
    }
}

/// A player's new name: one `PATCH /v1/players/{player}`.
#[derive(Deserialize)]
pub struct RenameForm {
    player_id: Uuid,
    name: String,
}

pub async fn rename(desk: Desk, form: RenameForm) -> Result<Done, ConsoleError> {
    let id = desk.id("id")?;
    match desk
        .api
        .rename_player(form.player_id, form.name.trim())
        .await
    {
        Ok(_) => Ok(go_saying(
            format!("/console/events/{id}"),
            Said::PlayerRenamed,
        )),
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
