//! The round's clock in the console (issue 32): its state and time left as read when the page
//! was drawn, and the director's controls: start, pause, resume, more minutes for the round or
//! one table, end the round now.

use super::{ConsoleError, Desk, Done, Said, errors_for, field_errors, go_saying};
use crate::i18n::Lang;
use actix_web::http::StatusCode;
use catan_api::{ClockActionKind, ClockChange, Event, FieldError, RoundClockReading, RoundState};
use maud::{Markup, html};
use serde::Deserialize;

/// The clock's controls for a round in `state`.
pub fn controls(
    desk: &Desk,
    event: &Event,
    round: u32,
    reading: &RoundClockReading,
    errors: &[FieldError],
) -> Markup {
    let lang = desk.lang;
    let w = lang.words();
    let action = format!("/console/events/{}/rounds/{round}/clock", event.id);
    let minutes = event.minutes_per_game.unwrap_or(60);
    let button = |kind: &str, label: &str| {
        html! {
            form method="post" action=(action) class="inline" {
                (desk.form_fields())
                input type="hidden" name="action" value=(kind);
                button type="submit" { (label) }
            }
        }
    };
    html! {
        section aria-labelledby="clock-h" class="console-clock" {
            h2 id="clock-h" { (w.clock) }
            (reading_line(lang, reading))
            (errors_for(lang, errors, ""))
            (errors_for(lang, errors, "action"))
            div class="clock-buttons" {
                @match reading.state {
                    RoundState::NotStarted => {
                        form method="post" action=(action) class="inline" {
                            (desk.form_fields())
                            input type="hidden" name="action" value="start";
                            label for="start-minutes" { (w.minutes) }
                            input id="start-minutes" name="minutes" type="number" min="1" max="1440" value=(minutes);
                            button type="submit" { (w.start_round) }
                        }
                    }
                    RoundState::Running | RoundState::Overtime => {
                        (button("pause", w.pause))
                        (button("end_early", w.end_round_now))
                    }
                    RoundState::Paused => {
                        (button("resume", w.resume))
                        (button("end_early", w.end_round_now))
                    }
                    RoundState::Ended => {}
                }
            }
            @if matches!(reading.state, RoundState::Running | RoundState::Paused | RoundState::Overtime) {
                form method="post" action=(action) class="clock-extend" {
                    (desk.form_fields())
                    label for="extend-minutes" { (w.more_minutes) }
                    input id="extend-minutes" name="minutes" type="number" min="1" max="1440" value="5" required;
                    label for="extend-table" { (w.for_table) }
                    input id="extend-table" name="table" type="number" min="1" aria-describedby="extend-help";
                    p id="extend-help" class="help" { (w.extend_help) }
                    (errors_for(lang, errors, "minutes"))
                    (errors_for(lang, errors, "table"))
                    button type="submit" name="action" value="extend" { (w.give_minutes) }
                }
            }
        }
    }
}

/// The clock's state and time left as read when the page was drawn; while the round runs, the
/// console's script counts the time down each second from there (a reload reads it anew).
pub fn reading_line(lang: Lang, reading: &RoundClockReading) -> Markup {
    let w = lang.words();
    let ticks = reading.state == RoundState::Running;
    html! {
        p role="status" {
            (state_word(lang, reading.state))
            @if let Some(left) = reading.time_left_ms {
                " · " (w.time_left) ": "
                // A timer is not read out at each tick.
                strong role="timer" aria-live="off" data-left-ms=[ticks.then_some(left)] {
                    (minutes_and_seconds(left))
                }
            }
        }
    }
}

fn minutes_and_seconds(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

pub fn state_word(lang: Lang, state: RoundState) -> &'static str {
    let w = lang.words();
    match state {
        RoundState::NotStarted => w.clock_not_started,
        RoundState::Running => w.clock_running,
        RoundState::Paused => w.clock_paused,
        RoundState::Overtime => w.clock_overtime,
        RoundState::Ended => w.clock_ended,
    }
}

/// A clock control as posted: one `POST .../rounds/{n}/clock`. `extend` with a table number
/// gives that table the minutes, without one the round.
#[derive(Debug, Deserialize)]
pub struct ClockForm {
    action: String,
    #[serde(default)]
    minutes: String,
    #[serde(default)]
    table: String,
}

