//! A round's printable sheets: one A4 page per table with the event, round and table, the
//! players in play order with their seats, boxes for each one's VP and its breakdown
//! (settlements, cities, VP cards, longest road, largest army), the winner box and a signature
//! line for every player (the tournament rules have the sheet signed by all players); a partner
//! table's sheet also carries its board, beside the signatures so that the page holds it.

use super::event::{Loading, Names, board_figure, position};
use super::{Ctx, stage_word};
use crate::PageResult;
use crate::layout::name;
use catan_api::EventFormat;
use maud::html;

pub async fn page(ctx: Ctx) -> PageResult {
    let id = ctx.id("id")?;
    let number = ctx.number("n")?;
    let api = &ctx.api;
    let (event, round, entries) =
        tokio::join!(api.event(id), api.round(id, number), api.entries(id));
    let (event, round, entries) = (event?, round?, entries?);
    let names = Names::of(&entries);
    let lang = ctx.lang;
    let w = lang.words();
    // The boxes a player's line has, each named for a phone that shows them one under another.
    let boxes = [
        w.settlements,
        w.cities,
        w.vp_cards,
        w.longest_road,
        w.largest_army,
        w.total_vp,
    ];
    let title = format!("{} · {}", event.name, lang.round_n(number));
    let body = html! {
        @for table in &round.tables {
            section class="sheet" aria-label=(lang.table_n(table.number)) {
                h1 { (w.sheet) }
                p {
                    strong { (name(&event.name)) } br;
                    (lang.round_n(round.number)) " · " (stage_word(lang, round.stage)) " · "
                    (lang.table_n(table.number))
                }
                table class="stack" {
                    thead { tr {
                        th scope="col" { (w.play_order) }
                        th scope="col" { (w.seat) }
                        th scope="col" { (w.player) }
                        th scope="col" { (w.settlements) }
                        th scope="col" { (w.cities) }
                        th scope="col" { (w.vp_cards) }
                        th scope="col" { (w.longest_road) }
                        th scope="col" { (w.largest_army) }
                        th scope="col" { (w.total_vp) }
                    } }
                    tbody {
                        @for (order, seat) in table.seats.iter().enumerate() {
                            tr {
                                td class="rank" { (lang.ordinal(u32::try_from(order + 1).unwrap_or(0))) }
                                td data-label=(w.seat) { (position(seat.position)) }
                                th scope="row" class="lead" { (name(&names.seat(seat.player_id, seat.entry_id))) }
                                @for label in boxes {
                                    td class="box" data-label=(label) {}
                                }
                            }
                        }
                    }
                }
                div class="sheet-foot" {
                    div {
                        h2 { (w.winner) }
                        div class="winner" {}
                        h2 { (w.signatures) }
                        p class="muted" { (w.sheet_rule) }
                        @for seat in &table.seats {
                            div class="signature" {
                                span { (name(&names.seat(seat.player_id, seat.entry_id))) " — " (w.signature) (w.colon.trim_end()) }
                            }
                        }
                    }
                    @if round.format == EventFormat::Partner {
                        (board_figure(lang, id, round.number, table.number, Loading::Eager))
                    }
                }
            }
        }
    };
    Ok(ctx.html(&title, body))
}
