//! A round in the console: each table with its seats and the state of its result, each a link
//! to its result form; the printable sheets one click away.

use super::{
    ConsoleError, Desk, Done, Said, Shown, all_errors, field_errors, go_saying, signed_in_as,
};
use crate::i18n::Lang;
use crate::pages::table::{data_table, number, text};
use actix_web::http::StatusCode;
use catan_api::{DrawRound, FieldError, ResultStatus, Round, SwapPlayers, TableResult};
use maud::{Markup, html};
use serde::Deserialize;
use std::collections::HashMap;
use uuid::Uuid;

pub async fn page(desk: Desk) -> Result<Shown, ConsoleError> {
    let (id, n) = (desk.id("id")?, desk.number("n")?);
    round_page(&desk, id, n, &[]).await
}

/// The round's page, with `errors` of a clock control beside the clock.
pub async fn round_page(
    desk: &Desk,
    id: Uuid,
    n: u32,
    errors: &[FieldError],
) -> Result<Shown, ConsoleError> {
    round_page_with(desk, id, n, errors, &[]).await
}

/// The round's page, with `errors` of a clock control beside the clock and `refused`, why a
/// redraw or a swap was refused, beside those controls.
async fn round_page_with(
    desk: &Desk,
    id: Uuid,
    n: u32,
    errors: &[FieldError],
    refused: &[FieldError],
) -> Result<Shown, ConsoleError> {
    let api = &desk.api;
    // The event and its entries change seldom while a round is played: kept a moment; the
    // round (which the director may redraw or change), its results and the clock are read on
    // every visit.
    let (event, round, entries, results, clock) = tokio::join!(
        desk.kept(format!("event {id}"), api.event(id)),
        api.round(id, n),
        desk.kept(format!("entries {id}"), api.entries(id)),
        api.round_results(id, n),
        api.round_clock(id, n)
    );
    let (event, round, entries, results, clock) = (event?, round?, entries?, results?, clock?);
    desk.require_event(&event)?;
    let directs = desk
        .person
        .may_run(id, event.region_id, &[catan_api::Role::Director]);
    let names = names_of(&entries);
    let by_table: HashMap<u32, &TableResult> = results.items.iter().map(|r| (r.table, r)).collect();
    let lang = desk.lang;
    let w = lang.words();
    let missing = round
        .tables
        .iter()
        .filter(|t| !by_table.contains_key(&t.number))
        .count();
    let title = format!("{} · {} {}", event.name, w.round, lang.int(u64::from(n)));
    let rows = html! {
        @for table in &round.tables {
            @let state = by_table.get(&table.number).map(|r| r.status);
            tr data-state=(state_key(state)) {
                td class="num" {
                    a href=(format!("/console/events/{id}/rounds/{n}/tables/{}", table.number)) {
                        (w.table) " " (lang.int(u64::from(table.number)))
                    }
                }
                td {
                    @for (i, seat) in table.seats.iter().enumerate() {
                        @if i > 0 { ", " }
                        (names.get(&seat.player_id).map_or("?", String::as_str))
                    }
                }
                td { (state_word(lang, state)) }
            }
        }
    };
    let body = html! {
        p class="crumbs" {
            a href="/console" { (w.console) } " › "
            a href=(format!("/console/events/{id}")) { (event.name) }
        }
        h1 { (w.round) " " (lang.int(u64::from(n))) " · " (crate::pages::stage_word(lang, round.stage)) }
        (signed_in_as(lang, &desk.person))
        p class="round-state" {
            (progress_words(lang, &round, &results.items))
            @if round.changed_by_hand { " · " span class="tag changed-by-hand" { (w.changed_by_hand) } }
        }
        p {
            a href=(format!("/events/{id}/rounds/{n}/sheets")) { (w.print_sheets) }
        }
        @if directs {
            (super::clock::controls(desk, &event, n, &clock, errors))
        } @else {
            (super::clock::reading_line(lang, &clock))
        }
        p role="status" {
            (w.tables_without_result) ": " strong { (lang.int(missing as u64)) }
        }
        (data_table(Some("round-tables"), None, &[number(w.table), text(w.players), text(w.result)], rows))
        @if directs && (results.items.is_empty() || !refused.is_empty()) {
            (changes(desk, &round, &names, refused))
        }
    };
    Ok(Shown { title, body })
}

