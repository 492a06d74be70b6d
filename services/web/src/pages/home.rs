//! The home page: regions, running, upcoming and recently finished events, current seasons.

use super::{Ctx, days, format_word};
use crate::PageResult;
use crate::layout::name;
use catan_api::{EventSearch, EventStatus};
use maud::html;

/// How far back the finished events shown go, in days.
const RECENT_DAYS: u64 = 14;

pub async fn page(ctx: Ctx) -> PageResult {
    let api = &ctx.api;
    let running = EventSearch {
        status: Some(EventStatus::Running),
        ..EventSearch::default()
    };
    let planned = EventSearch {
        status: Some(EventStatus::Planned),
        ..EventSearch::default()
    };
    let today = chrono::Utc::now().date_naive();
    // Finished events whose days reach into the last fortnight: those finished by their
    // placements ahead of their last day among them.
    let finished = EventSearch {
        status: Some(EventStatus::Finished),
        from: today.checked_sub_days(chrono::Days::new(RECENT_DAYS)),
        ..EventSearch::default()
    };
    let (regions, running, planned, finished, seasons) = tokio::join!(
        ctx.regions(),
        api.events(&running, 50, 0),
        api.events(&planned, 50, 0),
        api.events(&finished, 50, 0),
        api.seasons(None),
    );
    let (regions, running, planned, mut finished, mut seasons) =
        (regions?, running?, planned?, finished?, seasons?);
    // The latest first.
    finished.reverse();
    seasons.retain(|s| s.ends_on >= today);
    seasons.sort_by_key(|s| (s.starts_on, s.name.clone()));
    let region_name = |id: Option<uuid::Uuid>| {
        id.and_then(|id| regions.iter().find(|r| r.id == id))
            .map(|r| r.name.clone())
    };
    let lang = ctx.lang;
    let w = lang.words();
    let events = |list: &[catan_api::Event]| {
        html! {
            @if list.is_empty() { p { (w.none) } }
            @else {
                ul {
                    @for e in list {
                        li {
                            a href=(format!("/events/{}", e.id)) { (name(&e.name)) }
                            span class="muted" {
                                " · " (days(lang, e.starts_on, e.ends_on))
                                " · " (format_word(lang, e.format))
                                @if let Some(region) = region_name(e.region_id) { " · " (name(&region)) }
                            }
                        }
                    }
                }
            }
        }
    };
    let body = html! {
        h1 { (w.site) }
        p { a href="/v1/events.ics" type="text/calendar" { (w.calendar) } }
        section aria-labelledby="running-h" {
            h2 id="running-h" { (w.running_events) }
            (events(&running))
        }
        section aria-labelledby="upcoming-h" {
            h2 id="upcoming-h" { (w.upcoming_events) }
            (events(&planned))
        }
        section aria-labelledby="finished-h" {
            h2 id="finished-h" { (w.finished_events) }
            (events(&finished))
        }
        section aria-labelledby="seasons-h" {
            h2 id="seasons-h" { (w.current_seasons) }
            @if seasons.is_empty() { p { (w.none) } }
            @else {
                ul {
                    @for s in &seasons {
                        li {
                            a href=(format!("/seasons/{}", s.id)) { (name(&s.name)) }
                            span class="muted" {
                                " · " (days(lang, s.starts_on, s.ends_on))
                                @if let Some(region) = region_name(s.region_id) { " · " (name(&region)) }
                            }
                        }
                    }
                }
            }
        }
        section aria-labelledby="regions-h" {
            h2 id="regions-h" { (w.regions) }
            @if regions.is_empty() { p { (w.none) } }
            @else {
                ul {
                    @for r in regions.iter() {
                        li { (name(&r.name)) " · " a href=(format!("/ratings?region={}", r.id)) { (w.ratings) } }
                    }
                }
            }
        }
    };
    Ok(ctx.html(w.home, body))
}
