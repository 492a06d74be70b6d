//! Players registered and entered from names: typed one a line or pasted from a list or a CSV
//! (the first column); for a partner event, teams of two, one a line as "team, player, player".
//! A name the federation already has in the event's region (exactly one player of that name,
//! case and accents aside) is entered as that player, never registered a second time. Every
//! write is keyed apart under the form's key, so the form sent again writes nothing twice.

use super::event::{pins_of, shown_after};
use super::{ConsoleError, Desk, Done};
use catan_api::{ClientError, CreateEntry, CreatePlayer, Event, EventFormat};
use catan_domain::duplicates::same_name;
use maud::{Markup, html};
use serde::Deserialize;
use uuid::Uuid;

/// Names (or teams) one form takes at most.
const NAMES_AT_ONCE: usize = 200;

/// The form for the event's format.
pub fn form(desk: &Desk, event: &Event) -> Markup {
    let w = desk.lang.words();
    let partner = event.format == EventFormat::Partner;
    html! {
        h3 { @if partner { (w.new_teams) } @else { (w.new_players) } }
        form method="post" action=(format!("/console/events/{}/players", event.id)) class="console-form" {
            (desk.form_fields())
            label for="names" { @if partner { (w.teams_one_a_line) } @else { (w.names_one_a_line) } }
            textarea id="names" name="names" rows="6" required
                aria-describedby="names-help" {}
            p id="names-help" class="help" { @if partner { (w.teams_help) } @else { (w.names_help) } }
            // Shown by /static/console.js, which reads the file into the box above.
            label for="names-file" hidden data-file-label { (w.or_csv_file) }
            input id="names-file" type="file" accept=".csv,text/csv,text/plain" hidden data-fills="names";
            button type="submit" { (w.register_and_enter) }
        }
    }
}

/// New players, one name a line (typed, or pasted from a list): each name the federation
/// already has in the event's region (one player of that name) is entered as that player;
/// each other name is registered first. Every entry answers its PIN, shown once.
#[derive(Deserialize)]
pub struct NamesForm {
    names: String,
}

impl NamesForm {
    /// The names, trimmed, blank lines and a CSV's header and extra columns aside.
    pub fn names(&self) -> Vec<String> {
        self.names
            .lines()
            .map(|line| line.split([',', ';', '\t']).next().unwrap_or_default())
            .map(|name| name.trim().trim_matches('"').trim().to_owned())
            .filter(|name| !name.is_empty() && !name.eq_ignore_ascii_case("name"))
            .take(NAMES_AT_ONCE)
            .collect()
    }
}

pub async fn register(desk: Desk, form: NamesForm) -> Result<Done, ConsoleError> {
    let id = desk.id("id")?;
    let event = desk.api.event(id).await?;
    let made = async {
        let mut made = Vec::new();
        let lines: Vec<(String, Vec<String>)> = if event.format == EventFormat::Partner {
            form.names
                .lines()
                .filter_map(team_of)
                .take(NAMES_AT_ONCE)
                .map(|(team, players)| (team, players.to_vec()))
                .collect()
        } else {
            form.names()
                .into_iter()
                .map(|n| (n.clone(), vec![n]))
                .collect()
        };
        for (i, (team, names)) in lines.iter().enumerate() {
            let mut players = Vec::new();
            for (j, name) in names.iter().enumerate() {
                players.push(known_or_new(&desk, &event, name, &format!("player{i}.{j}")).await?);
            }
            let entry = match players.as_slice() {
                [one] => CreateEntry::player(*one),
                [a, b] => CreateEntry::team(team, [*a, *b]),
                _ => continue,
            };
            match desk
                .api
                .keyed_apart(&format!("entry{i}"))
                .create_entry(id, &entry)
                .await
            {
                Ok(entry) => made.push(entry),
                // Entered already: nothing to do for this line.
                Err(e) if e.status() == Some(409) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(pins_of(made))
    }
    .await;
    shown_after(&desk, id, made).await
}

/// A line of a partner event's form: the team's name and its two players' names.
pub fn team_of(line: &str) -> Option<(String, [String; 2])> {
    let mut cells = line
        .split([',', ';', '\t'])
        .map(|cell| cell.trim().trim_matches('"').trim().to_owned());
    let (team, first, second) = (cells.next()?, cells.next()?, cells.next()?);
    let blank = team.is_empty() || first.is_empty() || second.is_empty();
    (!blank && !team.eq_ignore_ascii_case("team")).then_some((team, [first, second]))
}

/// The player of `name`: the one the federation has in the region, else a new one (its write
/// keyed under `part`).
async fn known_or_new(
    desk: &Desk,
    event: &Event,
    name: &str,
    part: &str,
) -> Result<Uuid, ClientError> {
    let known = desk.api.search_players(name, event.region_id).await?;
    let same: Vec<_> = known
        .iter()
        .filter(|p| p.merged_into.is_none() && same_name(&p.name, name))
        .collect();
    if let [one] = same.as_slice() {
        return Ok(one.id);
    }
    let body = CreatePlayer {
        name: name.to_owned(),
        region_id: event.region_id,
    };
    Ok(desk.api.keyed_apart(part).create_player(&body).await?.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_names_are_one_a_line_without_a_csv_header_or_blank_lines() {
        let form = NamesForm {
            names: "name,region\nAda Lovelace,North\n\n  \"Grace Hopper\" \r\nAlan Turing\t42\n"
                .into(),
        };
        assert_eq!(
            form.names(),
            vec!["Ada Lovelace", "Grace Hopper", "Alan Turing"]
        );
    }

    #[test]
    fn a_known_player_is_the_same_name_case_and_accents_aside_not_a_part_of_it() {
        assert!(same_name("José Peña", "jose pena"));
        assert!(!same_name("Ada Lovelace", "Ada"));
    }

    #[test]
    fn a_team_line_is_its_name_and_two_players_and_a_header_is_skipped() {
        assert_eq!(
            team_of("Los Tigres, Ana Pérez ; \"Luis Gil\""),
            Some(("Los Tigres".into(), ["Ana Pérez".into(), "Luis Gil".into()]))
        );
        assert_eq!(team_of("team,player,player"), None);
        assert_eq!(team_of("Solo, Ana"), None);
    }
}
