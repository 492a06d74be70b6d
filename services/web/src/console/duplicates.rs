//! Players who may be the same person (issue 34, item 4; the admin and organisers): pairs of one
//! region and one name, as a venue's publish leaves a player registered there beside the one the
//! federation knew; each with both players and a form to merge either into the other with the
//! existing merge.

use super::{ConsoleError, Desk, Done, Shown, all_errors, field_errors, signed_in_as};
use crate::i18n::Lang;
use actix_web::http::StatusCode;
use catan_api::{CandidatePlayer, FieldError, MergeCandidate, MergePlayer, Region, Role};
use maud::{Markup, html};
use serde::Deserialize;
use uuid::Uuid;

/// The pairs a page lists; the next are a page further.
const SHOWN: u32 = 50;

pub async fn page(desk: Desk) -> Result<Shown, ConsoleError> {
    duplicates_page(&desk, &[]).await
}

/// The page asked for: its region (`?region=`, every region the person may see when absent) and
/// its number (`?page=`, from 1).
struct Asked {
    region: Option<Uuid>,
    number: u32,
}

impl Asked {
    fn of(desk: &Desk) -> Asked {
        Asked {
            region: desk.param("region").and_then(|r| Uuid::parse_str(&r).ok()),
            number: desk
                .param("page")
                .and_then(|n| n.parse().ok())
                .filter(|n| *n >= 1)
                .unwrap_or(1),
        }
    }

    /// The link to page `number` of the same region.
    fn link(&self, number: u32) -> String {
        let mut query = Vec::new();
        if let Some(region) = self.region {
            query.push(format!("region={region}"));
        }
        if number > 1 {
            query.push(format!("page={number}"));
        }
        match query.is_empty() {
            true => "/console/duplicates".to_owned(),
            false => format!("/console/duplicates?{}", query.join("&")),
        }
    }
}

async fn duplicates_page(desk: &Desk, errors: &[FieldError]) -> Result<Shown, ConsoleError> {
    if !matches!(desk.person.role, Role::Admin | Role::Organiser) {
        return Err(ConsoleError::Forbidden);
    }
    let asked = Asked::of(desk);
    let offset = (asked.number - 1).saturating_mul(SHOWN);
    // One more than shown: whether there is a next page.
    let (pairs, regions) = tokio::join!(
        desk.api.merge_candidates(asked.region, SHOWN + 1, offset),
        desk.api.regions()
    );
    let (mut pairs, regions) = (pairs?, regions?);
    let more = pairs.len() > SHOWN as usize;
    pairs.truncate(SHOWN as usize);
    // An organiser picks among its own regions: the others' pairs are not its to see.
    let choices: Vec<&Region> = regions
        .iter()
        .filter(|r| match &desk.person.region_ids {
            Some(own) if desk.person.role == Role::Organiser => own.contains(&r.id),
            _ => true,
        })
        .collect();
    let lang = desk.lang;
    let w = lang.words();
    let body = html! {
        p class="crumbs" { a href="/console" { (w.console) } }
        h1 { (w.duplicates) }
        (signed_in_as(lang, &desk.person))
        p class="help" { (w.duplicates_help) }
        (all_errors(lang, errors))
        form class="inline" method="get" action="/console/duplicates" {
            label { (w.region) br;
                select name="region" {
                    option value="" { (w.all_regions) }
                    @for r in &choices {
                        option value=(r.id) selected[Some(r.id) == asked.region] { (r.name) }
                    }
                }
            }
            button type="submit" { (w.filter) }
        }
        @if pairs.is_empty() { p { (w.no_duplicates) } }
        ul class="duplicates" {
            @for pair in &pairs { (pair_shown(desk, pair, &regions)) }
        }
        @if asked.number > 1 || more {
            nav class="pages" aria-label=(w.duplicates) {
                @if asked.number > 1 {
                    a rel="prev" href=(asked.link(asked.number - 1)) { "← " (lang.int(u64::from(asked.number - 1))) } " "
                }
                span aria-current="page" { (lang.int(u64::from(asked.number))) }
                @if more {
                    " " a rel="next" href=(asked.link(asked.number + 1)) { (lang.int(u64::from(asked.number + 1))) " →" }
                }
            }
        }
    };
    Ok(Shown {
        title: w.duplicates.to_owned(),
        body,
    })
}

