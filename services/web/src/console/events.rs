//! The console's first page: the events the signed-in person runs, and (for the admin and
//! organisers) a new event.

use super::{ConsoleError, Desk, Done, Shown, errors_for, field_errors, signed_in_as};
use crate::i18n::Lang;
use actix_web::http::StatusCode;
use catan_api::{
    CreateEvent, Event, EventFormat, EventLanguage, EventSearch, FieldError, Region, Role,
};
use maud::{Markup, html};
use serde::Deserialize;

/// The events shown at most.
const LISTED: u32 = 200;

pub async fn list(desk: Desk) -> Result<Shown, ConsoleError> {
    let events = my_events(&desk).await?;
    let regions = desk.api.regions().await?;
    let w = desk.lang.words();
    let body = html! {
        h1 { (w.console) }
        (signed_in_as(desk.lang, &desk.person))
        @if may_create(&desk) {
            nav aria-label=(w.console) class="console-nav" {
                a href="/console/keys" { (w.api_keys) }
                " · "
                a href="/console/seasons" { (w.seasons) }
                " · "
                a href="/console/duplicates" { (w.duplicates) }
            }
        }
        section aria-labelledby="my-events" {
            h2 id="my-events" { (w.my_events) }
            @if events.is_empty() {
                p { (w.none) }
            } @else {
                ul class="console-events" {
                    @for event in &events {
                        li {
                            a href=(format!("/console/events/{}", event.id)) { (event.name) }
                            " · " (desk.lang.date(event.starts_on))
                        }
                    }
                }
            }
        }
        @if may_create(&desk) {
            (new_event_form(&desk, &regions, &EventForm::default(), &[]))
        }
        @if desk.person.role == Role::Admin {
            section aria-labelledby="new-region" {
                h2 id="new-region" { (w.new_region) }
                form method="post" action="/console/regions" class="console-form" {
                    (desk.form_fields())
                    label for="region-name" { (w.name) }
                    input id="region-name" name="name" type="text" required maxlength="200";
                    button type="submit" { (w.create_region) }
                }
            }
        }
    };
    Ok(Shown {
        title: w.console.to_owned(),
        body,
    })
}

/// The events of the person's key: all for the admin, his regions' for an organiser, the ones
/// his key names for a director or scorer.
pub(super) async fn my_events(desk: &Desk) -> Result<Vec<Event>, ConsoleError> {
    let api = &desk.api;
    let mut events = match desk.person.role {
        Role::Admin => api.events(&EventSearch::default(), LISTED, 0).await?,
        Role::Organiser => {
            let mut events = Vec::new();
            for region in desk.person.region_ids.iter().flatten() {
                let search = EventSearch {
                    region_id: Some(*region),
                    ..EventSearch::default()
                };
                events.extend(api.events(&search, LISTED, 0).await?);
            }
            events
        }
        _ => {
            let mut events = Vec::new();
            for id in desk.person.event_ids.iter().flatten() {
                events.push(api.event(*id).await?);
            }
            events
        }
    };
    events.sort_by(|a, b| b.starts_on.cmp(&a.starts_on).then(a.name.cmp(&b.name)));
    Ok(events)
}

fn may_create(desk: &Desk) -> bool {
    matches!(desk.person.role, Role::Admin | Role::Organiser)
}

/// The new-event form as posted: every field as typed, read into the API's body on sending.
#[derive(Debug, Default, Deserialize)]
pub struct EventForm {
    name: String,
    #[serde(default)]
    region_id: String,
    #[serde(default)]
    format: String,
    #[serde(default)]
    starts_on: String,
    #[serde(default)]
    ends_on: String,
    #[serde(default)]
    venue: String,
    #[serde(default)]
    rounds: String,
    #[serde(default)]
    minutes_per_game: String,
    #[serde(default)]
    language: String,
    #[serde(default)]
    practice: Option<String>,
    #[serde(default)]
    small_field_playoff: String,
    #[serde(default)]
    board_mode: String,
    #[serde(default)]
    standings_count: String,
    #[serde(default)]
    time_limit_rule: String,
    #[serde(default)]
    team_target_vp: String,
    #[serde(default)]
    thinking_seconds_per_turn: String,
    #[serde(default)]
    bye_points: String,
    #[serde(default)]
    player_reporting: String,
    #[serde(default)]
    players_may_drop: Option<String>,
}

