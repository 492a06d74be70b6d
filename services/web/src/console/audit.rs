//! An event's audit trail in the console: each change made through the API, the latest first
//! page of it, with who made it and what.

use super::{ConsoleError, Desk, Shown, signed_in_as};
use crate::pages::table::{data_table, number, text};
use catan_api::AuditQuery;
use maud::html;

/// Records shown at most.
const SHOWN: u32 = 500;

pub async fn page(desk: Desk) -> Result<Shown, ConsoleError> {
    let id = desk.id("id")?;
    let event = desk.api.event(id).await?;
    desk.require_event(&event)?;
    let query = AuditQuery {
        event_id: Some(id),
        ..AuditQuery::default()
    };
    let records = desk.api.audit(&query, SHOWN, 0).await?;
    let lang = desk.lang;
    let w = lang.words();
    let rows = html! {
        @for record in records.iter().rev() {
            tr {
                td { (record.at.format("%Y-%m-%d %H:%M:%S UTC")) }
                td { (crate::session::role_word(lang, record.role)) }
                td { code { (record.method) " " (record.route) } }
                td class="num" { (record.status) }
            }
        }
    };
    let body = html! {
        p class="crumbs" {
            a href="/console" { (w.console) } " › "
            a href=(format!("/console/events/{id}")) { (event.name) }
        }
        h1 { (w.audit_trail) }
        (signed_in_as(lang, &desk.person))
        (data_table(Some("audit"), None, &[text(w.when), text(w.who), text(w.change), number(w.answer)], rows))
    };
    Ok(Shown {
        title: format!("{} · {}", event.name, w.audit_trail),
        body,
    })
}
