//! The event's keep-apart pairs (the director): players the draw seats apart, such as members
//! of one family; listed by name, one pair added or removed at a time.

use super::{ConsoleError, Desk, Done};
use catan_api::{Entry, Event, KeepApart};
use maud::{Markup, html};
use serde::Deserialize;
use std::collections::HashMap;
use uuid::Uuid;

pub fn section(desk: &Desk, event: &Event, entries: &[Entry], pairs: &KeepApart) -> Markup {
    let w = desk.lang.words();
    let names: HashMap<Uuid, &str> = entries
        .iter()
        .flat_map(|e| e.player_ids.iter().map(move |p| (*p, e.name.as_str())))
        .collect();
    let name = |p: &Uuid| names.get(p).copied().unwrap_or("?");
    let action = format!("/console/events/{}/keep-apart", event.id);
    let players: Vec<(Uuid, &str)> = entries
        .iter()
        .filter(|e| e.player_id.is_some())
        .map(|e| (e.player_ids[0], e.name.as_str()))
        .collect();
    html! {
        section aria-labelledby="apart-h" {
            h2 id="apart-h" { (w.keep_apart) }
            p class="help" { (w.keep_apart_help) }
            ul class="keep-apart" {
                @for [a, b] in &pairs.pairs {
                    li {
                        (name(a)) " · " (name(b))
                        form method="post" action=(action) class="inline" {
                            (desk.form_fields())
                            input type="hidden" name="change" value="remove";
                            input type="hidden" name="first" value=(a);
                            input type="hidden" name="second" value=(b);
                            button type="submit" aria-label=(format!("{} {} · {}", w.remove, name(a), name(b))) { (w.remove) }
                        }
                    }
                }
            }
            @if players.len() >= 2 {
                form method="post" action=(action) class="clock-extend" {
                    (desk.form_fields())
                    input type="hidden" name="change" value="add";
                    label for="apart-first" { (w.player) }
                    select id="apart-first" name="first" {
                        @for (id, player) in &players { option value=(id) { (player) } }
                    }
                    label for="apart-second" { (w.and_player) }
                    select id="apart-second" name="second" {
                        @for (id, player) in players.iter().rev() { option value=(id) { (player) } }
                    }
                    button type="submit" { (w.keep_apart_add) }
                }
            }
        }
    }
}

/// A pair added or removed: the event's pairs read, changed and put back with one
/// `PUT /v1/events/{id}/keep-apart`.
#[derive(Debug, Deserialize)]
pub struct KeepApartForm {
    change: String,
    first: Uuid,
    second: Uuid,
}

impl KeepApartForm {
    /// `now` with this form's change made: a pair added once, a pair removed in either order.
    pub fn applied_to(&self, now: &KeepApart) -> KeepApart {
        let same = |[a, b]: &[Uuid; 2]| {
            (*a, *b) == (self.first, self.second) || (*a, *b) == (self.second, self.first)
        };
        let mut pairs: Vec<[Uuid; 2]> = now.pairs.iter().filter(|p| !same(p)).copied().collect();
        if self.change == "add" {
            pairs.push([self.first, self.second]);
        }
        KeepApart { pairs }
    }
}

pub async fn change(desk: Desk, form: KeepApartForm) -> Result<Done, ConsoleError> {
    let id = desk.id("id")?;
    let now = desk.api.keep_apart(id).await?;
    match desk.api.set_keep_apart(id, &form.applied_to(&now)).await {
        Ok(_) => Ok(super::said::go_saying(
            format!("/console/events/{id}#apart-h"),
            super::said::Said::KeepApartSaved,
        )),
        Err(e) => super::event::shown_after(&desk, id, Err(e)).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_is_added_once_and_removed_whichever_way_round() {
        let (a, b, c) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let form = |change: &str, first, second| KeepApartForm {
            change: change.into(),
            first,
            second,
        };
        let one = form("add", a, b).applied_to(&KeepApart::default());
        assert_eq!(one.pairs, vec![[a, b]]);
        let again = form("add", b, a).applied_to(&one);
        assert_eq!(again.pairs, vec![[b, a]], "one pair, not two");
        let two = form("add", a, c).applied_to(&again);
        assert_eq!(two.pairs.len(), 2);
        let removed = form("remove", a, b).applied_to(&two);
        assert_eq!(removed.pairs, vec![[a, c]]);
    }
}