/// A choice of the form as the API's value (its snake_case name); blank for the default.
pub(super) fn choice<T: serde::de::DeserializeOwned>(text: &str) -> Option<T> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    serde_json::from_value(serde_json::Value::String(text.to_owned())).ok()
}

impl EventForm {
    /// The API's body, or the fields that do not read (before the API is asked).
    fn to_request(&self) -> Result<CreateEvent, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut wrong = |field: &str| {
            errors.push(FieldError {
                field: field.to_owned(),
                code: catan_api::ErrorCode::InvalidJson,
                message: String::new(),
            })
        };
        let format = if self.format == "partner" {
            EventFormat::Partner
        } else {
            EventFormat::Classic
        };
        let optional = |text: &str| {
            let text = text.trim();
            (!text.is_empty()).then(|| text.to_owned())
        };
        let region_id = optional(&self.region_id).and_then(|v| uuid::Uuid::parse_str(&v).ok());
        let date = |text: &str| optional(text).map(|v| v.parse::<chrono::NaiveDate>());
        let starts_on = match date(&self.starts_on) {
            Some(Ok(day)) => Some(day),
            Some(Err(_)) => {
                wrong("starts_on");
                None
            }
            None => None,
        };
        let ends_on = match date(&self.ends_on) {
            Some(Ok(day)) => Some(day),
            Some(Err(_)) => {
                wrong("ends_on");
                None
            }
            None => None,
        };
        let whole = |text: &str| optional(text).map(|v| v.parse::<i64>());
        let rounds = match whole(&self.rounds) {
            Some(Ok(n)) => Some(n),
            Some(Err(_)) => {
                wrong("rounds");
                None
            }
            None => None,
        };
        let minutes_per_game = match whole(&self.minutes_per_game) {
            Some(Ok(n)) => Some(n),
            Some(Err(_)) => {
                wrong("minutes_per_game");
                None
            }
            None => None,
        };
        let mut whole_of = |field: &str, text: &str| match whole(text) {
            Some(Ok(n)) => Some(n),
            Some(Err(_)) => {
                wrong(field);
                None
            }
            None => None,
        };
        let team_target_vp = whole_of("team_target_vp", &self.team_target_vp);
        let thinking = whole_of("thinking_seconds_per_turn", &self.thinking_seconds_per_turn);
        let bye_points = whole_of("bye_points", &self.bye_points);
        let language = match self.language.as_str() {
            "es" => Some(EventLanguage::Es),
            "zh" => Some(EventLanguage::Zh),
            "en" => Some(EventLanguage::En),
            _ => None,
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        let (qualifying_rounds, swiss_rounds) = match format {
            EventFormat::Classic => (rounds, None),
            EventFormat::Partner => (None, rounds),
        };
        Ok(CreateEvent {
            name: self.name.trim().to_owned(),
            region_id,
            format,
            starts_on,
            ends_on,
            venue: optional(&self.venue),
            qualifying_rounds,
            small_field_playoff: choice(&self.small_field_playoff)
                .filter(|_| format == EventFormat::Classic),
            board_mode: choice(&self.board_mode),
            swiss_rounds,
            team_target_vp: team_target_vp.filter(|_| format == EventFormat::Partner),
            minutes_per_game: minutes_per_game.filter(|_| format == EventFormat::Classic),
            thinking_seconds_per_turn: thinking.filter(|_| format == EventFormat::Partner),
            time_limit_rule: choice(&self.time_limit_rule)
                .filter(|_| format == EventFormat::Partner),
            bye_points: bye_points.filter(|_| format == EventFormat::Partner),
            standings_count: choice(&self.standings_count),
            practice: self.practice.as_ref().map(|_| true),
            language,
            player_reporting: choice(&self.player_reporting),
            players_may_drop: self.players_may_drop.as_ref().map(|_| true),
        })
    }
}