impl ClockForm {
    pub fn to_request(&self) -> Result<ClockChange, Vec<FieldError>> {
        let number = |field: &str, text: &str| -> Result<Option<i64>, Vec<FieldError>> {
            let text = text.trim();
            if text.is_empty() {
                return Ok(None);
            }
            text.parse().map(Some).map_err(|_| {
                vec![FieldError {
                    field: field.to_owned(),
                    code: catan_api::ErrorCode::InvalidJson,
                    message: String::new(),
                }]
            })
        };
        let minutes = number("minutes", &self.minutes)?;
        let table = number("table", &self.table)?.and_then(|t| u32::try_from(t).ok());
        let action = match (self.action.as_str(), table) {
            ("start", _) => ClockActionKind::Start,
            ("pause", _) => ClockActionKind::Pause,
            ("resume", _) => ClockActionKind::Resume,
            ("end_early", _) => ClockActionKind::EndEarly,
            ("extend", Some(_)) => ClockActionKind::ExtendTable,
            ("extend", None) => ClockActionKind::ExtendRound,
            _ => {
                return Err(vec![FieldError {
                    field: "action".into(),
                    code: catan_api::ErrorCode::Required,
                    message: String::new(),
                }]);
            }
        };
        let takes_minutes = matches!(
            action,
            ClockActionKind::Start | ClockActionKind::ExtendRound | ClockActionKind::ExtendTable
        );
        Ok(ClockChange {
            action,
            minutes: minutes.filter(|_| takes_minutes),
            table: table.filter(|_| action == ClockActionKind::ExtendTable),
        })
    }
}

pub async fn change(desk: Desk, form: ClockForm) -> Result<Done, ConsoleError> {
    let (id, n) = (desk.id("id")?, desk.number("n")?);
    let sent = match form.to_request() {
        Ok(change) => desk
            .api
            .change_clock(id, n, &change)
            .await
            .map(|_| change)
            .map_err(field_errors),
        Err(errors) => Err(Ok(errors)),
    };
    match sent {
        Ok(change) => Ok(go_saying(
            format!("/console/events/{id}/rounds/{n}"),
            said(&change),
        )),
        Err(Err(refused)) => Err(refused),
        Err(Ok(errors)) => Ok(Done::Show(
            StatusCode::UNPROCESSABLE_ENTITY,
            super::round::round_page(&desk, id, n, &errors).await?,
        )),
    }
}

/// What the change did, in words on the round's page.
fn said(change: &ClockChange) -> Said {
    let minutes = change
        .minutes
        .and_then(|m| u32::try_from(m).ok())
        .unwrap_or_default();
    match change.action {
        ClockActionKind::Start => Said::ClockStarted,
        ClockActionKind::Pause => Said::ClockPaused,
        ClockActionKind::Resume => Said::ClockResumed,
        ClockActionKind::EndEarly => Said::RoundEnded,
        ClockActionKind::ExtendRound => Said::MinutesGiven {
            minutes,
            table: None,
        },
        ClockActionKind::ExtendTable => Said::MinutesGiven {
            minutes,
            table: change.table,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(action: &str, minutes: &str, table: &str) -> ClockForm {
        ClockForm {
            action: action.into(),
            minutes: minutes.into(),
            table: table.into(),
        }
    }

    #[test]
    fn more_minutes_go_to_the_table_named_else_to_the_round() {
        let table = form("extend", "10", "3").to_request().unwrap();
        assert_eq!(
            (table.action, table.minutes, table.table),
            (ClockActionKind::ExtendTable, Some(10), Some(3))
        );
        let round = form("extend", "5", " ").to_request().unwrap();
        assert_eq!(
            (round.action, round.minutes, round.table),
            (ClockActionKind::ExtendRound, Some(5), None)
        );
    }

    #[test]
    fn a_pause_carries_no_minutes_and_a_bad_number_is_named() {
        let pause = form("pause", "5", "").to_request().unwrap();
        assert_eq!(
            (pause.action, pause.minutes),
            (ClockActionKind::Pause, None)
        );
        let wrong = form("start", "sixty", "").to_request().unwrap_err();
        assert_eq!(wrong[0].field, "minutes");
        assert!(form("launch", "", "").to_request().is_err());
    }

    #[test]
    fn time_left_reads_as_minutes_and_seconds() {
        assert_eq!(minutes_and_seconds(61_500), "1:01");
        assert_eq!(minutes_and_seconds(-5), "0:00");
    }
}
