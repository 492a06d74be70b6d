//! Tests of the iCalendar writer: dates, escaping, folding and a whole feed.

use proptest::prelude::*;

use super::text::{escape_text, push_line, uri};
use super::*;
use crate::calendar::EventDays;

fn date(year: i32, month: u32, day: u32) -> CalendarDate {
    CalendarDate::new(year, month, day).unwrap()
}

fn event(id: u128, name: &str, first: CalendarDate, last: CalendarDate) -> CalendarEvent {
    CalendarEvent {
        id: uuid::Uuid::from_u128(id),
        name: name.to_owned(),
        days: EventDays::new(first, Some(last)).unwrap(),
        venue: None,
        url: None,
    }
}

/// The content lines of a feed, unfolded (a CRLF followed by a space joins two lines).
fn unfolded(feed: &str) -> Vec<String> {
    feed.replace("\r\n ", "")
        .split("\r\n")
        .map(str::to_owned)
        .collect()
}

/// A TEXT value read back: the escapes undone.
fn unescape(value: &str) -> String {
    let mut read = String::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') | Some('N') => read.push('\n'),
                Some(other) => read.push(other),
                None => {}
            }
        } else {
            read.push(c);
        }
    }
    read
}

#[test]
fn a_feed_has_one_all_day_event_per_event_ending_the_day_after_its_last_day() {
    let open = CalendarEvent {
        venue: Some("Casal de Gràcia, Barcelona".to_owned()),
        url: Some("https://catan.example.org/events/1".to_owned()),
        ..event(
            0xA1,
            "Open de Barcelona; 2027",
            date(2027, 3, 6),
            date(2027, 3, 7),
        )
    };
    let one_day = event(0xB2, "Winter cup", date(2027, 12, 31), date(2027, 12, 31));
    let stamp = UtcStamp::from_unix_seconds(1_803_902_400).unwrap();
    let feed = write_ics(&[open, one_day], stamp, Some("Catalan circuit"));
    let expected = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Catan tournaments//Events//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        "NAME:Catalan circuit",
        "X-WR-CALNAME:Catalan circuit",
        "BEGIN:VEVENT",
        "UID:00000000-0000-0000-0000-0000000000a1@catan-tournaments",
        "DTSTAMP:20270301T120000Z",
        "DTSTART;VALUE=DATE:20270306",
        "DTEND;VALUE=DATE:20270308",
        "SUMMARY:Open de Barcelona\\; 2027",
        "LOCATION:Casal de Gràcia\\, Barcelona",
        "URL:https://catan.example.org/events/1",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "UID:00000000-0000-0000-0000-0000000000b2@catan-tournaments",
        "DTSTAMP:20270301T120000Z",
        "DTSTART;VALUE=DATE:20271231",
        "DTEND;VALUE=DATE:20280101",
        "SUMMARY:Winter cup",
        "END:VEVENT",
        "END:VCALENDAR",
        "",
    ];
    assert_eq!(feed, expected.join("\r\n"));
    // Nothing depends on anything but the event: the same event has the same UID in any feed.
    let again = write_ics(
        &[event(0xA1, "Renamed", date(2028, 1, 1), date(2028, 1, 1))],
        stamp,
        None,
    );
    assert!(again.contains("UID:00000000-0000-0000-0000-0000000000a1@catan-tournaments\r\n"));
    assert!(!again.contains("NAME:"));
}

#[test]
fn the_day_after_crosses_months_years_and_leap_days() {
    let after = |y, m, d| date(y, m, d).day_after().unwrap().to_string();
    assert_eq!(after(2027, 3, 6), "20270307");
    assert_eq!(after(2027, 4, 30), "20270501");
    assert_eq!(after(2027, 12, 31), "20280101");
    assert_eq!(after(2028, 2, 28), "20280229");
    assert_eq!(after(2027, 2, 28), "20270301");
    assert_eq!(after(2100, 2, 28), "21000301");
    assert_eq!(after(2000, 2, 28), "20000229");
    assert_eq!(date(9999, 12, 31).day_after(), None);
    assert_eq!(CalendarDate::new(2027, 2, 29), None);
    assert_eq!(CalendarDate::new(2027, 13, 1), None);
    assert_eq!(CalendarDate::new(2027, 4, 31), None);
    assert_eq!(CalendarDate::new(0, 1, 1), None);
    assert_eq!(CalendarDate::new(10_000, 1, 1), None);
    assert_eq!(date(1, 1, 1).to_string(), "00010101");
}

#[test]
fn every_date_of_the_four_digit_years_follows_the_one_before() {
    let mut today = date(1, 1, 1);
    let mut days = 1;
    while let Some(next) = today.day_after() {
        let (y, m, d) = (today.year(), today.month(), today.day());
        let expected = CalendarDate::new(y.into(), m.into(), u32::from(d) + 1)
            .or_else(|| CalendarDate::new(y.into(), u32::from(m) + 1, 1))
            .or_else(|| CalendarDate::new(i32::from(y) + 1, 1, 1));
        assert_eq!(Some(next), expected);
        assert_eq!(next.days_since(today), 1);
        today = next;
        days += 1;
    }
    assert_eq!(today, date(9999, 12, 31));
    // 400 years of the Gregorian calendar are 146,097 days.
    assert_eq!(days, 146_097 * 25 - 366);
}