/// `POST /console/events`: one `POST /v1/events`.
pub async fn create(desk: Desk, form: EventForm) -> Result<Done, ConsoleError> {
    let sent = match form.to_request() {
        Ok(body) => desk.api.create_event(&body).await.map_err(field_errors),
        Err(errors) => Err(Ok(errors)),
    };
    match sent {
        Ok(event) => Ok(Done::GoTo(format!("/console/events/{}", event.id))),
        Err(Err(refused)) => Err(refused),
        Err(Ok(errors)) => {
            let regions = desk.api.regions().await?;
            let w = desk.lang.words();
            Ok(Done::Show(
                StatusCode::UNPROCESSABLE_ENTITY,
                Shown {
                    title: w.new_event.to_owned(),
                    body: new_event_form(&desk, &regions, &form, &errors),
                },
            ))
        }
    }
}

/// The new-event form, filled with `form` and with `errors` beside their fields.
fn new_event_form(
    desk: &Desk,
    regions: &[Region],
    form: &EventForm,
    errors: &[FieldError],
) -> Markup {
    let lang = desk.lang;
    let w = lang.words();
    let mine = desk.person.own_regions(regions);
    let rounds_field = if errors.iter().any(|e| e.field == "swiss_rounds") {
        "swiss_rounds"
    } else {
        "qualifying_rounds"
    };
    html! {
        section aria-labelledby="new-event" {
            h2 id="new-event" { (w.new_event) }
            (errors_for(lang, errors, ""))
            form method="post" action="/console/events" class="console-form" {
                (desk.form_fields())
                (text_field(lang, "name", w.event_name, &form.name, errors, true))
                label for="region_id" { (w.region) }
                select id="region_id" name="region_id" {
                    @if desk.person.role == Role::Admin { option value="" { "—" } }
                    @for region in &mine {
                        option value=(region.id) selected[form.region_id == region.id.to_string()] { (region.name) }
                    }
                }
                (errors_for(lang, errors, "region_id"))
                fieldset {
                    legend { (w.format) }
                    label { input type="radio" name="format" value="classic" checked[form.format != "partner"]; " " (w.classic) }
                    label { input type="radio" name="format" value="partner" checked[form.format == "partner"]; " " (w.partner) }
                }
                (date_field(lang, "starts_on", w.first_day, &form.starts_on, errors))
                (date_field(lang, "ends_on", w.last_day, &form.ends_on, errors))
                (text_field(lang, "venue", w.venue, &form.venue, errors, false))
                label for="rounds" { (w.rounds_to_play) }
                input id="rounds" name="rounds" type="number" min="1" max="15" inputmode="numeric" value=(form.rounds);
                (errors_for(lang, errors, "rounds"))
                (errors_for(lang, errors, rounds_field))
                label for="minutes_per_game" { (w.minutes_per_game) }
                input id="minutes_per_game" name="minutes_per_game" type="number" min="1" inputmode="numeric" value=(form.minutes_per_game);
                (errors_for(lang, errors, "minutes_per_game"))
                (options_fields(lang, form, errors))
                label for="language" { (w.screen_language) }
                select id="language" name="language" {
                    @for (tag, name) in [("en", "English"), ("es", "Español"), ("zh", "中文")] {
                        option value=(tag) selected[form.language == tag] { (name) }
                    }
                }
                label { input type="checkbox" name="practice" value="on" checked[form.practice.is_some()]; " " (w.practice_event) }
                (players_options(lang, &form.player_reporting, form.players_may_drop.is_some()))
                button type="submit" { (w.create_event) }
            }
        }
    }
}

