//! The venue screen (issue 32): a full-screen page for a projector, in the event's language
//! whatever the viewer chose. A large countdown of the latest round, red in its last five
//! minutes; while the round is in play its tables with their players and every player in
//! alphabetical order with his table and seat, once the round is over (its clock ended, or
//! every table's result in, with or without a clock) the standings. The page shows the clock as read when it was drawn (and, without JavaScript,
//! draws itself again every few seconds); `/static/screen.js` follows the clock's stream and
//! counts down on its own clock corrected by the server's, so it keeps counting offline.

use super::event::{Names, position, standings_table};
use super::{Ctx, stage_word};
use crate::PageResult;
use crate::i18n::Lang;
use crate::layout::{Extras, name};
use actix_web::HttpResponse;
use catan_api::names::folded_name;
use catan_api::{EventLanguage, Round, RoundClockReading, RoundState, TableResult};
use maud::{Markup, html};
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
    let (reading, results) = match latest {
        Some(round) => {
            let (reading, results) = tokio::join!(
                api.round_clock(id, round.number),
                api.round_results(id, round.number)
            );
            (Some(reading?), Some(results?.items))
        }
        None => (None, None),
    };
    let lang = lang_of_event(event.language);
    let w = lang.words();
    let names = Names::of(&entries);
    let finished = match (latest, &results) {
        (Some(round), Some(results)) => every_table_has_a_result(round, results),
        _ => false,
    };
    let phase = Phase::of(latest.map(|r| r.number), reading.as_ref(), finished);
    let over = phase != Phase::InPlay;
    let body = html! {
        header class="screen-head" data-phase=(phase.tag(latest.map(|r| r.number))) {
            h1 { (name(&event.name)) }
            @if let Some(round) = latest {
                p class="screen-round" {
                    (lang.round_n(round.number)) " · " (stage_word(lang, round.stage))
                }
            }
        }
        @match (latest, &reading) {
            (Some(round), Some(reading)) => {
                (clock(lang, id, round, reading, finished, results.as_ref().map_or(0, Vec::len)))
            }
            _ => {
                section class="clock" aria-labelledby="clock-h" {
                    h2 id="clock-h" class="visually-hidden" { (w.time_left) }
                    p class="clock-status" { (w.no_round_in_play) }
                }
            }
        }
        div class="screen-body" {
            @if let (Some(round), Some(reading)) = (latest, &reading) {
                div class="screen-play" data-tables hidden[over] {
                    section class="screen-tables" aria-labelledby="tables-h" {
                        h2 id="tables-h" { (w.tables) }
                        (tables(lang, round, reading, &names))
                    }
                    section class="screen-seats" aria-labelledby="seats-h" {
                        h2 id="seats-h" { (w.find_table) }
                        (seats(lang, round, &names))
                    }
                }
            }
            section class="screen-standings" aria-labelledby="standings-h" data-standings hidden[!over] {
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
    // Without the script the page is as old as its drawing: it draws itself again.
    let extras = Extras {
        head: Some(html! { noscript { meta http-equiv="refresh" content=(REFRESH_SECONDS); } }),
        ..Extras::default()
    };
    let document = crate::layout::bare(lang, &title, "screen", body, &extras);
    Ok(screen_response(lang)
        .content_type("text/html; charset=utf-8")
        .body(document.into_string()))
}

/// What the room is shown: no round drawn yet, the latest round in play (its tables and who
/// sits where), or that round over (the standings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    NoRound,
    InPlay,
    Over,
}

impl Phase {
    /// The latest round's phase: over once its clock has ended or, with or without a clock,
    /// once every table has its result.
    fn of(round: Option<u32>, reading: Option<&RoundClockReading>, finished: bool) -> Phase {
        match (round, reading) {
            (None, _) => Phase::NoRound,
            _ if finished => Phase::Over,
            (Some(_), Some(r)) if r.state == RoundState::Ended => Phase::Over,
            (Some(_), _) => Phase::InPlay,
        }
    }

    /// The phase as `/static/screen.js` compares it with a fresh drawing of the page: a new
    /// round, or the round's end, is a new page.
    fn tag(self, round: Option<u32>) -> String {
        let phase = match self {
            Phase::NoRound => "none",
            Phase::InPlay => "play",
            Phase::Over => "over",
        };
        format!("{}:{phase}", round.unwrap_or(0))
    }
}

/// Whether every table of `round` has a result.
fn every_table_has_a_result(round: &Round, results: &[TableResult]) -> bool {
    !round.tables.is_empty()
        && round
            .tables
            .iter()
            .all(|t| results.iter().any(|r| r.table == t.number))
}

/// Every player of the round in alphabetical order (case and accents aside), with his table and
/// seat: the list people look for when they walk in.
fn seats(lang: Lang, round: &Round, names: &Names) -> Markup {
    let w = lang.words();
    let mut seated: Vec<(String, String, u32, &'static str)> = round
        .tables
        .iter()
        .flat_map(|table| {
            table.seats.iter().map(move |seat| {
                let seated = names.seat(seat.player_id, seat.entry_id);
                (
                    folded_name(&seated),
                    seated,
                    table.number,
                    position(seat.position),
                )
            })
        })
        .collect();
    seated.sort();
    html! {
        div class="screen-scroll" data-scroll tabindex="0" {
            ol class="seat-list" {
                @for (_, seated, table, seat) in &seated {
                    li data-seat {
                        span class="seat-name" { (name(seated)) }
                        " "
                        span class="seat-where" {
                            (lang.table_n(*table)) " · " (w.seat) " " (seat)
                        }
                    }
                }
            }
        }
    }
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

/// The countdown as read, with what the script needs to follow it: the stream, the reading and
/// the words of each state in the event's language.
fn clock(
    lang: Lang,
    id: Uuid,
    round: &Round,
    reading: &RoundClockReading,
    finished: bool,
    results_in: usize,
) -> Markup {
    let w = lang.words();
    // Played without its clock, results coming in: the room is told how many, not that the
    // round has not started, and no dash of a countdown.
    let untimed = !finished && reading.state == RoundState::NotStarted && results_in > 0;
    let not_started = if untimed {
        w.results_in
            .replace("{n}", &lang.int(results_in as u64))
            .replace("{m}", &lang.int(round.tables.len() as u64))
    } else {
        w.clock_not_started.to_owned()
    };
    let round = round.number;
    let left = shown_left_ms(reading);
    let late =
        !finished && left.is_some_and(|ms| ms < LATE_MS) && reading.state != RoundState::NotStarted;
    // Every table has its result: the round is over, whatever its clock (if it had one) says.
    let state = if finished {
        RoundState::Ended
    } else {
        reading.state
    };
    html! {
        section class=(if late { "clock late" } else { "clock" }) aria-labelledby="clock-h" data-clock
            data-stream=(format!("/v1/events/{id}/rounds/{round}/clock/stream"))
            data-finished[finished]
            data-untimed[untimed]
            data-state=(state_tag(reading.state))
            data-ends-at=[reading.ends_at.map(|t| t.to_rfc3339())]
            data-server-time=(reading.server_time.to_rfc3339())
            data-left-ms=[reading.time_left_ms]
            data-extra=(w.extra_minutes) {
            h2 id="clock-h" class="visually-hidden" { (w.time_left) }
            // A round played without its clock shows no dash of a countdown once it is over.
            p class="countdown" role="timer" data-countdown hidden[(finished || untimed) && left.is_none()] {
                (clock_text(left))
            }
            p class="clock-status" role="status" data-status
                data-not-started=(not_started) data-running=(w.clock_running)
                data-paused=(w.clock_paused) data-overtime=(w.clock_overtime)
                data-ended=(w.clock_ended) {
                @if untimed { (not_started) } @else { (state_word(lang, state)) }
            }
            p class="offline" role="alert" data-offline hidden { (w.offline) }
        }
    }
}

/// The round's tables, each with its players in play order and its own extra minutes.
fn tables(lang: Lang, round: &Round, reading: &RoundClockReading, names: &Names) -> Markup {
    html! {
        div class="screen-scroll" data-scroll tabindex="0" {
            ol class="screen-table-list" {
                @for table in &round.tables {
                    li data-table=(table.number) {
                        span class="table-number" { (lang.table_n(table.number)) }
                        " "
                        span class="extra" data-extra-of=(table.number) {
                            (extra_text(lang, reading, table.number))
                        }
                        ul {
                            @for seat in &table.seats {
                                li { (name(&names.seat(seat.player_id, seat.entry_id))) }
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
    fn a_round_is_over_when_its_clock_ends_or_every_table_has_its_result() {
        let reading = |state| RoundClockReading {
            event_id: Uuid::nil(),
            round: 1,
            server_time: chrono::Utc::now(),
            state,
            time_left_ms: None,
            ends_at: None,
            tables: vec![],
            actions: vec![],
        };
        let not_started = reading(RoundState::NotStarted);
        assert_eq!(Phase::of(None, None, false), Phase::NoRound);
        assert_eq!(
            Phase::of(Some(1), Some(&not_started), false),
            Phase::InPlay,
            "drawn, no clock, results still to come"
        );
        assert_eq!(
            Phase::of(Some(1), Some(&not_started), true),
            Phase::Over,
            "no clock, every result in"
        );
        let ended = reading(RoundState::Ended);
        assert_eq!(Phase::of(Some(2), Some(&ended), false), Phase::Over);
        assert_eq!(Phase::Over.tag(Some(2)), "2:over");
        assert_eq!(Phase::NoRound.tag(None), "0:none");
    }

    #[test]
    fn the_screen_speaks_the_events_language() {
        assert_eq!(lang_of_event(EventLanguage::default()), Lang::En);
        assert_eq!(lang_of_event(EventLanguage::Es), Lang::Es);
        assert_eq!(lang_of_event(EventLanguage::Zh).tag(), "zh-Hans");
    }
}
