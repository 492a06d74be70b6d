//! A round in the console: each table with its seats and the state of its result, each a link
//! to its result form; the printable sheets one click away.

use super::{ConsoleError, Desk, Shown, signed_in_as};
use crate::i18n::Lang;
use crate::pages::table::{data_table, number, text};
use catan_api::{FieldError, ResultStatus, TableResult};
use maud::html;
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
    let api = &desk.api;
    // The event, its entries and the drawn round change seldom while a round is played: kept a
    // moment; the results and the clock are read on every visit.
    let (event, round, entries, results, clock) = tokio::join!(
        desk.kept(format!("event {id}"), api.event(id)),
        desk.kept(format!("round {id} {n}"), api.round(id, n)),
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
        p {
            a href=(format!("/events/{id}/rounds/{n}/sheets")) { (w.print_sheets) }
        }
        @if directs {
            (super::clock::controls(desk, &event, n, &clock, errors))
        } @else {
            p { (w.clock) ": " (super::clock::state_word(lang, clock.state)) }
        }
        p role="status" {
            (w.tables_without_result) ": " strong { (lang.int(missing as u64)) }
        }
        (data_table(Some("round-tables"), None, &[number(w.table), text(w.players), text(w.result)], rows))
    };
    Ok(Shown { title, body })
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
