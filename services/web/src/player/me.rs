//! "My event": the player's table now (round, table, seat, turn order, the table's players, the
//! board of a partner table and the table's time left), his results with a confirmation and a
//! dispute for each he has not confirmed, his standing, and as the event allows the form that
//! reports his table's result and the way to drop out. Kept by the phone for reading offline,
//! with the time it was drawn.

use super::{Phone, PhonePage};
use crate::console::round::state_word;
use crate::console::sheet::Seating;
use crate::console::{ConsoleError, errors_for};
use crate::i18n::Lang;
use crate::pages::event::{Loading, board_figure, position};
use catan_api::{
    AnyStandings, Entry, EntryStatus, Event, EventFormat, FieldError, PlayerReporting,
    RoundClockReading, RoundState, TableResult,
};
use chrono::{DateTime, Utc};
use maud::{Markup, html};
use std::collections::HashMap;
use uuid::Uuid;

/// A form of the page the API refused, drawn again with the refusal beside its fields.
pub struct Refused {
    pub round: u32,
    pub table: u32,
    pub errors: Vec<FieldError>,
}

pub async fn page(phone: Phone) -> Result<PhonePage, ConsoleError> {
    my_event(&phone, None).await
}

/// The player's table in the latest round: its round and table numbers and the seats.
struct MyTable<'a> {
    round: &'a catan_api::Round,
    table: &'a catan_api::Table,
}

/// The page, with `refused` beside its form.
pub async fn my_event(phone: &Phone, refused: Option<&Refused>) -> Result<PhonePage, ConsoleError> {
    let (id, me, api) = (phone.event_id, phone.me(), &phone.api);
    let (event, entries, rounds, standings, myself) = tokio::join!(
        api.event(id),
        api.entries(id),
        api.rounds(id),
        api.any_standings(id),
        api.player(me)
    );
    let (event, entries, rounds, myself) = (event?, entries?, rounds?, myself?);
    // Ranking learns of a new event within a second: until then it has no standings.
    let standings = standings.ok();
    let results = futures_util::future::try_join_all(
        rounds
            .iter()
            .map(|round| api.round_results(id, round.number)),
    )
    .await?;
    let mine: Vec<&TableResult> = results
        .iter()
        .flat_map(|list| list.items.iter())
        .filter(|r| r.scores.iter().any(|s| s.player_id == me))
        .collect();
    let my_table = rounds.last().and_then(|round| {
        let table = round
            .tables
            .iter()
            .find(|t| t.seats.iter().any(|s| s.player_id == me))?;
        Some(MyTable { round, table })
    });
    let (seating, clock) = match &my_table {
        Some(at) => {
            let (seating, clock) = tokio::join!(
                Seating::of(api, at.round, at.table.number, &entries),
                api.table_clock(id, at.round.number, at.table.number)
            );
            (Some(seating?), clock.ok())
        }
        None => (None, None),
    };
    let lang = phone.lang;
    let w = lang.words();
    let now = Utc::now();
    let my_entry = entries.iter().find(|e| e.player_ids.contains(&me));
    let names = crate::console::round::names_of(&entries);
    let reporting = |round: u32| {
        rounds
            .iter()
            .find(|r| r.number == round)
            .map_or(PlayerReporting::Off, |r| r.player_reporting)
    };
    let body = html! {
        h1 { (w.my_event) }
        p class="my-name" {
            strong { (myself.name) } " · " a href=(format!("/events/{id}")) { (event.name) }
        }
        (updated(lang, now))
        section class="waiting" data-offline-waiting hidden aria-labelledby="waiting-h" {
            h2 id="waiting-h" { (w.waiting_to_send) }
        }
        section aria-labelledby="table-h" id="my-table" {
            h2 id="table-h" { (w.my_table) }
            @match (&my_table, &seating) {
                (Some(at), Some(seating)) => {
                    (table_now(phone, &event, at, seating, clock.as_ref(), now))
                    @let reported = mine.iter().any(|r| r.round == at.round.number && r.table == at.table.number);
                    @if at.round.player_reporting == PlayerReporting::Report && !reported {
                        p {
                            a class="button-link" href=(format!("/events/{id}/me/rounds/{}/tables/{}/report", at.round.number, at.table.number)) {
                                (w.report_our_result)
                            }
                        }
                    }
                }
                _ => p { (w.no_table_now) },
            }
        }
        section aria-labelledby="results-h" id="results" {
            h2 id="results-h" { (w.my_results) }
            @if mine.is_empty() { p { (w.none) } }
            ul class="my-results" {
                @for result in mine.iter().rev() {
                    (result_item(phone, result, &names, reporting(result.round), refused))
                }
            }
        }
        section aria-labelledby="standing-h" id="standing" {
            h2 id="standing-h" { (w.my_standing) }
            (standing(lang, standings.as_ref(), me, my_entry))
        }
        (dropping(phone, &event, my_entry))
    };
    Ok(PhonePage {
        title: format!("{} · {}", w.my_event, event.name),
        body,
        offline_at: Some(now),
    })
}

