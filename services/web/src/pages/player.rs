//! A player: his profile, events, seasons and places, a rating chart drawn on the server, and
//! head-to-head with another player (chosen by name).

use super::table::{number, stacked_table, text};
use super::{Ctx, name_matches};
use crate::PageResult;
use crate::i18n::Lang;
use crate::layout::name;
use catan_api::{HeadToHead, Player};
use maud::{Markup, html};
use uuid::Uuid;

pub async fn page(ctx: Ctx) -> PageResult {
    let id = ctx.id("id")?;
    let api = &ctx.api;
    let (profile, ratings) = tokio::join!(api.player_profile(id), api.player_ratings(id));
    let (profile, ratings) = (profile?, ratings?);
    let lang = ctx.lang;
    let w = lang.words();
    let vs = ctx.param("vs").and_then(|v| Uuid::parse_str(v).ok());
    let vs_name = ctx.param("vs_name").map(str::to_owned);
    let mut h2h = None;
    let mut choices: Vec<Player> = Vec::new();
    if let Some(other) = vs {
        h2h = api.head_to_head(id, other).await.ok();
    } else if let Some(name) = &vs_name {
        choices = api.search_players(name, None).await?;
        choices.retain(|p| p.id != id && name_matches(&p.name, name));
        if let [only] = choices.as_slice() {
            h2h = api.head_to_head(id, only.id).await.ok();
            choices.clear();
        }
    }
    let history: Vec<f64> = ratings.games.iter().map(|g| g.rating_after).collect();
    let r = &profile.rating;
    let body = html! {
        h1 { (name(&profile.name)) }
        section aria-labelledby="profile-h" {
            h2 id="profile-h" { (w.profile) }
            dl {
                dt { (w.rating) } dd { (lang.float(r.rating, 2)) }
                dt { (w.games) } dd { (lang.int(u64::from(r.games))) }
                dt { (w.trend) } dd {
                    @if r.trend >= 0.0 { "+" } (lang.float(r.trend, 2))
                    " (" (lang.n_games(r.trend_games)) ")"
                }
            }
        }
        section aria-labelledby="chart-h" {
            h2 id="chart-h" { (w.rating_chart) }
            @match crate::chart::rating_chart(&history, w.rating_chart) {
                Some(svg) => (svg),
                None => p { (w.rating_chart_empty) },
            }
        }
        section aria-labelledby="events-h" {
            h2 id="events-h" { (w.events) }
            p { a href=(format!("/v1/players/{}/events.ics", profile.player_id)) type="text/calendar" { (w.calendar) } }
            @if profile.events.is_empty() { p { (w.none) } }
            @else {
                (stacked_table(
                    Some("events"),
                    None,
                    &[text(w.event), text(w.dates), number(w.place), number(w.games), number(w.vp), number(w.vp_share)],
                    html! {
                        @for e in &profile.events {
                            tr {
                                td class="lead" { a href=(format!("/events/{}", e.event_id)) { (name(&e.event_name)) } }
                                td data-label=(w.dates) { (lang.date(e.starts_on)) }
                                td class="num" data-label=(w.place) {
                                    @if let Some(place) = e.place { (lang.int(u64::from(place))) }
                                    "/" (lang.int(u64::from(e.field_size)))
                                }
                                td class="num" data-label=(w.games) { (lang.int(u64::from(e.games))) }
                                td class="num" data-label=(w.vp) { (lang.int(u64::from(e.vp))) }
                                td class="num" data-label=(w.vp_share) { (lang.decimal(&e.vp_share)) }
                            }
                        }
                    },
                ))
            }
        }
        @if !profile.seasons.is_empty() {
            section aria-labelledby="seasons-h" {
                h2 id="seasons-h" { (w.seasons) }
                ul {
                    @for s in &profile.seasons {
                        li {
                            a href=(format!("/seasons/{}", s.season_id)) { (name(&s.name)) }
                            (w.colon) (w.n_place.replace("{n}", &lang.int(u64::from(s.rank))))
                            " · " (w.n_points.replace("{n}", &lang.decimal(&s.points)))
                            @if s.qualified { " " span class="tag ok" { "✓ " (w.qualified) } }
                        }
                    }
                }
            }
        }
        section aria-labelledby="h2h-h" id="h2h" {
            h2 id="h2h-h" { (w.head_to_head) }
            form class="inline" method="get" action=(format!("/players/{id}#h2h")) {
                label { (w.opponent) br;
                    input type="search" name="vs_name" value=[vs_name.as_deref()];
                }
                button type="submit" { (w.compare) }
            }
            @if !choices.is_empty() {
                p { (w.choose_player) }
                ul {
                    @for p in choices.iter().take(20) {
                        li { a href=(format!("/players/{id}?vs={}#h2h", p.id)) { (name(&p.name)) } }
                    }
                }
            }
            @if let Some(h) = &h2h { (head_to_head(lang, h)) }
        }
    };
    Ok(ctx.html(&profile.name, body))
}

fn head_to_head(lang: Lang, h: &HeadToHead) -> Markup {
    let w = lang.words();
    html! {
        p id="h2h-summary" {
            (w.ahead) " " strong { (lang.int(u64::from(h.ahead))) } " · "
            (w.behind) " " strong { (lang.int(u64::from(h.behind))) } " · "
            (w.level) " " strong { (lang.int(u64::from(h.level))) }
        }
        @if !h.games.is_empty() {
            (stacked_table(
                None,
                None,
                &[text(w.event), number(w.round), number(w.table), number(w.place), number(w.opponent)],
                html! {
                    @for g in &h.games {
                        tr {
                            td class="lead" { a href=(format!("/events/{}", g.event_id)) { (name(&g.event_name)) } }
                            td class="num" data-label=(w.round) { (lang.int(u64::from(g.round))) }
                            td class="num" data-label=(w.table) { (lang.int(u64::from(g.table))) }
                            td class="num" data-label=(w.place) { (lang.ordinal(g.place)) " (" (w.n_vp.replace("{n}", &lang.int(u64::from(g.vp)))) ")" }
                            td class="num" data-label=(w.opponent) { (lang.ordinal(g.opponent_place)) " (" (w.n_vp.replace("{n}", &lang.int(u64::from(g.opponent_vp)))) ")" }
                        }
                    }
                },
            ))
        }
    }
}
