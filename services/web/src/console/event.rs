//! One event in the console: its players and entries, and its rounds with the control that
//! draws the next one.

use super::{
    ConsoleError, Desk, Done, Said, Shown, all_errors, field_errors, go_saying, signed_in_as,
};
use actix_web::http::StatusCode;
use catan_api::{
    ClientError, CreateEntry, DrawRound, Entry, Event, FieldError, PlayerPin, Role, Round,
    TableResult,
};
use maud::{Markup, PreEscaped, html};
use serde::Deserialize;
use uuid::Uuid;

/// What the event page shows besides the event: a search's matches, new PINs, a refusal.
#[derive(Default)]
struct Extra {
    found: Vec<catan_api::Player>,
    pins: Vec<PlayerPin>,
    /// The page showed PINs before and was loaded again: say they were shown once.
    pins_were_shown: bool,
    errors: Vec<FieldError>,
    refused_draw: Option<Refusal>,
}

/// Why the next round was not drawn, and the latest round's tables without a result.
struct Refusal {
    reason: String,
    round: u32,
    tables_without_result: Vec<u32>,
}

pub async fn page(desk: Desk) -> Result<Shown, ConsoleError> {
    let id = desk.id("id")?;
    let mut extra = Extra {
        pins_were_shown: desk.req.query_string() == super::pins::SHOWN_QUERY,
        ..Extra::default()
    };
    if let Some(q) = desk.param("q") {
        let event = desk.api.event(id).await?;
        extra.found = desk.api.search_players(&q, event.region_id).await?;
    }
    event_page(&desk, id, extra).await
}

async fn event_page(desk: &Desk, id: Uuid, extra: Extra) -> Result<Shown, ConsoleError> {
    let api = &desk.api;
    let (event, entries, rounds, placements, standings) = tokio::join!(
        api.event(id),
        api.entries(id),
        api.rounds(id),
        api.placements(id),
        api.any_standings(id)
    );
    let (event, entries, rounds) = (event?, entries?, rounds?);
    desk.require_event(&event)?;
    let results = results_of(desk, id, &rounds).await?;
    let disputed = disputed_tables(&results);
    let clock = match rounds.last() {
        Some(latest) => Some((latest.number, api.round_clock(id, latest.number).await?)),
        None => None,
    };
    // Ranking learns of a new event within a second: until then it has no standings to show.
    let standings = standings.ok();
    let apart = if event.format == catan_api::EventFormat::Classic {
        Some(api.keep_apart(id).await?)
    } else {
        None
    };
    // Ranking has no placements of an event it has not taken in yet.
    let placements = placements.ok();
    let lang = desk.lang;
    let w = lang.words();
    // Organisers and directors set an event up; only its director draws its rounds.
    let sets_up = desk
        .person
        .may_run(id, event.region_id, &[Role::Director, Role::Organiser]);
    let draws = desk.person.may_run(id, event.region_id, &[Role::Director]);
    let body = html! {
        p class="crumbs" { a href="/console" { (w.console) } }
        h1 { (crate::layout::name(&event.name)) }
        (signed_in_as(lang, &desk.person))
        p {
            a href=(format!("/events/{id}")) { (w.public_page) }
            " · " a href=(format!("/console/events/{id}/audit")) { (w.audit_trail) }
            " · " (lang.date(event.starts_on))
            @if let Some(venue) = &event.venue { " · " (venue) }
        }
        @if !extra.pins.is_empty() {
            (pin_slips(desk, &event, &entries, &extra.pins))
        } @else if extra.pins_were_shown {
            (super::pins::shown_once_notice(desk, &event))
        }
        (disputes_section(desk, &event, &disputed))
        @if matches!(desk.person.role, Role::Admin | Role::Organiser) && sets_up {
            (edit_form(desk, &event))
        }
        @if let Some((n, clock)) = &clock {
            section aria-labelledby="event-clock-h" class="console-clock" {
                h2 id="event-clock-h" { (w.round_clock_of.replace("{round}", &lang.int(u64::from(*n)))) }
                (super::clock::reading_line(lang, clock))
            }
        }
        (rounds_section(desk, &event, &rounds, &results, draws, extra.refused_draw.as_ref()))
        @if let (false, Some(standings)) = (rounds.is_empty(), &standings) {
            section aria-labelledby="standings-h" {
                h2 id="standings-h" { (w.standings) }
                (crate::pages::event::standings_table(lang, id, standings, &format!("/events/{id}/standings-table")))
            }
        }
        @if !rounds.is_empty() {
            section aria-labelledby="placements-h" {
                h2 id="placements-h" { (w.placements) }
                (crate::pages::event::placements_block(lang, placements.as_ref()))
            }
        }
        (players_section(desk, &event, &entries, &extra, sets_up))
        @if let (true, Some(apart)) = (draws, &apart) {
            (super::keep_apart::section(desk, &event, &entries, apart))
        }
    };
    Ok(Shown {
        title: event.name.clone(),
        body,
    })
}

