//! A season: its table (every page of it, or a region's players), the qualification line, who
//! qualified and how (passed-down places named), and the table as CSV.

use super::table::{number, stacked_table, text};
use super::{Ctx, days};
use crate::i18n::Lang;
use crate::kept::{KeptPage, Shared};
use crate::layout::name;
use crate::understood;
use crate::{PageError, PageResult};
use actix_web::web::Bytes;
use catan_api::{
    ApiClient, ClientResult, Conditional, QualifiedPlayer, QualifiedVia, SeasonStandingRow,
    SeasonStandings,
};
use maud::{Markup, html};
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

/// Rows a page of the API's table holds at most.
const PAGE: u32 = 1000;

/// Every row of the season's table, of `region` if given (their whole-season ranks kept).
async fn table(
    api: &ApiClient,
    season: Uuid,
    region: Option<Uuid>,
) -> ClientResult<Vec<SeasonStandingRow>> {
    let mut rows = Vec::new();
    loop {
        let offset = u32::try_from(rows.len()).unwrap_or(u32::MAX);
        let page = api.season_standings_summary(season, PAGE, offset).await?;
        let full = page.rows.len() == PAGE as usize;
        rows.extend(page.rows);
        if !full {
            break;
        }
    }
    if let Some(region) = region {
        rows.retain(|r| r.region_id == Some(region));
    }
    Ok(rows)
}

/// Rows a page of the season's table shows.
const PAGE_ROWS: u32 = 100;

/// The season's page: drawn from one page of the API's table (of a region's players if asked
/// for, with their whole-season ranks). The page is kept as rendered with that answer's `ETag`,
/// and a visit while the API answers `304` to it, with the season, its qualified players and
/// the regions as they were, is served the kept page.
pub async fn page(ctx: Ctx) -> PageResult {
    let id = ctx.id("id")?;
    let region = ctx.param("region").and_then(|r| Uuid::parse_str(r).ok());
    let number = ctx
        .param("page")
        .and_then(|p| p.parse::<u32>().ok())
        .filter(|p| *p >= 1)
        .unwrap_or(1);
    let api = &ctx.api;
    let state = &ctx.state;
    let key = ctx.kept_key();
    let kept = state.pages.get::<SeasonStandings>(&key);
    let bounds = (PAGE_ROWS, (number - 1).saturating_mul(PAGE_ROWS));
    let (season, table, qualified, regions) = tokio::join!(
        state.cached(format!("season {id}"), api.season(id)),
        api.season_standings_summary_unless_unchanged(
            id,
            region,
            bounds,
            kept.as_ref().map(|k| k.source_etag.as_str()),
        ),
        state.cached(format!("qualified {id}"), api.season_qualified(id)),
        ctx.regions(),
    );
    let (season, table, qualified, regions) = (season?, table?, qualified?, regions?);
    let others = vec![
        season.clone() as Shared,
        qualified.clone() as Shared,
        regions.clone() as Shared,
    ];
    let (source, source_etag) = match (table, kept) {
        (Conditional::Unchanged, Some(kept)) if kept.drawn_with(&others) => {
            return Ok(ctx.kept_html(&kept));
        }
        (Conditional::Unchanged, Some(kept)) => {
            (kept.source.clone(), Some(kept.source_etag.clone()))
        }
        (Conditional::Unchanged, None) => {
            return Err(PageError::Unavailable(
                "the API answered 304 to a read without If-None-Match".into(),
            ));
        }
        (Conditional::Changed { value, etag }, _) => (Arc::new(value), etag),
    };
    let rows = &source.rows;
    let link = |page: u32| {
        let mut query = vec![];
        if let Some(r) = region {
            query.push(format!("region={r}"));
        }
        if page > 1 {
            query.push(format!("page={page}"));
        }
        if query.is_empty() {
            format!("/seasons/{id}")
        } else {
            format!("/seasons/{id}?{}", query.join("&"))
        }
    };
    let more = rows.len() == PAGE_ROWS as usize;
    let lang = ctx.lang;
    let w = lang.words();
    let names: HashMap<Uuid, &str> = rows
        .iter()
        .map(|r| (r.player_id, r.name.as_str()))
        .chain(qualified.iter().map(|q| (q.player_id, q.name.as_str())))
        .collect();
    // The line falls below the last place the season table itself gives.
    let line = qualified
        .iter()
        .filter_map(|q| match q.via {
            QualifiedVia::Season { season_rank } => Some(season_rank),
            QualifiedVia::Event { .. } => None,
        })
        .max();
    let csv = match region {
        Some(r) => format!("/seasons/{id}/standings.csv?region={r}"),
        None => format!("/seasons/{id}/standings.csv"),
    };
    let body = html! {
        h1 { (name(&season.name)) }
        p class="muted" { (days(lang, season.starts_on, season.ends_on)) }
        form class="inline" method="get" action=(format!("/seasons/{id}")) {
            label { (w.region) br;
                select name="region" {
                    option value="" { (w.all_regions) }
                    @for r in regions.iter() {
                        option value=(r.id) selected[Some(r.id) == region] { (r.name) }
                    }
                }
            }
            button type="submit" { (w.filter) }
        }
        section aria-labelledby="table-h" {
            h2 id="table-h" { (w.standings) }
            @if let Some(line) = line {
                p class="muted" {
                    (w.qualification_line) (w.colon) (w.n_place.replace("{n}", &lang.int(u64::from(line))))
                }
            }
            (standings(lang, rows, line))
            @if number > 1 || more {
                nav class="pages" aria-label=(w.standings) {
                    @if number > 1 { a rel="prev" href=(link(number - 1)) { "← " (lang.int(u64::from(number - 1))) } " " }
                    span aria-current="page" { (lang.int(u64::from(number))) }
                    @if more { " " a rel="next" href=(link(number + 1)) { (lang.int(u64::from(number + 1))) " →" } }
                }
            }
            p { a href=(csv) download { (w.download_csv) } }
        }
        section aria-labelledby="qualified-h" {
            h2 id="qualified-h" { (w.qualified_players) }
            (qualified_list(lang, &qualified, &names))
        }
    };
    let html = Bytes::from(ctx.document(&season.name, body));
    let page = KeptPage {
        etag: catan_kit::conditional::etag_of(&html),
        html,
        source,
        others,
        source_etag: source_etag.unwrap_or_default(),
    };
    let response = ctx.kept_html(&page);
    // An answer without an `ETag` cannot be asked for conditionally: its page is not kept.
    if !page.source_etag.is_empty() {
        state.pages.keep(key, page);
    }
    Ok(response)
}