/// "Round 2 · Table 3".
pub(super) fn round_and_table(lang: Lang, n: u32, t: u32) -> String {
    let w = lang.words();
    format!(
        "{} {} · {} {}",
        w.round,
        lang.int(u64::from(n)),
        w.table,
        lang.int(u64::from(t))
    )
}

/// "Updated 14:05 UTC": when the page was drawn.
pub(super) fn updated(lang: Lang, at: DateTime<Utc>) -> Markup {
    html! {
        p class="muted updated" {
            (lang.words().updated) " "
            time datetime=(at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)) { (at.format("%H:%M")) " UTC" }
        }
    }
}

/// Where the player sits now: the round, the table, his seat and turn, the table's players in
/// turn order, the partner table's board, and the table's time left.
fn table_now(
    phone: &Phone,
    event: &Event,
    at: &MyTable<'_>,
    seating: &Seating,
    clock: Option<&RoundClockReading>,
    now: DateTime<Utc>,
) -> Markup {
    let lang = phone.lang;
    let w = lang.words();
    let (n, t) = (at.round.number, at.table.number);
    let me = phone.me();
    let turn = at.table.seats.iter().position(|s| s.player_id == me);
    let seat = turn.and_then(|i| at.table.seats.get(i));
    let left = clock.and_then(|c| minutes_left(c, t, now));
    html! {
        dl class="my-seat" {
            dt { (w.round) } dd data-round { (lang.int(u64::from(n))) " · " (crate::pages::stage_word(lang, at.round.stage)) }
            dt { (w.table) } dd data-table { (lang.int(u64::from(t))) }
            @if let (Some(seat), Some(turn)) = (seat, turn) {
                dt { (w.seat) } dd data-seat { (position(seat.position)) " · " (lang.plays_nth(u32::try_from(turn + 1).unwrap_or(0))) }
            }
            @if let Some(minutes) = left {
                dt { (w.time_left) } dd data-time-left { strong { (lang.int(minutes)) } " " (w.minutes_short) }
            }
        }
        h3 { (w.play_order) }
        ol class="turn-order" {
            @for seat in &at.table.seats {
                li aria-current=[(seat.player_id == me).then_some("true")] {
                    span class="tag" { (position(seat.position)) } " " (seating.name(seat.player_id))
                    @if seat.player_id == me { " (" (w.you) ")" }
                }
            }
        }
        @if event.format == EventFormat::Partner {
            (board_figure(lang, event.id, n, t, Loading::Eager))
        }
    }
}