fn rounds_section(
    desk: &Desk,
    event: &Event,
    rounds: &[Round],
    results: &[Vec<TableResult>],
    runs: bool,
    refused: Option<&Refusal>,
) -> Markup {
    let lang = desk.lang;
    let w = lang.words();
    html! {
        section aria-labelledby="rounds-h" {
            h2 id="rounds-h" { (w.rounds) }
            @if rounds.is_empty() { p { (w.none) } }
            ul class="console-rounds" {
                @for (round, results) in rounds.iter().zip(results) {
                    li {
                        a href=(format!("/console/events/{}/rounds/{}", event.id, round.number)) {
                            (w.round) " " (lang.int(u64::from(round.number)))
                        }
                        " · " (crate::pages::stage_word(lang, round.stage))
                        " · " span class="round-state" { (super::round::progress_words(lang, round, results)) }
                        @if round.changed_by_hand { " · " span class="tag changed-by-hand" { (w.changed_by_hand) } }
                    }
                }
            }
            @if let Some(refusal) = refused {
                div class="field-errors" role="alert" id="draw-refused" {
                    p { (w.draw_refused) }
                    p { (refusal.reason) }
                    @if !refusal.tables_without_result.is_empty() {
                        p { (w.tables_without_result) ":" }
                        ul {
                            @for table in &refusal.tables_without_result {
                                li {
                                    a href=(format!("/console/events/{}/rounds/{}/tables/{table}", event.id, refusal.round)) {
                                        (w.table) " " (lang.int(u64::from(*table)))
                                    }
                                }
                            }
                        }
                    }
                }
            }
            @if runs {
                form method="post" action=(format!("/console/events/{}/rounds", event.id)) {
                    (desk.form_fields())
                    button type="submit" { (w.draw_next_round) }
                }
            }
        }
    }
}

fn players_section(
    desk: &Desk,
    event: &Event,
    entries: &[Entry],
    extra: &Extra,
    runs: bool,
) -> Markup {
    let lang = desk.lang;
    let w = lang.words();
    let entered: Vec<Uuid> = entries.iter().flat_map(|e| e.player_ids.clone()).collect();
    html! {
        section aria-labelledby="players-h" {
            h2 id="players-h" { (w.players) " (" (lang.int(entries.len() as u64)) ")" }
            (all_errors(lang, &extra.errors))
            @if entries.is_empty() { p { (w.none) } } @else {
                (super::entries::table(desk, event, entries, runs))
                @if runs { (super::pins::reissue_all_link(desk, event)) }
            }
            @if runs {
                h3 { (w.find_player) }
                form method="get" action=(format!("/console/events/{}", event.id)) role="search" {
                    label for="q" { (w.name) }
                    input id="q" name="q" type="search" value=(desk.param("q").unwrap_or_default());
                    button type="submit" { (w.search) }
                }
                @if desk.param("q").is_some() {
                    @if extra.found.is_empty() { p role="status" { (w.no_player_found) } }
                    ul class="found" {
                        @for player in &extra.found {
                            li {
                                (crate::layout::name(&player.name))
                                @if entered.contains(&player.id) {
                                    " · " (w.entered)
                                } @else if event.format == catan_api::EventFormat::Classic {
                                    form method="post" action=(format!("/console/events/{}/entries", event.id)) class="inline" {
                                        (desk.form_fields())
                                        input type="hidden" name="player_id" value=(player.id);
                                        button type="submit" aria-label=(format!("{} {}", w.enter_player, player.name)) { (w.enter_player) }
                                    }
                                }
                            }
                        }
                    }
                }
                (super::register::form(desk, event))
            }
        }
    }
}

/// "Enter this player": one `POST /v1/events/{id}/entries`.
#[derive(Deserialize)]
pub struct EnterForm {
    player_id: Uuid,
}

