//! The sheet's form as drawn: a table of one row a player on a desk, each row a card on a phone
//! (`table.sheet-lines` in the style sheet). Every field has its own label, shown on the phone
//! where no column heading is above it, and naming the player for a screen reader.

use super::{Drawn, Seating};
use crate::console::errors_for;
use crate::i18n::Lang;
use crate::session::Session;
use catan_api::{ErrorCode, FieldError};
use maud::{Markup, html};
use uuid::Uuid;

/// The sheet's form, sent to `action`. On a player's phone it is `queued` under its label: the
/// phone's script keeps a sheet sent offline until the network is back (`data-offline-queue`),
/// listed by its label meanwhile.
pub(crate) fn sheet_form(
    lang: Lang,
    session: &Session,
    action: &str,
    queued: Option<&str>,
    drawn: &Drawn<'_>,
    seating: &Seating,
) -> Markup {
    let name = |p: Uuid| seating.name(p);
    let w = lang.words();
    let form = drawn.form;
    let errors = drawn.errors;
    let lines = form.lines();
    html! {
        form method="post" action=(action) class="sheet" data-sheet
            data-offline-queue[queued.is_some()] data-offline-label=[queued] {
            (crate::signed::form_fields(session))
            input type="hidden" name="if_match" value=(form.if_match);
            (errors_for(lang, errors, ""))
            (errors_for(lang, errors, "scores"))
            table class="sheet-lines" {
                caption { (w.sheet_caption) }
                thead { tr {
                    th scope="col" { (w.player) }
                    th scope="col" { (w.settlements) }
                    th scope="col" { (w.cities) }
                    th scope="col" { (w.vp_cards) }
                    th scope="col" { (w.longest_road) }
                    th scope="col" { (w.largest_army) }
                    th scope="col" class="num" { (w.vp) }
                } }
                tbody {
                    @for (i, line) in lines.iter().enumerate() {
                        @let player = line.player_id.map(name).unwrap_or_default();
                        @let holder = line.player_id.map(|p| p.to_string()).unwrap_or_default();
                        @let field = |f: &str| format!("scores[{i}].breakdown.{f}");
                        tr data-seat=(i) {
                            th scope="row" {
                                bdi { (player) }
                                @if let Some((entry, team)) = line.player_id.and_then(|p| seating.team_of(p)) {
                                    br;
                                    span class="team" data-team=(entry) { (team) }
                                }
                                input type="hidden" name=(format!("player{i}")) value=(holder);
                                (errors_for(lang, errors, &format!("scores[{i}]")))
                                (errors_for(lang, errors, &format!("scores[{i}].vp")))
                                (errors_for(lang, errors, &format!("scores[{i}].breakdown")))
                                (errors_for(lang, errors, &format!("scores[{i}].player_id")))
                            }
                            (count_cell(lang, errors, &format!("settlements{i}"), &field("settlements"), &line.settlements, 5, w.settlements, &player))
                            (count_cell(lang, errors, &format!("cities{i}"), &field("cities"), &line.cities, 4, w.cities, &player))
                            (count_cell(lang, errors, &format!("vp_cards{i}"), &field("vp_cards"), &line.vp_cards, 5, w.vp_cards, &player))
                            (holder_cell("longest_road", &holder, line.longest_road, w.longest_road, &player))
                            (holder_cell("largest_army", &holder, line.largest_army, w.largest_army, &player))
                            td class="num vp" {
                                span class="cell-label" aria-hidden="true" { (w.vp) }
                                output data-vp=(i) aria-live="polite" aria-label=(format!("{} · {player}", w.vp)) {
                                    (line.vp().map(|v| v.to_string()).unwrap_or_default())
                                }
                            }
                        }
                    }
                    tr {
                        th scope="row" { (w.nobody) }
                        td {} td {} td {}
                        (holder_cell("longest_road", "", form.longest_road.is_empty(), w.longest_road, w.nobody))
                        (holder_cell("largest_army", "", form.largest_army.is_empty(), w.largest_army, w.nobody))
                        td {}
                    }
                }
            }
            (errors_for(lang, errors, "longest_road"))
            (errors_for(lang, errors, "largest_army"))
            fieldset {
                legend { (w.outcome) }
                label { input type="radio" name="outcome" value="won" checked[form.outcome != "time_limit"]; " " (w.outcome_won) }
                label { input type="radio" name="outcome" value="time_limit" checked[form.outcome == "time_limit"]; " " (w.outcome_time_limit) }
                (errors_for(lang, errors, "outcome"))
            }
            label for="winner" { (w.winner) }
            @if seating.partner {
                select id="winner" name="winner_team"
                    aria-invalid=[errors.iter().any(|e| e.field.starts_with("winner")).then_some("true")] {
                    option value="" { "—" }
                    @for (entry, team) in &seating.teams {
                        option value=(entry) selected[form.winner_team == entry.to_string()] { (team) }
                    }
                }
                (errors_for(lang, errors, "winner_entry_id"))
            } @else {
                select id="winner" name="winner"
                    aria-invalid=[errors.iter().any(|e| e.field.starts_with("winner")).then_some("true")] {
                    option value="" { "—" }
                    @for line in &lines {
                        @if let Some(p) = line.player_id {
                            option value=(p) selected[form.winner == p.to_string()] { (name(p)) }
                        }
                    }
                }
                (errors_for(lang, errors, "winner_player_id"))
            }
            @if drawn.director {
                label for="early_reason" { (w.early_reason) }
                input id="early_reason" name="early_reason" type="text" maxlength="500" value=(form.early_reason);
                (errors_for(lang, errors, "early_reason"))
            }
            (credited_check(lang, drawn, seating))
            button type="submit" {
                @if form.if_match.is_empty() { (w.record_result) } @else { (w.correct_result) }
            }
        }
    }
}

