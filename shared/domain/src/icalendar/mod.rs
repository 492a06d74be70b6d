//! Events as an iCalendar feed (RFC 5545; issue 35): one VCALENDAR with one VEVENT per event,
//! which calendar apps subscribe to.
//!
//! - `date`: the dates and the stamp a feed writes.
//! - `text`: escaping and line folding.

mod date;
mod text;

#[cfg(test)]
mod tests;

pub use date::{CalendarDate, UtcStamp};

use crate::calendar::EventDays;
use text::{escape_text, push_line, uri};

/// The product that writes the feeds, as PRODID names it.
const PRODUCT: &str = "-//Catan tournaments//Events//EN";

/// The domain of every event's UID: `<event id>@catan-tournaments`.
const UID_DOMAIN: &str = "catan-tournaments";

/// One event of a feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalendarEvent {
    pub id: uuid::Uuid,
    pub name: String,
    /// Its first through its last day.
    pub days: EventDays<CalendarDate>,
    pub venue: Option<String>,
    /// Its page, for the calendar app to link.
    pub url: Option<String>,
}

/// The feed of `events`, in their order, made at `stamp` (every VEVENT's DTSTAMP), named
/// `name` when given (NAME, and X-WR-CALNAME that older apps read).
///
/// Each event is all-day: DTSTART is its first day and DTEND the day after its last, as DATE
/// values (RFC 5545 takes DTEND as exclusive); UID is `<event id>@catan-tournaments`, the same
/// in every feed and on every read. Lines end with CRLF and fold at 75 octets.
pub fn write_ics(events: &[CalendarEvent], stamp: UtcStamp, name: Option<&str>) -> String {
    let mut out = String::new();
    push_line(&mut out, "BEGIN:VCALENDAR");
    push_line(&mut out, "VERSION:2.0");
    push_line(&mut out, &format!("PRODID:{PRODUCT}"));
    push_line(&mut out, "CALSCALE:GREGORIAN");
    push_line(&mut out, "METHOD:PUBLISH");
    if let Some(name) = name {
        push_line(&mut out, &format!("NAME:{}", escape_text(name)));
        push_line(&mut out, &format!("X-WR-CALNAME:{}", escape_text(name)));
    }
    for event in events {
        push_event(&mut out, event, stamp);
    }
    push_line(&mut out, "END:VCALENDAR");
    out
}

/// An event's UID: stable, and unique to the event.
pub fn event_uid(id: uuid::Uuid) -> String {
    format!("{id}@{UID_DOMAIN}")
}

fn push_event(out: &mut String, event: &CalendarEvent, stamp: UtcStamp) {
    let (first, last) = (event.days.starts_on(), event.days.ends_on());
    push_line(out, "BEGIN:VEVENT");
    push_line(out, &format!("UID:{}", event_uid(event.id)));
    push_line(out, &format!("DTSTAMP:{stamp}"));
    push_line(out, &format!("DTSTART;VALUE=DATE:{first}"));
    match last.day_after() {
        Some(end) => push_line(out, &format!("DTEND;VALUE=DATE:{end}")),
        // An event ending on 9999-12-31 has no day after to write: its length instead.
        None => push_line(out, &format!("DURATION:P{}D", last.days_since(first) + 1)),
    }
    push_line(out, &format!("SUMMARY:{}", escape_text(&event.name)));
    if let Some(venue) = &event.venue {
        push_line(out, &format!("LOCATION:{}", escape_text(venue)));
    }
    if let Some(url) = &event.url {
        push_line(out, &format!("URL:{}", uri(url)));
    }
    push_line(out, "END:VEVENT");
}