#[test]
fn an_event_ending_on_the_last_day_of_9999_gives_its_length() {
    let feed = write_ics(
        &[event(1, "End", date(9999, 12, 30), date(9999, 12, 31))],
        UtcStamp::from_unix_seconds(0).unwrap(),
        None,
    );
    assert!(feed.contains("DTSTART;VALUE=DATE:99991230\r\nDURATION:P2D\r\n"));
    assert!(feed.contains("DTSTAMP:19700101T000000Z\r\n"));
}

#[test]
fn stamps_are_utc_to_the_second() {
    let stamp = |seconds| UtcStamp::from_unix_seconds(seconds).unwrap().to_string();
    assert_eq!(stamp(0), "19700101T000000Z");
    assert_eq!(stamp(951_782_400 + 86_399), "20000229T235959Z");
    assert_eq!(stamp(-1), "19691231T235959Z");
    assert_eq!(UtcStamp::from_unix_seconds(i64::MAX), None);
}

#[test]
fn text_escapes_backslash_semicolon_comma_and_line_breaks() {
    assert_eq!(
        escape_text("a\\b;c,d\ne\r\nf\rg"),
        "a\\\\b\\;c\\,d\\ne\\nf\\ng"
    );
    // Other control characters have no place in TEXT; a tab has.
    assert_eq!(escape_text("bell\u{7}\u{0}\u{7f} tab\t."), "bell tab\t.");
    assert_eq!(escape_text("José: «Ñ» 中文"), "José: «Ñ» 中文");
}

#[test]
fn a_url_keeps_its_characters_and_encodes_what_a_uri_cannot_hold() {
    assert_eq!(uri("https://x.org/e?a=1,b;c"), "https://x.org/e?a=1,b;c");
    assert_eq!(uri("https://x.org/é v\n"), "https://x.org/%C3%A9%20v%0A");
}

#[test]
fn long_lines_fold_at_75_octets_with_a_space() {
    let mut out = String::new();
    let line = format!("SUMMARY:{}", "x".repeat(200));
    push_line(&mut out, &line);
    let physical: Vec<&str> = out.strip_suffix("\r\n").unwrap().split("\r\n").collect();
    assert_eq!(
        physical.iter().map(|l| l.len()).collect::<Vec<_>>(),
        [75, 75, 60]
    );
    assert!(physical[1..].iter().all(|l| l.starts_with(' ')));
    assert_eq!(unfolded(&out)[0], line);
    // Exactly 75 octets stay on one line.
    let mut exact = String::new();
    push_line(&mut exact, &"y".repeat(75));
    assert_eq!(exact, format!("{}\r\n", "y".repeat(75)));
}

#[test]
fn folding_never_splits_a_character() {
    // 8 octets, then characters of 2, 3 and 4 octets.
    let line = format!("SUMMARY:{}", "é中😀".repeat(20));
    let mut out = String::new();
    push_line(&mut out, &line);
    let physical: Vec<&str> = out.strip_suffix("\r\n").unwrap().split("\r\n").collect();
    for pair in physical.windows(2) {
        // A line is folded only where the next character would not fit.
        let next = pair[1].chars().nth(1).unwrap();
        assert!(pair[0].len() <= 75 && pair[0].len() + next.len_utf8() > 75);
    }
    assert!(physical.iter().all(|l| l.len() <= 75));
    assert_eq!(unfolded(&out)[0], line);
}

proptest! {
    #[test]
    fn any_name_is_written_on_lines_of_75_octets_and_read_back(
        name in "\\PC{0,120}",
        venue in ".{0,90}",
    ) {
        let mut event = event(7, &name, date(2027, 5, 1), date(2027, 5, 2));
        event.venue = Some(venue.clone());
        let feed = write_ics(&[event], UtcStamp::from_unix_seconds(0).unwrap(), None);
        prop_assert!(feed.ends_with("END:VCALENDAR\r\n"));
        for line in feed.strip_suffix("\r\n").unwrap().split("\r\n") {
            prop_assert!(line.len() <= 75);
            prop_assert!(!line.contains('\r') && !line.contains('\n'));
        }
        let lines = unfolded(&feed);
        let value = |key: &str| {
            lines.iter().find_map(|l| l.strip_prefix(key)).map(unescape).unwrap()
        };
        let kept = |text: &str| -> String {
            text.replace("\r\n", "\n")
                .replace('\r', "\n")
                .chars()
                .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
                .collect()
        };
        prop_assert_eq!(value("SUMMARY:"), kept(&name));
        prop_assert_eq!(value("LOCATION:"), kept(&venue));
    }
}