/// Whole minutes left at table `table` (rounded up), while its clock runs with an end time.
fn minutes_left(reading: &RoundClockReading, table: u32, now: DateTime<Utc>) -> Option<u64> {
    if reading.state != RoundState::Running {
        return None;
    }
    let ends_at = reading
        .tables
        .iter()
        .find(|c| c.table == table)
        .and_then(|c| c.ends_at)
        .or(reading.ends_at)?;
    let ms = (ends_at - now).num_milliseconds().max(0);
    u64::try_from(ms.div_euclid(60_000) + i64::from(ms % 60_000 > 0)).ok()
}

/// One result of the player's: its table, its state, his VP, the table's whole sheet (each
/// player's VP and credited VP); and while he has neither confirmed nor disputed it (and the
/// round lets players), a confirmation and a dispute with its reason.
fn result_item(
    phone: &Phone,
    result: &TableResult,
    names: &HashMap<Uuid, String>,
    reporting: PlayerReporting,
    refused: Option<&Refused>,
) -> Markup {
    let lang = phone.lang;
    let w = lang.words();
    let me = phone.me();
    let (n, t) = (result.round, result.table);
    let base = format!("/events/{}/me/rounds/{n}/tables/{t}", phone.event_id);
    let my_vp = result
        .scores
        .iter()
        .find(|s| s.player_id == me)
        .map(|s| s.vp);
    let my_dispute = result
        .disputes
        .iter()
        .find(|d| d.player_id == me && d.resolved_by_version.is_none());
    let errors: &[FieldError] = match refused {
        Some(r) if (r.round, r.table) == (n, t) => &r.errors,
        _ => &[],
    };
    let reason_id = format!("reason-{n}-{t}");
    let at_table = round_and_table(lang, n, t);
    html! {
        li id=(format!("result-{n}-{t}")) data-state=(format!("{:?}", result.status).to_lowercase()) {
            p { strong { (at_table) } " · " (state_word(lang, Some(result.status))) }
            p {
                @if let Some(vp) = my_vp { (vp) " " (w.vp) }
                @if result.winner_player_id == Some(me) { " · " (w.winner) }
            }
            (table_sheet(lang, result, names, me))
            (errors_for(lang, errors, ""))
            @if result.confirmed_by.contains(&me) {
                p class="done" { (w.you_confirmed) }
            } @else if let Some(dispute) = my_dispute {
                p class="done" { (w.you_disputed) ": " (dispute.reason) }
            } @else if reporting != PlayerReporting::Off {
                form method="post" action=(format!("{base}/confirm")) class="phone-form" data-offline-queue
                    data-offline-label=(format!("{}: {at_table}", w.confirm_result)) {
                    (phone.form_fields())
                    button type="submit" { (w.confirm_result) }
                }
                form method="post" action=(format!("{base}/dispute")) class="phone-form dispute" data-offline-queue
                    data-offline-label=(format!("{}: {at_table}", w.dispute_result)) {
                    (phone.form_fields())
                    label for=(reason_id) { (w.dispute_reason) }
                    input id=(reason_id) name="reason" type="text" required maxlength="500"
                        aria-invalid=[errors.iter().any(|e| e.field == "reason").then_some("true")];
                    (errors_for(lang, errors, "reason"))
                    button type="submit" class="secondary" { (w.dispute_result) }
                }
            }
        }
    }
}

/// Every line of a result's sheet, as stacked lines a phone reads without scrolling sideways:
/// the player (in bidi isolation), his VP and the VP credited, and who won.
fn table_sheet(
    lang: Lang,
    result: &TableResult,
    names: &HashMap<Uuid, String>,
    me: Uuid,
) -> Markup {
    let w = lang.words();
    html! {
        ul class="table-sheet" aria-label=(w.table_sheet) data-table-sheet {
            @for score in &result.scores {
                li aria-current=[(score.player_id == me).then_some("true")] data-player=(score.player_id) {
                    bdi { (names.get(&score.player_id).cloned().unwrap_or_else(|| score.player_id.to_string())) }
                    @if score.player_id == me { " (" (w.you) ")" }
                    ": "
                    span data-vp { (lang.int(u64::from(score.vp))) " " (w.vp) }
                    " · " (w.credited) " "
                    strong data-credited { (lang.int(u64::from(score.credited_vp))) }
                    @if result.winner_player_id == Some(score.player_id) { " · " (w.winner) }
                }
            }
        }
    }
}

