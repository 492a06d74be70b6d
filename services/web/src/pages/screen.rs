//! The venue screen (issue 32): a full-screen page for a projector, in the event's language
//! whatever the viewer chose. A large countdown of the latest round, red in its last five
//! minutes; while the round is in play its tables with their players, between rounds the
//! standings. The page shows the clock as read when it was drawn (and, without JavaScript,
//! draws itself again every few seconds); `/static/screen.js` follows the clock's stream and
//! counts down on its own clock corrected by the server's, so it keeps counting offline.

use super::event::{Names, standings_table};
use super::{Ctx, stage_word};
use crate::PageResult;
use crate::i18n::Lang;
use actix_web::HttpResponse;
use catan_api::{EventLanguage, Round, RoundClockReading, RoundState};
use maud::{DOCTYPE, Markup, html};
use uuid::Uuid;

/// Below this much time left the countdown turns red.
pub const LATE_MS: i64 = 5 * 60_000;

/// How often the page draws itself again when JavaScript is off, in seconds.
const REFRESH_SECONDS: u32 = 15;

/// The screen's language: the event's.
pub fn lang_of_event(language: EventLanguage) -> Lang {
    match language {
        EventLanguage::En => Lang::En,
        EventLanguage::Es => Lang::Es,
        EventLanguage::Zh => Lang::Zh,
    }
}

pub async fn page(ctx: Ctx) -> PageResult {
    let id = ctx.id("id")?;
    let api = &ctx.api;
    let (event, rounds, entries, standings) = tokio::join!(
        api.event(id),
        api.rounds(id),
        api.entries(id),
        api.any_standings(id),
    );
    let event = event?;
    let rounds = rounds?;
    let entries = entries?;
    // Ranking learns of a new event within a second: until then it has no standings to show.
    let standings = standings.ok();
    let latest = rounds.last();
    let reading = match latest {
        Some(round) => Some(api.round_clock(id, round.number).await?),
        None => None,
    };
    let lang = lang_of_event(event.language);
    let w = lang.words();
    let names = Names::of(&entries);
    // Between rounds (none drawn, or the latest one over) the room wants the standings.
    let between = reading
        .as_ref()
        .is_none_or(|r| r.state == RoundState::Ended);
    let body = html! {
        header class="screen-head" {
            h1 { (event.name) }
            @if let Some(round) = latest {
                p class="screen-round" {
                    (w.round) " " (lang.int(u64::from(round.number))) " · " (stage_word(lang, round.stage))
                }
            }
        }
        @match (latest, &reading) {
            (Some(round), Some(reading)) => { (clock(lang, id, round.number, reading)) }
            _ => {
                section class="clock" aria-labelledby="clock-h" {
                    h2 id="clock-h" class="visually-hidden" { (w.time_left) }
                    p class="clock-status" { (w.no_round_in_play) }
                }
            }
        }
        div class="screen-body" {
            @if let (Some(round), Some(reading)) = (latest, &reading) {
                section class="screen-tables" aria-labelledby="tables-h" data-tables hidden[between] {
                    h2 id="tables-h" { (w.tables) }
                    (tables(lang, round, reading, &names))
                }
            }
            section class="screen-standings" aria-labelledby="standings-h" data-standings hidden[!between] {
                h2 id="standings-h" { (w.standings) }
                div class="screen-scroll" data-scroll tabindex="0" {
                    @if let Some(standings) = &standings {
                        (standings_table(lang, id, standings, &format!("/events/{id}/screen/standings-table")))
                    }
                }
            }
        }
        script src="/static/screen.js" defer {}
        script src="/static/live.js" defer {}
    };
    let title = format!("{} · {}", event.name, w.screen);
    Ok(screen_response(lang)
        .content_type("text/html; charset=utf-8")
        .body(document(lang, &title, body).into_string()))
}

/// The standings table alone in the event's language: what `/static/live.js` redraws the
/// screen's table with.
pub async fn standings_fragment(ctx: Ctx) -> PageResult {
    let id = ctx.id("id")?;
    let (event, standings) = tokio::join!(ctx.api.event(id), ctx.api.any_standings(id));
    let lang = lang_of_event(event?.language);
    let fragment = format!("/events/{id}/screen/standings-table");
    Ok(screen_response(lang)
        .content_type("text/html; charset=utf-8")
        .body(standings_table(lang, id, &standings?, &fragment).into_string()))
}

/// The screen's answer before its body: in the event's language, never kept (it shows a clock).
fn screen_response(lang: Lang) -> actix_web::HttpResponseBuilder {
    let mut response = HttpResponse::Ok();
    response
        .insert_header(("content-language", lang.tag()))
        .insert_header(("cache-control", "no-store"));
    response
}

/// The whole document: no site navigation nor language switcher, the room only looks at it.
fn document(lang: Lang, title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang=(lang.tag()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                link rel="stylesheet" href="/static/style.css";
                // Without the script the page is as old as its drawing: it draws itself again.
                noscript { meta http-equiv="refresh" content=(REFRESH_SECONDS); }
            }
            body class="screen" {
                main { (body) }
            }
        }
    }
}