/// The director's corrections of a round no table of which has a result: drawn again, or two
/// players swapped; each behind a step that says what it does.
fn changes(
    desk: &Desk,
    round: &Round,
    names: &HashMap<Uuid, String>,
    refused: &[FieldError],
) -> Markup {
    let lang = desk.lang;
    let w = lang.words();
    let n = lang.int(u64::from(round.number));
    let action = format!("/console/events/{}/rounds/{}", round.event_id, round.number);
    // In an option a name cannot be in a <bdi>: the isolate characters do its work.
    let isolated = |player: &Uuid| {
        format!(
            "\u{2068}{}\u{2069}",
            names.get(player).map_or("?", String::as_str)
        )
    };
    let players = |id: &str, name: &str, label: &str| {
        html! {
            label for=(id) { (label) }
            select id=(id) name=(name) required {
                @for table in &round.tables {
                    optgroup label=(format!("{} {}", w.table, lang.int(u64::from(table.number)))) {
                        @for seat in &table.seats {
                            option value=(seat.player_id) { (isolated(&seat.player_id)) }
                        }
                    }
                }
            }
        }
    };
    html! {
        section aria-labelledby="changes-h" class="round-changes" {
            h2 id="changes-h" { (w.redraw_round) " · " (w.swap_players) }
            (all_errors(lang, refused))
            details class="redraw" {
                summary { (w.redraw_round) }
                p class="help" { (w.redraw_help) }
                form method="post" action=(format!("{action}/redraw")) class="console-form" {
                    (desk.form_fields())
                    button type="submit" { (w.redraw_yes.replace("{round}", &n)) }
                }
            }
            @if round.format == catan_api::EventFormat::Classic && round.tables.len() > 1 {
                details class="swap" {
                    summary { (w.swap_players) }
                    p class="help" { (w.swap_help) }
                    form method="post" action=(format!("{action}/swap")) class="console-form" {
                        (desk.form_fields())
                        (players("swap-player", "player_id", w.player))
                        (players("swap-with", "with_player_id", w.swap_with))
                        button type="submit" { (w.swap_yes) }
                    }
                }
            }
        }
    }
}

/// "Redraw this round": one `POST /v1/events/{id}/rounds/{n}/redraw`.
#[derive(Deserialize)]
pub struct RedrawForm {}

pub async fn redraw(desk: Desk, _form: RedrawForm) -> Result<Done, ConsoleError> {
    let (id, n) = (desk.id("id")?, desk.number("n")?);
    match desk.api.redraw_round(id, n, &DrawRound::default()).await {
        Ok(round) => Ok(go_saying(
            format!("/console/events/{id}/rounds/{}", round.number),
            Said::RoundRedrawn {
                round: round.number,
            },
        )),
        Err(e) => refused(&desk, id, n, e).await,
    }
}

/// "Swap two players": one `POST /v1/events/{id}/rounds/{n}/swap`.
#[derive(Deserialize)]
pub struct SwapForm {
    player_id: Uuid,
    with_player_id: Uuid,
}

impl SwapForm {
    pub fn to_request(&self) -> SwapPlayers {
        SwapPlayers {
            player_id: self.player_id,
            with_player_id: self.with_player_id,
        }
    }
}

pub async fn swap(desk: Desk, form: SwapForm) -> Result<Done, ConsoleError> {
    let (id, n) = (desk.id("id")?, desk.number("n")?);
    match desk.api.swap_players(id, n, &form.to_request()).await {
        Ok(round) => Ok(go_saying(
            format!("/console/events/{id}/rounds/{}", round.number),
            Said::PlayersSwapped {
                round: round.number,
            },
        )),
        Err(e) => refused(&desk, id, n, e).await,
    }
}

/// The round's page again, saying why the API refused the change.
async fn refused(
    desk: &Desk,
    id: Uuid,
    n: u32,
    error: catan_api::ClientError,
) -> Result<Done, ConsoleError> {
    let status = match error.status() {
        Some(409) => StatusCode::CONFLICT,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    };
    let errors = field_errors(error)?;
    Ok(Done::Show(
        status,
        round_page_with(desk, id, n, &[], &errors).await?,
    ))
}

/// Where the round's results are, in words: drawn (no result yet), results n of m, every
/// result confirmed; and how many are disputed.
pub fn progress_words(lang: Lang, round: &Round, results: &[TableResult]) -> String {
    let w = lang.words();
    let (n, m) = (results.len(), round.tables.len());
    let confirmed = results
        .iter()
        .all(|r| matches!(r.status, ResultStatus::Confirmed | ResultStatus::Resolved));
    let disputed = results
        .iter()
        .filter(|r| r.status == ResultStatus::Disputed)
        .count();
    let mut words = if n == 0 {
        w.round_state_drawn.to_owned()
    } else if n >= m && confirmed {
        w.round_state_confirmed.to_owned()
    } else {
        w.round_state_results
            .replace("{n}", &lang.int(n as u64))
            .replace("{m}", &lang.int(m as u64))
    };
    if disputed > 0 {
        words.push_str(" · ");
        words.push_str(
            &w.round_state_disputed
                .replace("{n}", &lang.int(disputed as u64)),
        );
    }
    words
}

/// Each entered player's name by id (a partner's, his team's).
pub fn names_of(entries: &[catan_api::Entry]) -> HashMap<Uuid, String> {
    entries
        .iter()
        .flat_map(|e| e.player_ids.iter().map(|p| (*p, e.name.clone())))
        .collect()
}

fn state_key(state: Option<ResultStatus>) -> &'static str {
    match state {
        None => "none",
        Some(ResultStatus::Posted) => "posted",
        Some(ResultStatus::Confirmed) => "confirmed",
        Some(ResultStatus::Disputed) => "disputed",
        Some(ResultStatus::Resolved) => "resolved",
    }
}

pub fn state_word(lang: Lang, state: Option<ResultStatus>) -> &'static str {
    let w = lang.words();
    match state {
        None => w.no_result,
        Some(ResultStatus::Posted) => w.result_posted,
        Some(ResultStatus::Confirmed) => w.result_confirmed,
        Some(ResultStatus::Disputed) => w.result_disputed,
        Some(ResultStatus::Resolved) => w.result_resolved,
    }
}