/// A pair: both players, and a form to merge the later into the first and one the other way.
fn pair_shown(desk: &Desk, pair: &MergeCandidate, regions: &[Region]) -> Markup {
    let w = desk.lang.words();
    let (older, newer) = (&pair.older, &pair.newer);
    html! {
        li class="duplicate" {
            div class="duplicate-players" {
                (player_shown(desk.lang, w.registered_first, older, regions))
                (player_shown(desk.lang, w.registered_later, newer, regions))
            }
            (merge_form(desk, newer, older))
            (merge_form(desk, older, newer))
        }
    }
}

fn player_shown(
    lang: Lang,
    heading: &str,
    candidate: &CandidatePlayer,
    regions: &[Region],
) -> Markup {
    let w = lang.words();
    let player = &candidate.player;
    let region = player
        .region_id
        .and_then(|id| regions.iter().find(|r| r.id == id))
        .map_or("—", |r| r.name.as_str());
    html! {
        div class="duplicate-player" {
            p { strong { (heading) } }
            dl {
                dt { (w.name) } dd { a href=(format!("/players/{}", player.id)) { (player.name) } }
                dt { (w.region) } dd { (region) }
                dt { (w.registered_on) } dd { (lang.date(player.created_at.date_naive())) }
                dt { (w.events) }
                dd {
                    @if candidate.events.is_empty() { (w.none) }
                    @for (i, event) in candidate.events.iter().enumerate() {
                        @if i > 0 { ", " }
                        a href=(format!("/events/{}", event.id)) { (event.name) }
                    }
                }
            }
        }
    }
}

/// "Merge <duplicate> into <survivor>": one `POST /v1/players/{duplicate}/merge`.
fn merge_form(desk: &Desk, duplicate: &CandidatePlayer, survivor: &CandidatePlayer) -> Markup {
    let lang = desk.lang;
    let named = |c: &CandidatePlayer| {
        format!(
            "{} ({})",
            c.player.name,
            lang.date(c.player.created_at.date_naive())
        )
    };
    let label = lang
        .words()
        .merge_into
        .replace("{duplicate}", &named(duplicate))
        .replace("{survivor}", &named(survivor));
    html! {
        form method="post" action="/console/duplicates/merge" class="merge" {
            (desk.form_fields())
            input type="hidden" name="duplicate" value=(duplicate.player.id);
            input type="hidden" name="into" value=(survivor.player.id);
            button type="submit" { (label) }
        }
    }
}

/// A merge as posted: the duplicate, and the player he is merged into.
#[derive(Debug, Deserialize)]
pub struct MergeForm {
    duplicate: Uuid,
    into: Uuid,
}

impl MergeForm {
    /// The API's call: the duplicate in the path, the survivor in the body.
    pub fn to_request(&self) -> (Uuid, MergePlayer) {
        (self.duplicate, MergePlayer { into: self.into })
    }
}

pub async fn merge(desk: Desk, form: MergeForm) -> Result<Done, ConsoleError> {
    let (duplicate, body) = form.to_request();
    match desk.api.merge_player(duplicate, body.into).await {
        Ok(_) => Ok(Done::GoTo("/console/duplicates".into())),
        Err(e) => {
            let errors = field_errors(e)?;
            Ok(Done::Show(
                StatusCode::UNPROCESSABLE_ENTITY,
                duplicates_page(&desk, &errors).await?,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_link_keeps_its_region_and_leaves_out_the_first_page() {
        let region = Uuid::new_v4();
        let everywhere = Asked {
            region: None,
            number: 1,
        };
        assert_eq!(everywhere.link(1), "/console/duplicates");
        assert_eq!(everywhere.link(2), "/console/duplicates?page=2");
        let of_region = Asked {
            region: Some(region),
            number: 3,
        };
        assert_eq!(
            of_region.link(1),
            format!("/console/duplicates?region={region}")
        );
        assert_eq!(
            of_region.link(4),
            format!("/console/duplicates?region={region}&page=4")
        );
    }

    #[test]
    fn a_merge_form_names_the_duplicate_in_the_path_and_the_survivor_in_the_body() {
        let (duplicate, into) = (Uuid::new_v4(), Uuid::new_v4());
        let body = format!("csrf=x&form_key=y&duplicate={duplicate}&into={into}");
        let form: MergeForm = serde_urlencoded::from_str(&body).unwrap();
        let (path, request) = form.to_request();
        assert_eq!((path, request.into), (duplicate, into));
    }
}