/// The options of each format, each with the API's default first.
fn options_fields(lang: Lang, form: &EventForm, errors: &[FieldError]) -> Markup {
    let w = lang.words();
    let select = |name: &str, label: &str, current: &str, options: &[(&str, &str)]| {
        html! {
            label for=(name) { (label) }
            select id=(name) name=(name) {
                @for (value, text) in options {
                    option value=(value) selected[current == *value] { (text) }
                }
            }
            (errors_for(lang, errors, name))
        }
    };
    let number = |name: &str, label: &str, current: &str| {
        html! {
            label for=(name) { (label) }
            input id=(name) name=(name) type="number" min="0" inputmode="numeric" value=(current);
            (errors_for(lang, errors, name))
        }
    };
    html! {
        (select("board_mode", w.board_mode, &form.board_mode,
            &[("", w.board_each_table), ("same_for_round", w.board_same_for_round)]))
        (select("standings_count", w.standings_count, &form.standings_count,
            &[("", w.count_posted), ("confirmed", w.count_confirmed)]))
        fieldset {
            legend { (w.classic_options) }
            (select("small_field_playoff", w.small_field_playoff, &form.small_field_playoff,
                &[("", w.final_of_top4), ("no_playoff", w.no_playoff)]))
        }
        fieldset {
            legend { (w.partner_options) }
            (number("team_target_vp", w.team_target_vp, &form.team_target_vp))
            (number("thinking_seconds_per_turn", w.thinking_seconds, &form.thinking_seconds_per_turn))
            (select("time_limit_rule", w.time_limit_rule, &form.time_limit_rule,
                &[("", w.more_vp_wins), ("draw", w.time_limit_draw), ("no_winner", w.time_limit_no_winner)]))
            (number("bye_points", w.bye_points, &form.bye_points))
        }
    }
}

/// The players' options (issue 31): who reports results, and whether players may drop out on
/// their own. The event form and the edit form both show them.
pub(super) fn players_options(lang: Lang, reporting: &str, may_drop: bool) -> Markup {
    let w = lang.words();
    html! {
        label for="player_reporting" { (w.player_reporting) }
        select id="player_reporting" name="player_reporting" {
            @for (value, text) in [("confirm", w.reporting_confirm), ("off", w.reporting_off), ("report", w.reporting_report)] {
                option value=(value) selected[reporting == value] { (text) }
            }
        }
        label { input type="checkbox" name="players_may_drop" value="on" checked[may_drop]; " " (w.players_may_drop) }
    }
}

fn text_field(
    lang: Lang,
    name: &str,
    label: &str,
    value: &str,
    errors: &[FieldError],
    required: bool,
) -> Markup {
    html! {
        label for=(name) { (label) }
        input id=(name) name=(name) type="text" value=(value) required[required]
            aria-invalid=[errors.iter().any(|e| e.field == name).then_some("true")];
        (errors_for(lang, errors, name))
    }
}

fn date_field(lang: Lang, name: &str, label: &str, value: &str, errors: &[FieldError]) -> Markup {
    html! {
        label for=(name) { (label) }
        input id=(name) name=(name) type="date" value=(value)
            aria-invalid=[errors.iter().any(|e| e.field == name).then_some("true")];
        (errors_for(lang, errors, name))
    }
}

/// The new-region form (the admin): one `POST /v1/regions`.
#[derive(Debug, Deserialize)]
pub struct RegionForm {
    name: String,
}

pub async fn create_region(desk: Desk, form: RegionForm) -> Result<Done, ConsoleError> {
    match desk.api.create_region(form.name.trim()).await {
        Ok(_) => Ok(Done::GoTo("/console".into())),
        Err(e) => {
            let errors = field_errors(e)?;
            let regions = desk.api.regions().await?;
            let w = desk.lang.words();
            Ok(Done::Show(
                StatusCode::UNPROCESSABLE_ENTITY,
                Shown {
                    title: w.new_region.to_owned(),
                    body: html! {
                        (super::all_errors(desk.lang, &errors))
                        (new_event_form(&desk, &regions, &EventForm::default(), &[]))
                    },
                },
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_event_takes_the_players_options_or_the_apis_defaults() {
        let form: EventForm =
            serde_urlencoded::from_str("name=Open&player_reporting=report&players_may_drop=on")
                .unwrap();
        let body = form.to_request().unwrap();
        assert_eq!(
            body.player_reporting,
            Some(catan_api::PlayerReporting::Report)
        );
        assert_eq!(body.players_may_drop, Some(true));
        let plain: EventForm = serde_urlencoded::from_str("name=Open").unwrap();
        let body = plain.to_request().unwrap();
        assert_eq!((body.player_reporting, body.players_may_drop), (None, None));
    }
}
