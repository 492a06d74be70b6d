//! A table's result form, laid out as the paper sheet: for each player settlements, cities, VP
//! cards, longest road and largest army, the VP added up (as you type with `/static/console.js`,
//! and by the server without it); the outcome and the winner. A table with a result shows it,
//! its history, and corrects it with `If-Match`: an edit made meanwhile by someone else is shown,
//! never overwritten. The sheet's broken rules appear beside their fields, in the page's language.

use super::round::state_word;
use super::{ConsoleError, Desk, Done, Said, Shown, field_errors, go_saying, signed_in_as};
use crate::i18n::Lang;
use actix_web::http::StatusCode;
use catan_api::{ApiClient, ClientError, Entry, EventFormat, FieldError, Round, TableResult};
pub(crate) use form::SheetForm;
use maud::{Markup, html};
use std::collections::HashMap;
use uuid::Uuid;

mod form;
mod view;

pub(crate) use view::sheet_form;

/// Who sits at the table: each player's name, and at a partner table each player's team.
pub(crate) struct Seating {
    partner: bool,
    names: HashMap<Uuid, String>,
    /// Each player's team (entry id and name), at a partner table.
    teams_of: HashMap<Uuid, (Uuid, String)>,
    /// The table's teams in seat order.
    teams: Vec<(Uuid, String)>,
}

impl Seating {
    pub(crate) async fn of(
        api: &ApiClient,
        round: &Round,
        t: u32,
        entries: &[Entry],
    ) -> Result<Seating, ConsoleError> {
        let table = round
            .tables
            .iter()
            .find(|table| table.number == t)
            .ok_or(ConsoleError::NotFound)?;
        let partner = round.format == EventFormat::Partner;
        let (mut names, mut teams_of, mut teams) = (HashMap::new(), HashMap::new(), Vec::new());
        for seat in &table.seats {
            let entry = entries.iter().find(|e| e.id == seat.entry_id);
            let entry_name = entry.map_or_else(String::new, |e| e.name.clone());
            // A team's entry is named for the team: its players' own names are the players'.
            let name = if partner {
                api.player(seat.player_id).await?.name
            } else {
                entry_name.clone()
            };
            names.insert(seat.player_id, name);
            if partner {
                teams_of.insert(seat.player_id, (seat.entry_id, entry_name.clone()));
                if !teams.iter().any(|(id, _)| *id == seat.entry_id) {
                    teams.push((seat.entry_id, entry_name));
                }
            }
        }
        Ok(Seating {
            partner,
            names,
            teams_of,
            teams,
        })
    }

    pub(crate) fn name(&self, player: Uuid) -> String {
        self.names
            .get(&player)
            .cloned()
            .unwrap_or_else(|| player.to_string())
    }

    fn team_of(&self, player: Uuid) -> Option<(Uuid, String)> {
        self.teams_of.get(&player).cloned()
    }
}

/// What the form page shows besides the form.
pub(crate) struct Drawn<'a> {
    pub form: &'a SheetForm,
    pub errors: &'a [FieldError],
    /// A version recorded meanwhile by someone else.
    pub conflict: Option<&'a TableResult>,
    /// Whether the form is the director's: only his has the early reason and the "checked by
    /// the director" box (a player's form has neither).
    pub director: bool,
}

pub async fn page(desk: Desk) -> Result<Shown, ConsoleError> {
    let (id, n, t) = (desk.id("id")?, desk.number("n")?, desk.number("t")?);
    let current = match desk.api.result_with_etag(id, n, t).await {
        Ok(found) => Some(found),
        Err(e) if e.status() == Some(404) => None,
        Err(e) => return Err(e.into()),
    };
    let form = match &current {
        Some((result, etag)) => SheetForm::of_result(result, etag.clone()),
        None => SheetForm::blank(&seated(&desk, id, n, t).await?),
    };
    let drawn = Drawn {
        form: &form,
        errors: &[],
        conflict: None,
        director: is_director(&desk),
    };
    sheet_page(&desk, id, n, t, drawn).await
}

/// Whether the signed-in person may do what only the tournament director does with a sheet.
fn is_director(desk: &Desk) -> bool {
    matches!(
        desk.person.role,
        catan_api::Role::Director | catan_api::Role::Organiser | catan_api::Role::Admin
    )
}