pub async fn enter(desk: Desk, form: EnterForm) -> Result<Done, ConsoleError> {
    let id = desk.id("id")?;
    let entered = desk
        .api
        .create_entry(id, &CreateEntry::player(form.player_id))
        .await;
    shown_after(&desk, id, entered.map(|entry| pins_of(vec![entry]))).await
}

/// The PINs the entries' creation answered.
pub(super) fn pins_of(entries: Vec<Entry>) -> Vec<PlayerPin> {
    entries
        .into_iter()
        .flat_map(|entry| entry.pins.into_iter().flatten())
        .collect()
}

/// The event page after a write: the PINs it made shown once, or what was refused beside the
/// form.
pub async fn shown_after(
    desk: &Desk,
    id: Uuid,
    made: Result<Vec<PlayerPin>, ClientError>,
) -> Result<Done, ConsoleError> {
    let mut extra = Extra::default();
    let status = match made {
        Ok(pins) => {
            extra.pins = pins;
            StatusCode::OK
        }
        // The form that showed PINs, sent again (a reload): they were shown once.
        Err(e) if super::pins::is_shown_once(&e) => {
            extra.pins_were_shown = true;
            StatusCode::CONFLICT
        }
        Err(e) => {
            extra.errors = field_errors(e)?;
            StatusCode::UNPROCESSABLE_ENTITY
        }
    };
    Ok(Done::Show(status, event_page(desk, id, extra).await?))
}

/// New PINs as slips to cut out, one a player: the event, the name, the PIN and where to sign
/// in, with a QR code that opens the sign-in with the player picked. Printed alone (the page's
/// print style hides the rest).
fn pin_slips(desk: &Desk, event: &Event, entries: &[Entry], pins: &[PlayerPin]) -> Markup {
    let w = desk.lang.words();
    let names = super::round::names_of(entries);
    let sign_in = format!(
        "{}/events/{}/sign-in",
        desk.state.public_url(&desk.req),
        event.id
    );
    html! {
        // Reloaded (with /static/console.js), the page is the event's saying the PINs were shown.
        section class="pins" aria-labelledby="pins-h" role="status"
            data-reloads-as=(format!("/console/events/{}?{}", event.id, super::pins::SHOWN_QUERY)) {
            h2 id="pins-h" { (w.new_pins) }
            p { (w.pins_shown_once) }
            button type="button" data-print hidden { (w.print_slips) }
            ul class="slips" {
                @for pin in pins {
                    li class="slip" {
                        span class="slip-event" { (crate::layout::name(&event.name)) }
                        span class="slip-name" { (names.get(&pin.player_id).map_or("", String::as_str)) }
                        span { (w.pin) ": " code class="pin" { (pin.pin) } }
                        span class="slip-where" { (w.sign_in_at) " " (sign_in) }
                        // The sign-in with the player picked: never the PIN, which he types.
                        figure class="qr slip-qr" {
                            (PreEscaped(super::keys::qr_svg(&format!("{sign_in}?player={}", pin.player_id), w.slip_scan)))
                            figcaption { (w.slip_scan) }
                        }
                    }
                }
            }
        }
    }
}

/// Each round's results, in the order of `rounds`.
async fn results_of(
    desk: &Desk,
    id: Uuid,
    rounds: &[Round],
) -> Result<Vec<Vec<TableResult>>, ConsoleError> {
    let mut all = Vec::with_capacity(rounds.len());
    for round in rounds {
        all.push(desk.api.round_results(id, round.number).await?.items);
    }
    Ok(all)
}

/// Each round's tables whose result a player disputes.
fn disputed_tables(results: &[Vec<TableResult>]) -> Vec<(u32, u32)> {
    results
        .iter()
        .flatten()
        .filter(|r| r.status == catan_api::ResultStatus::Disputed)
        .map(|r| (r.round, r.table))
        .collect()
}