/// The player's rank among all, and his figures.
fn standing(
    lang: Lang,
    standings: Option<&AnyStandings>,
    me: Uuid,
    entry: Option<&Entry>,
) -> Markup {
    let w = lang.words();
    let found = match standings {
        Some(AnyStandings::Classic(s)) => s.rows.iter().find(|r| r.player_id == me).map(|r| {
            let figures = format!(
                "{} {} · {}: {}",
                lang.int(u64::from(r.vp)),
                w.vp,
                w.games,
                lang.int(u64::from(r.games))
            );
            (r.rank, s.rows.len(), s.after_round, figures)
        }),
        Some(AnyStandings::Partner(s)) => entry
            .and_then(|e| s.rows.iter().find(|r| r.entry_id == e.id))
            .map(|r| {
                let figures = format!(
                    "{}: {} · {} {}",
                    w.points,
                    lang.int(u64::from(r.points)),
                    lang.int(u64::from(r.vp)),
                    w.vp
                );
                (r.rank, s.rows.len(), s.after_round, figures)
            }),
        None => None,
    };
    html! {
        @match found {
            Some((rank, of, after, figures)) => {
                p class="my-rank" data-rank=(rank) {
                    (w.rank) " " strong { (lang.int(u64::from(rank))) } " " (w.of_total) " " (lang.int(of as u64))
                }
                p { (figures) }
                p class="muted" { (w.after_round_n.replace("{n}", &lang.int(u64::from(after)))) }
            }
            None => p { (w.not_ranked_yet) },
        }
    }
}

/// The way out of the event (a page that asks first), where the event lets players drop.
fn dropping(phone: &Phone, event: &Event, entry: Option<&Entry>) -> Markup {
    let w = phone.lang.words();
    let active = entry.is_some_and(|e| e.status == EntryStatus::Active);
    html! {
        @if entry.is_some() && !active {
            p class="done" role="status" { (w.you_dropped) }
        } @else if event.players_may_drop && active {
            section aria-labelledby="drop-h" {
                h2 id="drop-h" { (w.drop_myself) }
                p { a class="button-link secondary" href=(format!("/events/{}/me/drop", event.id)) { (w.drop_myself) } }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(state: RoundState, ends_at: Option<DateTime<Utc>>) -> RoundClockReading {
        RoundClockReading {
            event_id: Uuid::nil(),
            round: 1,
            server_time: Utc::now(),
            state,
            time_left_ms: None,
            ends_at,
            tables: vec![catan_api::TableClock {
                table: 2,
                extra_minutes: 10,
                time_left_ms: None,
                ends_at: ends_at.map(|at| at + chrono::Duration::minutes(10)),
                time_up: false,
            }],
            actions: Vec::new(),
        }
    }

    #[test]
    fn a_tables_time_left_is_its_own_in_whole_minutes_rounded_up_while_the_clock_runs() {
        let now = Utc::now();
        let ends = now + chrono::Duration::seconds(20 * 60 + 5);
        let running = reading(RoundState::Running, Some(ends));
        assert_eq!(
            minutes_left(&running, 1, now),
            Some(21),
            "the round's own time"
        );
        assert_eq!(
            minutes_left(&running, 2, now),
            Some(31),
            "the table's extra minutes"
        );
        let late = reading(
            RoundState::Running,
            Some(now - chrono::Duration::minutes(1)),
        );
        assert_eq!(minutes_left(&late, 1, now), Some(0));
        assert_eq!(
            minutes_left(&reading(RoundState::Paused, None), 1, now),
            None
        );
        assert_eq!(
            minutes_left(&reading(RoundState::NotStarted, None), 1, now),
            None
        );
    }
}
