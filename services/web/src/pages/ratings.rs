//! The ratings leaderboard, of a region or everyone, with a minimum of games; provisional
//! players (fewer games than the minimum the API settles on) are marked.

use super::Ctx;
use super::table::{number, stacked_table, text};
use crate::PageResult;
use crate::layout::name;
use maud::html;
use uuid::Uuid;

pub async fn page(ctx: Ctx) -> PageResult {
    let region = ctx.param("region").and_then(|r| Uuid::parse_str(r).ok());
    let min_games = ctx.param("min_games").and_then(|m| m.parse::<u32>().ok());
    let (board, regions) = tokio::join!(
        ctx.api.ratings_leaderboard(region, min_games),
        ctx.regions()
    );
    let (board, regions) = (board?, regions?);
    let lang = ctx.lang;
    let w = lang.words();
    let body = html! {
        h1 { (w.ratings) }
        form class="inline" method="get" action="/ratings" {
            label { (w.region) br;
                select name="region" {
                    option value="" { (w.all_regions) }
                    @for r in regions.iter() {
                        option value=(r.id) selected[Some(r.id) == region] { (r.name) }
                    }
                }
            }
            label { (w.min_games) br;
                input type="number" name="min_games" min="0" inputmode="numeric"
                    value=[min_games] style="width:6rem";
            }
            button type="submit" { (w.filter) }
        }
        (stacked_table(
            Some("ratings"),
            Some(w.leaderboard),
            &[number(w.rank), text(w.player), number(w.rating), number(w.games)],
            html! {
                @for row in &board.rows {
                    tr {
                        td class="num rank" data-label=(w.rank) { (lang.int(u64::from(row.rank))) }
                        td class="lead" {
                            a href=(format!("/players/{}", row.player_id)) { (name(&row.name)) }
                            @if row.provisional { " " span class="tag" { (w.provisional) } }
                        }
                        td class="num" data-label=(w.rating) { (lang.float(row.rating, 2)) }
                        td class="num" data-label=(w.games) { (lang.int(u64::from(row.games))) }
                    }
                }
            },
        ))
    };
    Ok(ctx.html(w.ratings, body))
}