/// The void button's form: nothing beyond the session's fields.
#[derive(serde::Deserialize)]
pub struct VoidForm {}

/// `POST` of the void button: one `DELETE .../result`, then the table's empty form, saying so.
pub async fn void(desk: Desk, _form: VoidForm) -> Result<Done, ConsoleError> {
    let (id, n, t) = (desk.id("id")?, desk.number("n")?, desk.number("t")?);
    desk.api.void_result(id, n, t).await?;
    Ok(go_saying(
        format!("/console/events/{id}/rounds/{n}/tables/{t}"),
        Said::ResultVoided { table: t },
    ))
}

/// The players seated at the table, in seat order.
async fn seated(desk: &Desk, id: Uuid, n: u32, t: u32) -> Result<Vec<Uuid>, ConsoleError> {
    let round = desk.api.round(id, n).await?;
    let table = round
        .tables
        .iter()
        .find(|table| table.number == t)
        .ok_or(ConsoleError::NotFound)?;
    Ok(table.seats.iter().map(|s| s.player_id).collect())
}

/// `POST` of the form: one `PUT .../result` (with `If-Match` when it corrects a version); the
/// round's page then says which table's result was recorded or corrected.
pub async fn send(desk: Desk, form: SheetForm) -> Result<Done, ConsoleError> {
    let (id, n, t) = (desk.id("id")?, desk.number("n")?, desk.number("t")?);
    let sent = match form.to_request() {
        Err(errors) => Err(Ok(errors)),
        Ok(sheet) if form.if_match.is_empty() => desk
            .api
            .submit_result(id, n, t, &sheet)
            .await
            .map_err(field_errors),
        Ok(sheet) => match desk
            .api
            .correct_result(id, n, t, &sheet, &form.if_match)
            .await
        {
            Err(ClientError::Problem { problem }) if problem.status == 412 => {
                // Someone else's version came first: show it beside this one.
                let (current, _) = desk.api.result_with_etag(id, n, t).await?;
                let drawn = Drawn {
                    form: &form,
                    errors: &[],
                    conflict: Some(&current),
                    director: is_director(&desk),
                };
                let shown = sheet_page(&desk, id, n, t, drawn).await?;
                return Ok(Done::Show(StatusCode::PRECONDITION_FAILED, shown));
            }
            other => other.map_err(field_errors),
        },
    };
    match sent {
        Ok(_) => Ok(go_saying(
            format!("/console/events/{id}/rounds/{n}"),
            if form.if_match.is_empty() {
                Said::ResultRecorded { table: t }
            } else {
                Said::ResultCorrected { table: t }
            },
        )),
        Err(Err(refused)) => Err(refused),
        Err(Ok(errors)) => {
            let drawn = Drawn {
                form: &form,
                errors: &errors,
                conflict: None,
                director: is_director(&desk),
            };
            let shown = sheet_page(&desk, id, n, t, drawn).await?;
            Ok(Done::Show(StatusCode::UNPROCESSABLE_ENTITY, shown))
        }
    }
}

async fn sheet_page(
    desk: &Desk,
    id: Uuid,
    n: u32,
    t: u32,
    drawn: Drawn<'_>,
) -> Result<Shown, ConsoleError> {
    let (event, entries, round) = tokio::join!(
        desk.api.event(id),
        desk.api.entries(id),
        desk.api.round(id, n)
    );
    let (event, entries, round) = (event?, entries?, round?);
    desk.require_event(&event)?;
    let seating = Seating::of(&desk.api, &round, t, &entries).await?;
    let history = if drawn.form.if_match.is_empty() {
        Vec::new()
    } else {
        desk.api.result_history(id, n, t).await?.items
    };
    let lang = desk.lang;
    let w = lang.words();
    let name = |p: Uuid| seating.name(p);
    let title = format!(
        "{} · {} {} · {} {}",
        event.name,
        w.round,
        lang.int(u64::from(n)),
        w.table,
        lang.int(u64::from(t))
    );
    let body = html! {
        p class="crumbs" {
            a href="/console" { (w.console) } " › "
            a href=(format!("/console/events/{id}")) { (event.name) } " › "
            a href=(format!("/console/events/{id}/rounds/{n}")) { (w.round) " " (lang.int(u64::from(n))) }
        }
        h1 { (w.table) " " (lang.int(u64::from(t))) }
        (signed_in_as(lang, &desk.person))
        @if let Some(current) = drawn.conflict {
            div class="field-errors" role="alert" id="conflict" {
                p { (w.changed_meanwhile) }
                (result_summary(lang, current, &name))
            }
        }
        (sheet_form(
            lang,
            &desk.session,
            &format!("/console/events/{id}/rounds/{n}/tables/{t}"),
            None,
            &drawn,
            &seating
        ))
        @if let Some(current) = history.last().filter(|current| !current.voided) {
            (confirmations(desk, current, &name))
            @if drawn.director {
                (void_button(desk, current))
            }
        }
        @if !history.is_empty() {
            section aria-labelledby="history-h" {
                h2 id="history-h" { (w.history) }
                ol class="history" {
                    @for version in &history {
                        li {
                            "v" (version.version) " · " (state_word(lang, Some(version.status)))
                            @if version.voided { " · " strong { (w.result_voided) } }
                            (result_summary(lang, version, &name))
                        }
                    }
                }
            }
        }
    };
    Ok(Shown { title, body })
}