fn disputes_section(desk: &Desk, event: &Event, disputed: &[(u32, u32)]) -> Markup {
    let lang = desk.lang;
    let w = lang.words();
    html! {
        @if !disputed.is_empty() {
            section aria-labelledby="disputes-h" class="disputes" {
                h2 id="disputes-h" { (w.disputes) " (" (lang.int(disputed.len() as u64)) ")" }
                ul {
                    @for (round, table) in disputed {
                        li {
                            a href=(format!("/console/events/{}/rounds/{round}/tables/{table}", event.id)) {
                                (w.round) " " (lang.int(u64::from(*round))) " · " (w.table) " " (lang.int(u64::from(*table)))
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The event's name and venue, as the API lets them change.
fn edit_form(desk: &Desk, event: &Event) -> Markup {
    let w = desk.lang.words();
    html! {
        details class="edit-event" {
            summary { (w.edit_event) }
            form method="post" action=(format!("/console/events/{}/edit", event.id)) class="console-form" {
                (desk.form_fields())
                label for="edit-name" { (w.event_name) }
                input id="edit-name" name="name" type="text" required maxlength="200" value=(event.name);
                label for="edit-venue" { (w.venue) }
                input id="edit-venue" name="venue" type="text" maxlength="200" value=(event.venue.clone().unwrap_or_default());
                (super::events::players_options(desk.lang, event.player_reporting.as_str(), event.players_may_drop))
                button type="submit" { (w.save) }
            }
        }
    }
}

/// The name, venue and players' options as posted: one `PATCH /v1/events/{id}`.
#[derive(Deserialize)]
pub struct EditForm {
    name: String,
    #[serde(default)]
    venue: String,
    #[serde(default)]
    player_reporting: String,
    /// A checkbox: sent only when ticked.
    #[serde(default)]
    players_may_drop: Option<String>,
}

impl EditForm {
    pub fn to_request(&self) -> catan_api::EditEvent {
        let venue = self.venue.trim();
        catan_api::EditEvent {
            name: Some(self.name.trim().to_owned()),
            venue: (!venue.is_empty()).then(|| venue.to_owned()),
            player_reporting: super::events::choice(&self.player_reporting),
            players_may_drop: Some(self.players_may_drop.is_some()),
        }
    }
}

pub async fn edit(desk: Desk, form: EditForm) -> Result<Done, ConsoleError> {
    let id = desk.id("id")?;
    match desk.api.edit_event(id, &form.to_request()).await {
        Ok(_) => Ok(go_saying(format!("/console/events/{id}"), Said::EventSaved)),
        Err(e) => shown_after(&desk, id, Err(e)).await,
    }
}

/// "Draw the next round": one `POST /v1/events/{id}/rounds`.
#[derive(Deserialize)]
pub struct DrawForm {}

pub async fn draw(desk: Desk, _form: DrawForm) -> Result<Done, ConsoleError> {
    let id = desk.id("id")?;
    match desk.api.draw_round(id, &DrawRound::default()).await {
        Ok(round) => Ok(go_saying(
            format!("/console/events/{id}/rounds/{}", round.number),
            Said::RoundDrawn {
                round: round.number,
            },
        )),
        Err(ClientError::Problem { problem }) if matches!(problem.status, 409 | 422) => {
            let (round, tables_without_result) = tables_without_result(&desk, id).await?;
            let extra = Extra {
                refused_draw: Some(Refusal {
                    reason: problem.detail,
                    round,
                    tables_without_result,
                }),
                ..Extra::default()
            };
            Ok(Done::Show(
                StatusCode::CONFLICT,
                event_page(&desk, id, extra).await?,
            ))
        }
        Err(e) => Err(e.into()),
    }
}

/// The latest round's number and its tables without a result.
async fn tables_without_result(desk: &Desk, id: Uuid) -> Result<(u32, Vec<u32>), ConsoleError> {
    let rounds = desk.api.rounds(id).await?;
    let Some(latest) = rounds.last() else {
        return Ok((0, Vec::new()));
    };
    let results = desk.api.round_results(id, latest.number).await?;
    let missing = latest
        .tables
        .iter()
        .map(|t| t.number)
        .filter(|t| !results.items.iter().any(|r| r.table == *t))
        .collect();
    Ok((latest.number, missing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edit_form_sends_the_players_options_as_shown() {
        let form: EditForm = serde_urlencoded::from_str(
            "name=+Spring+open+&venue=&player_reporting=report&players_may_drop=on&csrf=x",
        )
        .unwrap();
        let body = form.to_request();
        assert_eq!(body.name.as_deref(), Some("Spring open"));
        assert_eq!(body.venue, None);
        assert_eq!(
            body.player_reporting,
            Some(catan_api::PlayerReporting::Report)
        );
        assert_eq!(body.players_may_drop, Some(true));
        let unticked: EditForm =
            serde_urlencoded::from_str("name=Open&player_reporting=off").unwrap();
        let body = unticked.to_request();
        assert_eq!(
            body.players_may_drop,
            Some(false),
            "an unticked box says no"
        );
        assert_eq!(body.player_reporting, Some(catan_api::PlayerReporting::Off));
    }
}
