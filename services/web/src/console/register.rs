//! Players registered and entered from names: typed one a line or pasted from a list or a CSV
//! (quoted fields, a header row; see [`paste`]); for a partner event, teams of two, one a line as
//! "team, player, player". Nothing is decided on a name alone (issue 41, item 5): a name the list
//! holds twice asks whether they are two people, and a name a player of the event's region has
//! asks whether he is that person, with the events he played; the organiser answers, and only
//! then is anyone registered. A bad line writes nothing: the list comes back as typed, each bad
//! line named. Every write is keyed apart under the form's key, so the form sent again writes
//! nothing twice.

mod paste;

use super::event::{pins_of, shown_after};
use super::{ConsoleError, Desk, Done, Shown, signed_in_as};
use actix_web::http::StatusCode;
use catan_api::names::{NameFault, may_be, repeated_names};
use catan_api::{ClientError, CreateEntry, CreatePlayer, Event, EventFormat, Player, ProfileEvent};
use maud::{Markup, html};
use paste::{BadLine, Fault, Line};
use serde::Deserialize;
use std::collections::HashMap;
use uuid::Uuid;

/// The form for the event's format, empty.
pub fn form(desk: &Desk, event: &Event) -> Markup {
    form_with(desk, event, "", &[])
}

/// The form with `text` in its box and, above it, what is wrong with its lines.
fn form_with(desk: &Desk, event: &Event, text: &str, bad: &[BadLine]) -> Markup {
    let lang = desk.lang;
    let w = lang.words();
    let partner = event.format == EventFormat::Partner;
    html! {
        h3 { @if partner { (w.new_teams) } @else { (w.new_players) } }
        form method="post" action=(format!("/console/events/{}/players", event.id)) class="console-form" {
            (desk.form_fields())
            @if !bad.is_empty() {
                div class="field-errors" role="alert" id="names-errors" {
                    p { (w.names_not_registered) }
                    ul { @for line in bad { li { (said(desk, line)) } } }
                }
            }
            label for="names" { @if partner { (w.teams_one_a_line) } @else { (w.names_one_a_line) } }
            textarea id="names" name="names" rows="6" required
                aria-describedby=(if bad.is_empty() { "names-help" } else { "names-errors names-help" })
                aria-invalid=[(!bad.is_empty()).then_some("true")] { (text) }
            p id="names-help" class="help" { @if partner { (w.teams_help) } @else { (w.names_help) } }
            // Shown by /static/console.js, which reads the file into the box above.
            label for="names-file" hidden data-file-label { (w.or_csv_file) }
            input id="names-file" type="file" accept=".csv,text/csv,text/plain" hidden data-fills="names";
            button type="submit" { (w.register_and_enter) }
        }
    }
}

/// A bad line said as a person would: its number and what is wrong.
fn said(desk: &Desk, line: &BadLine) -> String {
    let lang = desk.lang;
    let w = lang.words();
    let what = match line.fault {
        Fault::Name(NameFault::Blank) | Fault::NotATeam => w.line_not_a_team.to_owned(),
        Fault::Name(NameFault::TooLong { chars }) => w
            .line_too_long
            .replace("{n}", &lang.int(chars as u64))
            .replace("{max}", &lang.int(catan_api::names::MAX_NAME_CHARS as u64)),
        Fault::Name(NameFault::Control) | Fault::Name(NameFault::Hiding(_)) => {
            w.line_hidden_character.to_owned()
        }
        Fault::Unreadable => w.line_unreadable.to_owned(),
        Fault::TooMany => w
            .line_too_many
            .replace("{max}", &lang.int(paste::LINES_AT_ONCE as u64)),
    };
    format!(
        "{}{}{what}",
        w.line_n.replace("{n}", &lang.int(line.number as u64)),
        w.colon
    )
}

/// The form as posted: the list, and the answers to what it asked (`twice.{slot}`: `two` or
/// `one`; `known.{slot}`: a player's id or `new`), none the first time.
#[derive(Deserialize)]
pub struct NamesForm {
    names: String,
    #[serde(flatten)]
    answers: HashMap<String, String>,
}

