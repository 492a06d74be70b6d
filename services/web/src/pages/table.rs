//! The data tables the pages draw, in one frame: a box that scrolls sideways on a phone (never
//! the page) or rows that stack there, an optional caption, and column headers with their
//! scope, numbers right-aligned; the page gives the rows.

use maud::{Markup, html};

/// A column's header, and whether its cells are numbers (right-aligned).
#[derive(Clone, Copy)]
pub struct Column<'a> {
    header: &'a str,
    numeric: bool,
}

/// A column of text.
pub fn text(header: &str) -> Column<'_> {
    Column {
        header,
        numeric: false,
    }
}

/// A column of numbers.
pub fn number(header: &str) -> Column<'_> {
    Column {
        header,
        numeric: true,
    }
}

/// A table with the element id `id` (what the script and the tests find), `caption`, `columns`
/// and the `rows` of its body.
pub fn data_table(
    id: Option<&str>,
    caption: Option<&str>,
    columns: &[Column],
    rows: Markup,
) -> Markup {
    frame(id, caption, columns, rows, None)
}

/// A [`data_table`] whose rows stack on a phone (class `stack`): each row a short card of its
/// cells, each cell shown with its column's name (the cell's `data-label`, which the page gives
/// every cell), so that no column hides off to the right. It stays a table for screen readers.
pub fn stacked_table(
    id: Option<&str>,
    caption: Option<&str>,
    columns: &[Column],
    rows: Markup,
) -> Markup {
    frame(id, caption, columns, rows, Some("stack"))
}

fn frame(
    id: Option<&str>,
    caption: Option<&str>,
    columns: &[Column],
    rows: Markup,
    class: Option<&str>,
) -> Markup {
    html! {
        div class="scroll" {
            table id=[id] class=[class] {
                @if let Some(caption) = caption { caption class="muted" { (caption) } }
                thead { tr {
                    @for column in columns {
                        th scope="col" class=[column.numeric.then_some("num")] { (column.header) }
                    }
                } }
                tbody { (rows) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_has_its_caption_scoped_headers_with_numbers_marked_and_its_rows() {
        let rows = html! { tr { td { "Ada" } td class="num" { "7" } } };
        let html = data_table(
            Some("season"),
            Some("Season"),
            &[text("Player"), number("Points")],
            rows,
        )
        .into_string();
        assert_eq!(
            html,
            "<div class=\"scroll\"><table id=\"season\"><caption class=\"muted\">Season</caption>\
             <thead><tr><th scope=\"col\">Player</th><th scope=\"col\" class=\"num\">Points</th>\
             </tr></thead><tbody><tr><td>Ada</td><td class=\"num\">7</td></tr></tbody></table></div>"
        );
        let bare = data_table(None, None, &[text("Event")], html! {}).into_string();
        assert_eq!(
            bare,
            "<div class=\"scroll\"><table><thead><tr><th scope=\"col\">Event</th></tr></thead>\
             <tbody></tbody></table></div>"
        );
        let stacked = stacked_table(None, None, &[text("Event")], html! {}).into_string();
        assert!(
            stacked.starts_with("<div class=\"scroll\"><table class=\"stack\"><thead>"),
            "{stacked}"
        );
    }
}