/// The countdown as read, with what the script needs to follow it: the stream, the reading and
/// the words of each state in the event's language.
fn clock(lang: Lang, id: Uuid, round: u32, reading: &RoundClockReading) -> Markup {
    let w = lang.words();
    let left = shown_left_ms(reading);
    let late = left.is_some_and(|ms| ms < LATE_MS) && reading.state != RoundState::NotStarted;
    html! {
        section class=(if late { "clock late" } else { "clock" }) aria-labelledby="clock-h" data-clock
            data-stream=(format!("/v1/events/{id}/rounds/{round}/clock/stream"))
            data-state=(state_tag(reading.state))
            data-ends-at=[reading.ends_at.map(|t| t.to_rfc3339())]
            data-server-time=(reading.server_time.to_rfc3339())
            data-left-ms=[reading.time_left_ms]
            data-extra=(w.extra_minutes) {
            h2 id="clock-h" class="visually-hidden" { (w.time_left) }
            p class="countdown" role="timer" data-countdown { (clock_text(left)) }
            p class="clock-status" role="status" data-status
                data-not-started=(w.clock_not_started) data-running=(w.clock_running)
                data-paused=(w.clock_paused) data-overtime=(w.clock_overtime)
                data-ended=(w.clock_ended) {
                (state_word(lang, reading.state))
            }
            p class="offline" role="alert" data-offline hidden { (w.offline) }
        }
    }
}

/// The round's tables, each with its players in play order and its own extra minutes.
fn tables(lang: Lang, round: &Round, reading: &RoundClockReading, names: &Names) -> Markup {
    let w = lang.words();
    html! {
        div class="screen-scroll" data-scroll tabindex="0" {
            ol class="screen-table-list" {
                @for table in &round.tables {
                    li data-table=(table.number) {
                        span class="table-number" { (w.table) " " (lang.int(u64::from(table.number))) }
                        " "
                        span class="extra" data-extra-of=(table.number) {
                            (extra_text(lang, reading, table.number))
                        }
                        ul {
                            @for seat in &table.seats {
                                li { (names.seat(seat.player_id, seat.entry_id)) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// "+10 min" for a table given minutes of its own, else nothing.
fn extra_text(lang: Lang, reading: &RoundClockReading, table: u32) -> String {
    reading
        .tables
        .iter()
        .find(|t| t.table == table && t.extra_minutes > 0)
        .map(|t| {
            lang.words()
                .extra_minutes
                .replace("{n}", &t.extra_minutes.to_string())
        })
        .unwrap_or_default()
}

/// The round's time left as the screen shows it: up once overtime or over.
fn shown_left_ms(reading: &RoundClockReading) -> Option<i64> {
    match reading.state {
        RoundState::Overtime | RoundState::Ended => Some(0),
        _ => reading.time_left_ms,
    }
}

/// The state as the script names it (the API's names).
fn state_tag(state: RoundState) -> &'static str {
    match state {
        RoundState::NotStarted => "not_started",
        RoundState::Running => "running",
        RoundState::Paused => "paused",
        RoundState::Overtime => "overtime",
        RoundState::Ended => "ended",
    }
}

fn state_word(lang: Lang, state: RoundState) -> &'static str {
    let w = lang.words();
    match state {
        RoundState::NotStarted => w.clock_not_started,
        RoundState::Running => w.clock_running,
        RoundState::Paused => w.clock_paused,
        RoundState::Overtime => w.clock_overtime,
        RoundState::Ended => w.clock_ended,
    }
}

/// Time left as a countdown shows it: `m:ss`, `h:mm:ss` from an hour, whole seconds rounded up
/// (0:00 only once the time is up); a dash before the start.
pub fn clock_text(left_ms: Option<i64>) -> String {
    let Some(ms) = left_ms else {
        return "–:––".to_string();
    };
    let seconds = (ms.max(0) + 999) / 1000;
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_countdown_reads_minutes_and_seconds_rounded_up() {
        assert_eq!(clock_text(None), "–:––");
        assert_eq!(clock_text(Some(0)), "0:00");
        assert_eq!(clock_text(Some(-5)), "0:00");
        assert_eq!(clock_text(Some(1)), "0:01", "not up until it is");
        assert_eq!(clock_text(Some(59_001)), "1:00");
        assert_eq!(clock_text(Some(5 * 60_000)), "5:00");
        assert_eq!(clock_text(Some(90 * 60_000)), "1:30:00");
    }

    #[test]
    fn the_screen_speaks_the_events_language() {
        assert_eq!(lang_of_event(EventLanguage::default()), Lang::En);
        assert_eq!(lang_of_event(EventLanguage::Es), Lang::Es);
        assert_eq!(lang_of_event(EventLanguage::Zh).tag(), "zh-Hans");
    }
}
