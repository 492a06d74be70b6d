//! Seasons in the console: the seasons of the person's regions (every season for the admin), a
//! new season, and an event joined to a season.

use super::{ConsoleError, Desk, Done, Shown, all_errors, field_errors, signed_in_as};
use actix_web::http::StatusCode;
use catan_api::{CreateSeason, Event, FieldError, Region, Role, Season};
use maud::{Markup, html};
use serde::Deserialize;
use uuid::Uuid;

pub async fn page(desk: Desk) -> Result<Shown, ConsoleError> {
    seasons_page(&desk, &[]).await
}

async fn seasons_page(desk: &Desk, errors: &[FieldError]) -> Result<Shown, ConsoleError> {
    if !matches!(desk.person.role, Role::Admin | Role::Organiser) {
        return Err(ConsoleError::Forbidden);
    }
    let (seasons, events, regions) = tokio::join!(
        my_seasons(desk),
        super::events::my_events(desk),
        desk.api.regions()
    );
    let (seasons, events, regions) = (seasons?, events?, regions?);
    let lang = desk.lang;
    let w = lang.words();
    let body = html! {
        p class="crumbs" { a href="/console" { (w.console) } }
        h1 { (w.seasons) }
        (signed_in_as(lang, &desk.person))
        (all_errors(lang, errors))
        @if seasons.is_empty() { p { (w.none) } }
        ul class="console-seasons" {
            @for season in &seasons {
                li {
                    a href=(format!("/seasons/{}", season.id)) { (season.name) }
                    " · " (lang.date(season.starts_on)) " – " (lang.date(season.ends_on))
                    " · " (w.events) ": " (lang.int(season.event_ids.len() as u64))
                }
            }
        }
        @if !seasons.is_empty() && !events.is_empty() {
            (join_form(desk, &seasons, &events))
        }
        (new_season_form(desk, &regions))
    };
    Ok(Shown {
        title: w.seasons.to_owned(),
        body,
    })
}

/// The seasons of the person's regions; every season for the admin.
async fn my_seasons(desk: &Desk) -> Result<Vec<Season>, ConsoleError> {
    match (&desk.person.role, &desk.person.region_ids) {
        (Role::Organiser, Some(regions)) => {
            let mut seasons = Vec::new();
            for region in regions {
                seasons.extend(desk.api.seasons(Some(*region)).await?);
            }
            Ok(seasons)
        }
        _ => Ok(desk.api.seasons(None).await?),
    }
}

fn join_form(desk: &Desk, seasons: &[Season], events: &[Event]) -> Markup {
    let w = desk.lang.words();
    html! {
        section aria-labelledby="join-h" {
            h2 id="join-h" { (w.join_event) }
            form method="post" action="/console/seasons/join" class="console-form" {
                (desk.form_fields())
                label for="join-season" { (w.season) }
                select id="join-season" name="season_id" {
                    @for season in seasons { option value=(season.id) { (season.name) } }
                }
                label for="join-event" { (w.event) }
                select id="join-event" name="event_id" {
                    @for event in events { option value=(event.id) { (event.name) } }
                }
                button type="submit" { (w.join_event) }
            }
        }
    }
}

fn new_season_form(desk: &Desk, regions: &[Region]) -> Markup {
    let w = desk.lang.words();
    let mine = desk.person.own_regions(regions);
    html! {
        section aria-labelledby="new-season" {
            h2 id="new-season" { (w.new_season) }
            form method="post" action="/console/seasons" class="console-form" {
                (desk.form_fields())
                label for="season-name" { (w.name) }
                input id="season-name" name="name" type="text" required maxlength="200";
                label for="season-region" { (w.region) }
                select id="season-region" name="region_id" {
                    @if desk.person.role == Role::Admin { option value="" { "—" } }
                    @for region in &mine { option value=(region.id) { (region.name) } }
                }
                label for="season-starts" { (w.first_day) }
                input id="season-starts" name="starts_on" type="date" required;
                label for="season-ends" { (w.last_day) }
                input id="season-ends" name="ends_on" type="date" required;
                fieldset {
                    legend { (w.season_scoring) }
                    label { input type="radio" name="mode" value="table_points" checked; " " (w.scoring_table_points) }
                    label { input type="radio" name="mode" value="placement"; " " (w.scoring_placement) }
                }
                label for="season-points" { (w.placement_points) }
                input id="season-points" name="points" type="text" inputmode="numeric" placeholder="100, 80, 60, 50, 40";
                label for="season-best" { (w.best_n) }
                input id="season-best" name="best_n" type="number" min="1";
                label for="season-slots" { (w.season_slots) }
                input id="season-slots" name="season_slots" type="number" min="0";
                button type="submit" { (w.create_season) }
            }
        }
    }
}