/// A name of the list: where it is (line, and place in a team's line) and the name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Slot {
    key: String,
    line: usize,
    name: String,
}

fn slots_of(lines: &[Line]) -> Vec<Slot> {
    lines
        .iter()
        .flat_map(|line| {
            line.names.iter().enumerate().map(|(j, name)| Slot {
                key: format!("{}.{j}", line.number),
                line: line.number,
                name: name.clone(),
            })
        })
        .collect()
}

/// A name the list holds more than once: its slots (positions in the list), the first one's key
/// naming the question.
struct Twice {
    slots: Vec<usize>,
}

/// A name of the list some players of the region have: they may be that person.
struct Known {
    slot: usize,
    players: Vec<(Player, Vec<ProfileEvent>)>,
}

/// What the list asks before anyone is registered.
struct Questions {
    twice: Vec<Twice>,
    known: Vec<Known>,
}

/// Who each slot is, as the answers say.
enum Who {
    New,
    Known(Uuid),
    /// The same person as the slot at this position (a name the list holds twice).
    SameAs(usize),
}

impl Questions {
    /// Who each slot is, when every question has a valid answer.
    fn answered(&self, slots: &[Slot], answers: &HashMap<String, String>) -> Option<Vec<Who>> {
        let mut who: Vec<Who> = slots.iter().map(|_| Who::New).collect();
        for known in &self.known {
            let answer = answers.get(&format!("known.{}", slots[known.slot].key))?;
            if answer != "new" {
                let id = Uuid::parse_str(answer).ok()?;
                known.players.iter().find(|(p, _)| p.id == id)?;
                who[known.slot] = Who::Known(id);
            }
        }
        for twice in &self.twice {
            let first = twice.slots[0];
            match answers
                .get(&format!("twice.{}", slots[first].key))?
                .as_str()
            {
                "two" => {}
                "one" => {
                    for &later in &twice.slots[1..] {
                        who[later] = Who::SameAs(first);
                    }
                }
                _ => return None,
            }
        }
        Some(who)
    }
}

/// The questions of the list: its repeated names, and its names that players of the event's
/// region have (each offered with the events he played).
async fn questions(desk: &Desk, event: &Event, slots: &[Slot]) -> Result<Questions, ClientError> {
    let names: Vec<&str> = slots.iter().map(|s| s.name.as_str()).collect();
    let twice = repeated_names(&names)
        .into_iter()
        .map(|slots| Twice { slots })
        .collect();
    let mut found: HashMap<String, Vec<Player>> = HashMap::new();
    let mut known = Vec::new();
    for (i, slot) in slots.iter().enumerate() {
        let folded = catan_api::names::folded_name(&slot.name);
        if !found.contains_key(&folded) {
            let players = desk.api.search_players(&slot.name, event.region_id).await?;
            let same = may_be(
                &slot.name,
                players
                    .iter()
                    .map(|p| (p.name.as_str(), p.merged_into.is_some())),
            );
            let same = same.into_iter().map(|i| players[i].clone()).collect();
            found.insert(folded.clone(), same);
        }
        let players = &found[&folded];
        if players.is_empty() {
            continue;
        }
        let mut offered = Vec::new();
        for player in players {
            // Ranking has no page of a player it has not taken in yet: no events to show.
            let events = match desk.api.player_profile(player.id).await {
                Ok(profile) => profile.events,
                Err(e) if e.status() == Some(404) => Vec::new(),
                Err(e) => return Err(e),
            };
            offered.push((player.clone(), events));
        }
        known.push(Known {
            slot: i,
            players: offered,
        });
    }
    Ok(Questions { twice, known })
}

pub async fn register(desk: Desk, form: NamesForm) -> Result<Done, ConsoleError> {
    let id = desk.id("id")?;
    let event = desk.api.event(id).await?;
    let partner = event.format == EventFormat::Partner;
    let lines = match paste::read(&form.names, partner) {
        Ok(lines) => lines,
        Err(bad) => {
            let page = names_page(&desk, &event, form_with(&desk, &event, &form.names, &bad));
            return Ok(Done::Show(StatusCode::UNPROCESSABLE_ENTITY, page));
        }
    };
    let slots = slots_of(&lines);
    let asked = questions(&desk, &event, &slots).await?;
    let Some(who) = asked.answered(&slots, &form.answers) else {
        let page = names_page(&desk, &event, ask(&desk, &event, &form, &slots, &asked));
        return Ok(Done::Show(StatusCode::OK, page));
    };
    let made = enter_all(&desk, &event, &lines, &slots, &who).await;
    shown_after(&desk, id, made.map(pins_of)).await
}

