//! An event: its standings (live with the script), its rounds' tables with seats and play order,
//! where a player sits (found by name), each partner table's board picture, its placements, and
//! the standings as CSV.

use super::table::{Column, data_table, number, stacked_table, text};
use super::{Ctx, days, format_word, is_active, name_matches, stage_word, status_word};
use crate::PageResult;
use crate::i18n::{Lang, around_n};
use crate::layout::name;
use crate::understood;
use catan_api::{AnyStandings, Entry, Event, EventFormat, Placements, Round, SeatPosition};
use maud::{Markup, html};
use std::collections::HashMap;
use uuid::Uuid;

pub async fn page(ctx: Ctx) -> PageResult {
    let id = ctx.id("id")?;
    let api = &ctx.api;
    let (event, standings, rounds, entries, placements) = tokio::join!(
        api.event(id),
        api.any_standings(id),
        api.rounds(id),
        api.entries(id),
        api.placements(id),
    );
    let event = event?;
    // Ranking learns of a new event within a second: until then it has no standings to show.
    let standings = standings.ok();
    let rounds = rounds?;
    let entries = entries?;
    let placements = placements.ok();
    let names = Names::of(&entries);
    let lang = ctx.lang;
    let w = lang.words();
    let find = ctx.param("find").map(str::to_owned);
    let body = html! {
        h1 { (name(&event.name)) }
        (summary(lang, &event))
        p class="no-print" { a class="button-link" href=(format!("/events/{id}/sign-in")) { (w.players_sign_in) } }
        section aria-labelledby="standings-h" {
            h2 id="standings-h" { (w.standings) }
            @if let Some(standings) = &standings {
                (standings_table(lang, id, standings, &format!("/events/{id}/standings-table")))
            }
            p { a href=(format!("/events/{id}/standings.csv")) download { (w.download_csv) } }
        }
        section aria-labelledby="find-h" id="find" {
            h2 id="find-h" { (w.find_table) }
            form class="inline" method="get" action=(format!("/events/{id}#find")) {
                label {
                    (w.your_name) br;
                    input type="search" name="find" value=[find.as_deref()] autocomplete="name";
                }
                button type="submit" { (w.find) }
            }
            @if let Some(needle) = &find {
                (found(lang, id, &rounds, &names, needle))
            }
        }
        section aria-labelledby="rounds-h" {
            h2 id="rounds-h" { (w.rounds) }
            p class="no-print" { a href=(format!("/events/{id}/screen")) { (w.screen) } }
            @if rounds.is_empty() { p { (w.no_rounds) } }
            @for (i, round) in rounds.iter().enumerate().rev() {
                (round_block(lang, id, round, &names, i + 1 == rounds.len()))
            }
        }
        section aria-labelledby="placements-h" {
            h2 id="placements-h" { (w.placements) }
            (placements_block(lang, placements.as_ref()))
        }
        script src="/static/live.js" defer {}
    };
    Ok(ctx.html(&event.name, body))
}

fn summary(lang: Lang, event: &Event) -> Markup {
    let w = lang.words();
    html! {
        dl class="muted" {
            dt { (w.dates) } dd { (days(lang, event.starts_on, event.ends_on)) " · " (status_word(lang, event.status)) }
            dt { (w.format) } dd { (format_word(lang, event.format)) }
            @if let Some(venue) = &event.venue { dt { (w.venue) } dd { (name(venue)) } }
        }
    }
}

/// Who sits where: names of entries and players.
pub struct Names {
    by_player: HashMap<Uuid, String>,
    by_entry: HashMap<Uuid, String>,
}

impl Names {
    pub fn of(entries: &[Entry]) -> Names {
        let mut by_player = HashMap::new();
        let mut by_entry = HashMap::new();
        for entry in entries {
            by_entry.insert(entry.id, entry.name.clone());
            if let Some(player) = entry.player_id {
                by_player.insert(player, entry.name.clone());
            }
        }
        Names {
            by_player,
            by_entry,
        }
    }