/// When the API refused the sheet for a non-winner at 10 VP or more (or the director ticked the
/// box): what each player is credited as the sheet stands, and on the director's form the box
/// that marks it checked, with its reason.
fn credited_check(lang: Lang, drawn: &Drawn<'_>, seating: &Seating) -> Markup {
    let w = lang.words();
    let form = drawn.form;
    let doubtful = drawn
        .errors
        .iter()
        .any(|e| e.code == ErrorCode::NonWinnerAtTen || e.field.starts_with("checked"));
    if !doubtful && !form.is_checked() {
        return html! {};
    }
    html! {
        div class="credited" id="credited" role="status" {
            p { (w.credited_as_sent) }
            ul class="summary" {
                @for (player, vp, credited) in form.credited() {
                    li {
                        bdi { (player.map(|p| seating.name(p)).unwrap_or_default()) } ": "
                        (vp) " " (w.vp) " · " (w.credited) " " strong { (credited) }
                    }
                }
            }
            @if drawn.director {
                label {
                    input type="checkbox" name="checked" value="on" checked[form.is_checked()];
                    " " (w.checked_by_director)
                }
                label for="checked_reason" { (w.checked_reason) }
                input id="checked_reason" name="checked_reason" type="text" maxlength="500" value=(form.checked_reason)
                    aria-invalid=[drawn.errors.iter().any(|e| e.field == "checked.reason").then_some("true")];
                (errors_for(lang, drawn.errors, "checked.reason"))
            }
        }
    }
}

/// A count's cell: its label (the column's name, shown where the column's heading is not, and
/// the player's name for a screen reader), its field, and what is wrong with it.
#[allow(clippy::too_many_arguments)]
fn count_cell(
    lang: Lang,
    errors: &[FieldError],
    name: &str,
    api_field: &str,
    value: &str,
    max: u8,
    column: &str,
    player: &str,
) -> Markup {
    let wrong = errors.iter().any(|e| e.field == api_field);
    html! {
        td class="count" {
            label {
                (cell_label(column, player))
                input name=(name) type="number" min="0" max=(max) inputmode="numeric" value=(value)
                    aria-invalid=[wrong.then_some("true")];
            }
            (errors_for(lang, errors, api_field))
        }
    }
}

/// A longest road's or largest army's choice: `holder` (a player's id, or blank for nobody).
fn holder_cell(name: &str, holder: &str, checked: bool, column: &str, player: &str) -> Markup {
    html! {
        td class="holds" {
            label {
                input type="radio" name=(name) value=(holder) checked[checked];
                (cell_label(column, player))
            }
        }
    }
}

/// A field's label in a row of the sheet: the column's name, seen on a phone only, then whose
/// it is, for a screen reader only ("Cities · Ana").
fn cell_label(column: &str, player: &str) -> Markup {
    html! {
        span class="cell-label" { (column) }
        span class="visually-hidden" { " · " bdi { (player) } }
    }
}