/// Registers the new players, then enters each line (a name the list holds twice for one person
/// once): the entries made.
async fn enter_all(
    desk: &Desk,
    event: &Event,
    lines: &[Line],
    slots: &[Slot],
    who: &[Who],
) -> Result<Vec<catan_api::Entry>, ClientError> {
    let mut ids: Vec<Uuid> = Vec::with_capacity(slots.len());
    for (slot, who) in slots.iter().zip(who) {
        let id = match who {
            Who::Known(id) => *id,
            Who::SameAs(first) => ids[*first],
            Who::New => {
                let body = CreatePlayer {
                    name: slot.name.clone(),
                    region_id: event.region_id,
                };
                let part = format!("player{}", slot.key);
                desk.api.keyed_apart(&part).create_player(&body).await?.id
            }
        };
        ids.push(id);
    }
    let mut made = Vec::new();
    let mut entered: Vec<Uuid> = Vec::new();
    let mut at = 0;
    for line in lines {
        let players = &ids[at..at + line.names.len()];
        at += line.names.len();
        let entry = match (players, &line.team) {
            ([one], None) => CreateEntry::player(*one),
            ([a, b], Some(team)) => CreateEntry::team(team, [*a, *b]),
            _ => continue,
        };
        // One person named twice is entered once.
        if players.iter().any(|p| entered.contains(p)) {
            continue;
        }
        entered.extend_from_slice(players);
        let part = format!("entry{}", line.number);
        match desk
            .api
            .keyed_apart(&part)
            .create_entry(event.id, &entry)
            .await
        {
            Ok(entry) => made.push(entry),
            // Entered already: nothing to do for this line (but the form sent again after its
            // PINs were shown is told so).
            Err(e) if e.status() == Some(409) && !super::pins::is_shown_once(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(made)
}

/// The questions, each with its choices, and the list sent again with the answers.
fn ask(desk: &Desk, event: &Event, form: &NamesForm, slots: &[Slot], asked: &Questions) -> Markup {
    let lang = desk.lang;
    let w = lang.words();
    let lines_of = |positions: &[usize]| -> String {
        positions
            .iter()
            .map(|&i| lang.int(slots[i].line as u64))
            .collect::<Vec<_>>()
            .join(", ")
    };
    html! {
        section aria-labelledby="ask-h" class="names-questions" {
            h2 id="ask-h" { (w.names_check) }
            p { (w.names_check_help) }
            form method="post" action=(format!("/console/events/{}/players", event.id)) class="console-form" {
                (desk.form_fields())
                input type="hidden" name="names" value=(form.names);
                @for twice in &asked.twice {
                    @let slot = &slots[twice.slots[0]];
                    @let field = format!("twice.{}", slot.key);
                    fieldset class="question" {
                        legend {
                            (w.name_twice_before) " " bdi { (slot.name) } " "
                            (w.name_twice_after.replace("{lines}", &lines_of(&twice.slots)))
                        }
                        (choice(&field, "two", w.two_people, answer(form, &field)))
                        (choice(&field, "one", w.one_person, answer(form, &field)))
                    }
                }
                @for known in &asked.known {
                    @let slot = &slots[known.slot];
                    @let field = format!("known.{}", slot.key);
                    fieldset class="question" {
                        legend {
                            (w.line_n.replace("{n}", &lang.int(slot.line as u64))) (w.colon)
                            bdi { (slot.name) } " · " (w.same_person_question)
                        }
                        @for (player, events) in &known.players {
                            (choice(&field, &player.id.to_string(), w.same_person_as, answer(form, &field)))
                            p class="help known-events" {
                                a href=(format!("/players/{}", player.id)) { bdi { (player.name) } }
                                (w.colon)
                                @if events.is_empty() { (w.no_events_yet) }
                                @for (i, event) in events.iter().enumerate() {
                                    @if i > 0 { ", " }
                                    bdi { (event.event_name) } " (" (lang.date(event.starts_on)) ")"
                                }
                            }
                        }
                        (choice(&field, "new", w.a_new_player, answer(form, &field)))
                    }
                }
                button type="submit" { (w.register_and_enter) }
            }
            p { a href=(format!("/console/events/{}#players-h", event.id)) { (w.change_the_list) } }
        }
    }
}

/// The answer already given to `field`, if any.
fn answer<'a>(form: &'a NamesForm, field: &str) -> Option<&'a str> {
    form.answers.get(field).map(String::as_str)
}

/// One choice of a question, as a radio button and its label.
fn choice(field: &str, value: &str, label: &str, given: Option<&str>) -> Markup {
    let id = format!("{field}-{value}").replace('.', "-");
    html! {
        div class="choice" {
            input type="radio" id=(id) name=(field) value=(value) required checked[given == Some(value)];
            label for=(id) { (label) }
        }
    }
}

/// The page of the list's form or its questions.
fn names_page(desk: &Desk, event: &Event, content: Markup) -> Shown {
    let lang = desk.lang;
    let w = lang.words();
    Shown {
        title: format!("{} · {}", w.new_players, event.name),
        body: html! {
            p class="crumbs" {
                a href="/console" { (w.console) } " › "
                a href=(format!("/console/events/{}", event.id)) { bdi { (event.name) } }
            }
            h1 { (w.new_players) }
            (signed_in_as(lang, &desk.person))
            (content)
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<Line> {
        paste::read(text, false).unwrap()
    }

    fn known(slot: usize, ids: &[Uuid]) -> Known {
        let player = |id: &Uuid| Player {
            id: *id,
            name: "Ana García".into(),
            region_id: None,
            merged_into: None,
            created_at: chrono::Utc::now(),
        };
        Known {
            slot,
            players: ids.iter().map(|id| (player(id), Vec::new())).collect(),
        }
    }

    #[test]
    fn nobody_is_registered_until_every_question_has_an_answer_it_offered() {
        let slots = slots_of(&lines("Pere Pons\nAna García\npere pons"));
        let ana = Uuid::new_v4();
        let asked = Questions {
            twice: vec![Twice { slots: vec![0, 2] }],
            known: vec![known(1, &[ana])],
        };
        let answers = |pairs: &[(&str, String)]| -> HashMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect()
        };
        assert!(asked.answered(&slots, &HashMap::new()).is_none());
        let stranger = Uuid::new_v4().to_string();
        let not_offered = answers(&[("twice.1.0", "two".into()), ("known.2.0", stranger)]);
        assert!(
            asked.answered(&slots, &not_offered).is_none(),
            "a player it did not offer"
        );
        let one = answers(&[("twice.1.0", "one".into()), ("known.2.0", ana.to_string())]);
        let who = asked.answered(&slots, &one).unwrap();
        assert!(matches!(who.as_slice(), [Who::New, Who::Known(id), Who::SameAs(0)] if *id == ana));
        let two = answers(&[("twice.1.0", "two".into()), ("known.2.0", "new".into())]);
        let who = asked.answered(&slots, &two).unwrap();
        assert!(matches!(who.as_slice(), [Who::New, Who::New, Who::New]));
    }

    #[test]
    fn each_name_of_a_line_is_a_slot_keyed_by_its_line() {
        let slots = slots_of(&paste::read("Tigres, Ana, Luis\n\nLeones, Eva, Bo", true).unwrap());
        let keys: Vec<&str> = slots.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(keys, ["1.0", "1.1", "3.0", "3.1"]);
    }

    #[test]
    fn the_answers_are_read_from_the_form_beside_the_list() {
        let form: NamesForm =
            serde_urlencoded::from_str("csrf=x&names=Ana%0AAna&twice.1.0=one&known.1.0=new")
                .unwrap();
        assert_eq!(form.names, "Ana\nAna");
        assert_eq!(
            form.answers.get("twice.1.0").map(String::as_str),
            Some("one")
        );
    }
}