    /// The seat's name: the player's, or his team's.
    pub fn seat(&self, player: Uuid, entry: Uuid) -> String {
        self.by_player
            .get(&player)
            .or_else(|| self.by_entry.get(&entry))
            .cloned()
            .unwrap_or_default()
    }
}

/// The standings table alone, as the page shows it: what `/static/live.js` redraws the page's
/// table with when the standings change.
pub async fn standings_fragment(ctx: Ctx) -> PageResult {
    let id = ctx.id("id")?;
    let standings = ctx.api.any_standings(id).await?;
    Ok(ctx
        .page_response()
        .content_type("text/html; charset=utf-8")
        .body(
            standings_table(
                ctx.lang,
                id,
                &standings,
                &format!("/events/{id}/standings-table"),
            )
            .into_string(),
        ))
}

/// The standings table, redrawn live from `fragment` (the page's or the screen's own).
pub fn standings_table(lang: Lang, id: Uuid, standings: &AnyStandings, fragment: &str) -> Markup {
    let w = lang.words();
    let after = match standings {
        AnyStandings::Classic(s) => s.after_round,
        AnyStandings::Partner(s) => s.after_round,
    };
    let (before_n, after_n) = around_n(w.after_round_n);
    html! {
        p class="muted" {
            (before_n) span data-after-round { (lang.int(u64::from(after))) } (after_n)
            span data-live hidden { " · " (w.live) }
        }
        div class="scroll" {
            table id="standings" class="stack" data-stream=(format!("/v1/events/{id}/standings/stream"))
                data-fragment=(fragment) {
                caption class="muted" { (w.standings) }
                @match standings {
                    AnyStandings::Classic(s) => {
                        thead { tr {
                            th scope="col" class="num" { (w.rank) }
                            th scope="col" { (w.player) }
                            th scope="col" class="num" { (w.vp) }
                            th scope="col" class="num" { (w.vp_share) }
                            th scope="col" class="num" { (w.games) }
                            th scope="col" class="num" { (w.wins) }
                            @if s.playoff.is_some() { th scope="col" { (w.playoff) } }
                        } }
                        tbody {
                            @for (i, row) in s.rows.iter().enumerate() {
                                tr data-id=(row.player_id) {
                                    td class="num rank" data-label=(w.rank) { (lang.int(u64::from(row.rank))) }
                                    td class="lead" {
                                        a href=(format!("/players/{}", row.player_id)) { (name(&row.name)) }
                                        @if !is_active(row.status) { " " span class="tag" { (w.dropped) } }
                                        @if let (Some(behind), Some(above)) = (&row.behind, i.checked_sub(1).and_then(|a| s.rows.get(a))) {
                                            br; small class="muted why" { (understood::separation(lang, above, row, behind)) }
                                        }
                                    }
                                    td class="num" data-label=(w.vp) { (lang.int(u64::from(row.vp))) }
                                    td class="num" data-label=(w.vp_share) { (lang.decimal(&row.vp_share)) }
                                    td class="num" data-label=(w.games) { (lang.int(u64::from(row.games))) }
                                    td class="num" data-label=(w.wins) { (lang.int(u64::from(row.wins))) }
                                    @if s.playoff.is_some() {
                                        td class="outlook" data-label=(w.playoff) {
                                            @if let Some(outlook) = row.playoff {
                                                (understood::cut(lang, outlook, row.needs))
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                    AnyStandings::Partner(s) => {
                        thead { tr {
                            th scope="col" class="num" { (w.rank) }
                            th scope="col" { (w.team) }
                            th scope="col" class="num" { (w.points) }
                            th scope="col" class="num" { (w.vp) }
                            th scope="col" class="num" { (w.vp_against) }
                            th scope="col" class="num" { (w.games) }
                        } }
                        tbody {
                            @for row in &s.rows {
                                tr data-id=(row.entry_id) {
                                    td class="num rank" data-label=(w.rank) { (lang.int(u64::from(row.rank))) }
                                    td class="lead" {
                                        (name(&row.team_name))
                                        @if !is_active(row.status) { " " span class="tag" { (w.dropped) } }
                                    }
                                    td class="num" data-label=(w.points) { (lang.int(u64::from(row.points))) }
                                    td class="num" data-label=(w.vp) { (lang.int(u64::from(row.vp))) }
                                    td class="num" data-label=(w.vp_against) { (lang.int(u64::from(row.vp_against))) }
                                    td class="num" data-label=(w.games) { (lang.int(u64::from(row.games))) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

pub(crate) fn position(seat: SeatPosition) -> &'static str {
    match seat {
        SeatPosition::N => "N",
        SeatPosition::E => "E",
        SeatPosition::S => "S",
        SeatPosition::W => "W",
    }
}

/// Every seat whose name holds `needle`, the latest round first.
fn found(lang: Lang, id: Uuid, rounds: &[Round], names: &Names, needle: &str) -> Markup {
    let w = lang.words();
    let mut hits = Vec::new();
    for round in rounds.iter().rev() {
        for table in &round.tables {
            for (order, seat) in table.seats.iter().enumerate() {
                let name = names.seat(seat.player_id, seat.entry_id);
                if name_matches(&name, needle) {
                    hits.push((round, table.number, order, seat.position, name));
                }
            }
        }
    }
    html! {
        div class="found" role="status" {
            @if hits.is_empty() {
                p { (w.no_table_found) }
            } @else {
                ul {
                    @for (round, table, order, seat, seated) in hits.iter().take(20) {
                        @let (before_n, after_n) = around_n(w.table_n);
                        li data-found {
                            strong { (name(seated)) } (w.colon)
                            (lang.round_n(round.number)) " · " (stage_word(lang, round.stage)) " · "
                            a href=(format!("/events/{id}#round-{}-table-{table}", round.number)) {
                                (before_n) span data-table { (lang.int(u64::from(*table))) } (after_n)
                            }
                            " · " (w.seat) " " (position(*seat))
                            " · " (lang.plays_nth(u32::try_from(order + 1).unwrap_or(0)))
                        }
                    }
                }
            }
        }
    }
}

fn round_block(lang: Lang, id: Uuid, round: &Round, names: &Names, latest: bool) -> Markup {
    let w = lang.words();
    let seats = round
        .tables
        .iter()
        .map(|t| t.seats.len())
        .max()
        .unwrap_or(4);
    let orders: Vec<String> = (1..=seats)
        .map(|order| lang.ordinal(u32::try_from(order).unwrap_or(0)))
        .collect();
    let columns: Vec<Column> = std::iter::once(number(w.table))
        .chain(orders.iter().map(|order| text(order)))
        .collect();
    html! {
        details open[latest] id=(format!("round-{}", round.number)) {
            summary {
                h3 style="display:inline" {
                    (lang.round_n(round.number)) " · " (stage_word(lang, round.stage))
                }
            }
            p class="no-print" {
                a href=(format!("/events/{id}/rounds/{}/sheets", round.number)) { (w.print_sheets) }
            }
            (stacked_table(None, Some(w.play_order), &columns, html! {
                @for table in &round.tables {
                    tr id=(format!("round-{}-table-{}", round.number, table.number)) {
                        th scope="row" class="num lead" data-label=(w.table) { (lang.int(u64::from(table.number))) }
                        @for (order, seat) in table.seats.iter().enumerate() {
                            td data-label=(orders.get(order).map_or("", String::as_str)) {
                                span class="tag" title=(w.seat) { (position(seat.position)) }
                                " " (name(&names.seat(seat.player_id, seat.entry_id)))
                            }
                        }
                        @for _ in table.seats.len()..seats { td class="empty" {} }
                    }
                }
            }))
            @if round.format == EventFormat::Partner {
                div class="boards" {
                    @for table in &round.tables {
                        (board_figure(lang, id, round.number, table.number, Loading::Lazy))
                    }
                }
            }
            @if !round.byes.is_empty() {
                p { (w.byes) (w.colon)
                    @for (i, entry) in round.byes.iter().enumerate() {
                        @if i > 0 { (w.list_sep) }
                        (name(names.by_entry.get(entry).map_or("", String::as_str)))
                    }
                }
            }
        }
    }
}

/// When a board picture loads: on the event page once its round is opened and scrolled to, on
/// a sheet at once (the page prints with it).
#[derive(Clone, Copy)]
pub enum Loading {
    Lazy,
    Eager,
}

/// A table's board picture, captioned with its table: the API's SVG, served by [`board`].
pub fn board_figure(lang: Lang, event: Uuid, round: u32, table: u32, loading: Loading) -> Markup {
    let w = lang.words();
    let caption = format!("{} · {}", w.board, lang.table_n(table));
    let loading = match loading {
        Loading::Lazy => "lazy",
        Loading::Eager => "eager",
    };
    html! {
        figure class="board" {
            img src=(format!("/events/{event}/rounds/{round}/tables/{table}/board.svg"))
                alt=(caption) width="340" height="390" loading=(loading);
            figcaption class="muted" { (caption) }
        }
    }
}

/// A table's board as the API draws it (SVG), for the pages' pictures.
pub async fn board(ctx: Ctx) -> PageResult {
    let id = ctx.id("id")?;
    let (round, table) = (ctx.number("n")?, ctx.number("t")?);
    let svg = ctx.api.board_svg(id, round, table).await?;
    let etag = catan_kit::conditional::etag_of(svg.as_bytes());
    Ok(catan_kit::conditional::respond(
        &ctx.req,
        actix_web::HttpResponse::Ok(),
        &etag,
        "image/svg+xml",
        svg,
    ))
}

pub(crate) fn placements_block(lang: Lang, placements: Option<&Placements>) -> Markup {
    let w = lang.words();
    match placements {
        Some(p) if p.complete => data_table(
            Some("placements"),
            None,
            &[number(w.place), text(w.player), text(w.stage)],
            html! {
                @for row in &p.rows {
                    tr {
                        td class="num" { (lang.int(u64::from(row.place))) }
                        td {
                            @if let Some(player) = row.player_id {
                                a href=(format!("/players/{player}")) { (name(&row.name)) }
                            } @else { (name(&row.name)) }
                        }
                        td { (stage_word(lang, row.stage)) }
                    }
                }
            },
        ),
        _ => html! { p { (w.placements_pending) } },
    }
}

/// The standings as CSV: the API's figures, unformatted, for a spreadsheet.
pub async fn csv(ctx: Ctx) -> PageResult {
    let id = ctx.id("id")?;
    let standings = ctx.api.any_standings(id).await?;
    let mut rows = Vec::new();
    match standings {
        AnyStandings::Classic(s) => {
            rows.push(
                [
                    "rank",
                    "player_id",
                    "name",
                    "status",
                    "vp",
                    "vp_share",
                    "games",
                    "wins",
                ]
                .map(String::from)
                .to_vec(),
            );
            for r in s.rows {
                rows.push(vec![
                    r.rank.to_string(),
                    r.player_id.to_string(),
                    r.name,
                    format!("{:?}", r.status).to_lowercase(),
                    r.vp.to_string(),
                    r.vp_share,
                    r.games.to_string(),
                    r.wins.to_string(),
                ]);
            }
        }
        AnyStandings::Partner(s) => {
            rows.push(
                [
                    "rank",
                    "entry_id",
                    "team",
                    "status",
                    "points",
                    "vp",
                    "vp_against",
                    "games",
                ]
                .map(String::from)
                .to_vec(),
            );
            for r in s.rows {
                rows.push(vec![
                    r.rank.to_string(),
                    r.entry_id.to_string(),
                    r.team_name,
                    format!("{:?}", r.status).to_lowercase(),
                    r.points.to_string(),
                    r.vp.to_string(),
                    r.vp_against.to_string(),
                    r.games.to_string(),
                ]);
            }
        }
    }
    Ok(super::csv_response(&format!("standings-{id}.csv"), &rows))
}