fn standings(lang: Lang, rows: &[SeasonStandingRow], line: Option<u32>) -> Markup {
    let w = lang.words();
    let columns = [
        number(w.rank),
        text(w.player),
        number(w.points),
        number(w.events_counted),
        number(w.wins),
        number(w.best_place),
        text(w.qualified),
        text(w.outlook),
    ];
    let rows = html! {
        @for (i, row) in rows.iter().enumerate() {
            @let last_above = line.is_some_and(|l| row.rank <= l
                && rows.get(i + 1).is_none_or(|next| next.rank > l));
            tr class=[last_above.then_some("line")] {
                td class="num rank" data-label=(w.rank) { (lang.int(u64::from(row.rank))) }
                td class="lead" {
                    a href=(format!("/players/{}", row.player_id)) { (name(&row.name)) }
                    @if let (Some(behind), Some(above)) = (&row.behind, i.checked_sub(1).and_then(|a| rows.get(a))) {
                        br; small class="muted why" { (understood::separation(lang, above, row, behind)) }
                    }
                }
                td class="num" data-label=(w.points) { (lang.decimal(&row.points)) }
                td class="num" data-label=(w.events_counted) { (lang.int(u64::from(row.events_counted))) "/" (lang.int(u64::from(row.events_played))) }
                td class="num" data-label=(w.wins) { (lang.int(u64::from(row.wins))) }
                td class="num" data-label=(w.best_place) { @if let Some(best) = row.best_place { (lang.int(u64::from(best))) } }
                td { @if row.qualified { span class="tag ok" { "✓ " (w.qualified) } } }
                td class="outlook" {
                    @if let Some(outlook) = row.qualification {
                        (understood::qualification(lang, outlook))
                    }
                }
            }
        }
    };
    stacked_table(Some("season"), Some(w.season), &columns, rows)
}

fn qualified_list(
    lang: Lang,
    qualified: &[QualifiedPlayer],
    names: &HashMap<Uuid, &str>,
) -> Markup {
    let w = lang.words();
    html! {
        @if qualified.is_empty() { p { (w.none) } }
        @else {
            ul id="qualified" {
                @for q in qualified {
                    li {
                        a href=(format!("/players/{}", q.player_id)) { (name(&q.name)) } (w.colon)
                        @match q.via {
                            QualifiedVia::Event { event_id, place } => {
                                (w.via_event) " · "
                                a href=(format!("/events/{event_id}")) { (w.event) }
                                " · " (w.n_place.replace("{n}", &lang.int(u64::from(place))))
                            }
                            QualifiedVia::Season { season_rank } => {
                                (w.via_season.replace("{n}", &lang.int(u64::from(season_rank))))
                            }
                        }
                        @if let Some(from) = q.passed_down_from {
                            " (" (w.passed_down_from) " "
                            a href=(format!("/players/{from}")) { (name(names.get(&from).copied().unwrap_or("?"))) }
                            ")"
                        }
                    }
                }
            }
        }
    }
}

/// The season's table as CSV, of a region if given.
pub async fn csv(ctx: Ctx) -> PageResult {
    let id = ctx.id("id")?;
    let region = ctx.param("region").and_then(|r| Uuid::parse_str(r).ok());
    let rows = table(&ctx.api, id, region).await?;
    let mut out = vec![
        [
            "rank",
            "player_id",
            "name",
            "points",
            "events_played",
            "events_counted",
            "wins",
            "best_place",
            "qualified",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for r in rows {
        out.push(vec![
            r.rank.to_string(),
            r.player_id.to_string(),
            r.name,
            r.points,
            r.events_played.to_string(),
            r.events_counted.to_string(),
            r.wins.to_string(),
            r.best_place.map_or_else(String::new, |b| b.to_string()),
            r.qualified.to_string(),
        ]);
    }
    Ok(super::csv_response(&format!("season-{id}.csv"), &out))
}