/// The current version's state, its open disputes with their reasons, and for each player who
/// has not confirmed it a button that confirms it for him (the director).
fn confirmations(desk: &Desk, current: &TableResult, name: &dyn Fn(Uuid) -> String) -> Markup {
    let lang = desk.lang;
    let w = lang.words();
    let action = format!(
        "/console/events/{}/rounds/{}/tables/{}/confirm",
        current.event_id, current.round, current.table
    );
    html! {
        section aria-labelledby="confirm-h" {
            h2 id="confirm-h" { (w.confirmations) }
            p role="status" { (w.result) ": " strong { (state_word(lang, Some(current.status))) } }
            @let open: Vec<_> = current.disputes.iter().filter(|d| d.resolved_by_version.is_none()).collect();
            @if !open.is_empty() {
                ul class="disputes" {
                    @for dispute in open {
                        li { bdi { (name(dispute.player_id)) } ": " (dispute.reason) }
                    }
                }
                p class="help" { (w.resolve_by_correcting) }
            }
            ul class="confirm-list" {
                @for score in &current.scores {
                    li {
                        bdi { (name(score.player_id)) }
                        @if current.confirmed_by.contains(&score.player_id) {
                            " · " (w.result_confirmed)
                        } @else {
                            form method="post" action=(action) class="inline" {
                                (desk.form_fields())
                                input type="hidden" name="player_id" value=(score.player_id);
                                button type="submit" aria-label=(format!("{} {}", w.confirm_for, name(score.player_id))) { (w.confirm_for) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The director's button that voids the current result, with what it does.
fn void_button(desk: &Desk, current: &TableResult) -> Markup {
    let w = desk.lang.words();
    let action = format!(
        "/console/events/{}/rounds/{}/tables/{}/void",
        current.event_id, current.round, current.table
    );
    html! {
        section aria-labelledby="void-h" {
            h2 id="void-h" { (w.void_result) }
            p class="help" { (w.void_explained) }
            form method="post" action=(action) {
                (desk.form_fields())
                button type="submit" class="secondary" data-void { (w.void_result) }
            }
        }
    }
}

/// "Confirm for this player": one `POST .../result/confirm` naming him.
#[derive(serde::Deserialize)]
pub struct ConfirmForm {
    player_id: Uuid,
}

pub async fn confirm(desk: Desk, form: ConfirmForm) -> Result<Done, ConsoleError> {
    let (id, n, t) = (desk.id("id")?, desk.number("n")?, desk.number("t")?);
    desk.api
        .confirm_result_for(id, n, t, form.player_id)
        .await?;
    Ok(Done::GoTo(format!(
        "/console/events/{id}/rounds/{n}/tables/{t}#confirm-h"
    )))
}

fn result_summary(lang: Lang, result: &TableResult, name: &dyn Fn(Uuid) -> String) -> Markup {
    let w = lang.words();
    html! {
        ul class="summary" {
            @for score in &result.scores {
                li {
                    bdi { (name(score.player_id)) } ": " (score.vp) " " (w.vp)
                    @if result.winner_player_id == Some(score.player_id) { " · " (w.winner) }
                }
            }
        }
    }
}