/// The new-season form as posted: one `POST /v1/seasons`.
#[derive(Debug, Deserialize)]
pub struct SeasonForm {
    name: String,
    #[serde(default)]
    region_id: String,
    starts_on: String,
    ends_on: String,
    #[serde(default)]
    mode: String,
    #[serde(default)]
    points: String,
    #[serde(default)]
    best_n: String,
    #[serde(default)]
    season_slots: String,
}

impl SeasonForm {
    /// The API's body, or the fields that do not read.
    pub fn to_request(&self) -> Result<CreateSeason, Vec<FieldError>> {
        let wrong = |field: &str| FieldError {
            field: field.to_owned(),
            code: catan_api::ErrorCode::InvalidJson,
            message: String::new(),
        };
        let date = |field: &str, text: &str| text.trim().parse().map_err(|_| vec![wrong(field)]);
        let number = |field: &str, text: &str| -> Result<Option<u32>, Vec<FieldError>> {
            let text = text.trim();
            if text.is_empty() {
                return Ok(None);
            }
            text.parse().map(Some).map_err(|_| vec![wrong(field)])
        };
        let points: Option<Vec<u32>> = if self.points.trim().is_empty() {
            None
        } else {
            let read: Result<Vec<u32>, _> = self
                .points
                .split([',', ' ', ';'])
                .filter(|p| !p.is_empty())
                .map(str::parse)
                .collect();
            Some(read.map_err(|_| vec![wrong("points")])?)
        };
        let mode = if self.mode == "placement" {
            "placement"
        } else {
            "table_points"
        };
        let scoring = serde_json::json!({
            "mode": mode,
            "points": if mode == "placement" { points } else { None },
            "best_n": number("best_n", &self.best_n)?,
        });
        let qualification = number("season_slots", &self.season_slots)?
            .map(|slots| serde_json::json!({"season_slots": slots}));
        Ok(CreateSeason {
            name: self.name.trim().to_owned(),
            region_id: Uuid::parse_str(self.region_id.trim()).ok(),
            starts_on: date("starts_on", &self.starts_on)?,
            ends_on: date("ends_on", &self.ends_on)?,
            scoring: serde_json::from_value(scoring).map_err(|_| vec![wrong("mode")])?,
            qualification: qualification
                .map(serde_json::from_value)
                .transpose()
                .map_err(|_| vec![wrong("season_slots")])?,
        })
    }
}

pub async fn create(desk: Desk, form: SeasonForm) -> Result<Done, ConsoleError> {
    let sent = match form.to_request() {
        Ok(body) => desk.api.create_season(&body).await.map_err(field_errors),
        Err(errors) => Err(Ok(errors)),
    };
    match sent {
        Ok(_) => Ok(Done::GoTo("/console/seasons".into())),
        Err(Err(refused)) => Err(refused),
        Err(Ok(errors)) => Ok(Done::Show(
            StatusCode::UNPROCESSABLE_ENTITY,
            seasons_page(&desk, &errors).await?,
        )),
    }
}

/// An event joined to a season: one `PUT /v1/seasons/{season}/events/{event}`.
#[derive(Debug, Deserialize)]
pub struct JoinForm {
    season_id: Uuid,
    event_id: Uuid,
}

pub async fn join(desk: Desk, form: JoinForm) -> Result<Done, ConsoleError> {
    match desk.api.join_season(form.season_id, form.event_id).await {
        Ok(_) => Ok(Done::GoTo("/console/seasons".into())),
        Err(e) => {
            let errors = field_errors(e)?;
            Ok(Done::Show(
                StatusCode::UNPROCESSABLE_ENTITY,
                seasons_page(&desk, &errors).await?,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(mode: &str, points: &str) -> SeasonForm {
        SeasonForm {
            name: "Spring".into(),
            region_id: String::new(),
            starts_on: "2027-03-01".into(),
            ends_on: "2027-05-31".into(),
            mode: mode.into(),
            points: points.into(),
            best_n: "3".into(),
            season_slots: "4".into(),
        }
    }

    #[test]
    fn a_placement_season_takes_its_points_table_from_a_typed_list() {
        let season = form("placement", "100, 80 60;50").to_request().unwrap();
        assert_eq!(season.scoring.points, Some(vec![100, 80, 60, 50]));
        assert_eq!(season.scoring.best_n, Some(3));
        assert_eq!(season.qualification.unwrap().season_slots, 4);
    }

    #[test]
    fn a_table_points_season_ignores_a_points_table_and_a_bad_number_is_named() {
        let season = form("table_points", "100").to_request().unwrap();
        assert_eq!(season.scoring.points, None);
        let wrong = form("placement", "100, many").to_request().unwrap_err();
        assert_eq!(wrong[0].field, "points");
    }
}
