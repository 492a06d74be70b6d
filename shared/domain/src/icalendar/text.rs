//! How an iCalendar content line is written (RFC 5545, 3.1 and 3.3.11): TEXT values escaped,
//! URIs kept to their own characters, and lines folded at 75 octets with CRLF.

/// Most octets of a content line, without its CRLF.
const LINE_OCTETS: usize = 75;

/// A TEXT value: backslash, semicolon and comma escaped with a backslash, every line break
/// (CRLF, LF or CR) written `\n`; the other control characters, which TEXT may not hold, left out.
pub(super) fn escape_text(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => escaped.push_str("\\\\"),
            ';' => escaped.push_str("\\;"),
            ',' => escaped.push_str("\\,"),
            '\r' => {
                chars.next_if_eq(&'\n');
                escaped.push_str("\\n");
            }
            '\n' => escaped.push_str("\\n"),
            '\t' => escaped.push('\t'),
            c if c.is_control() => {}
            c => escaped.push(c),
        }
    }
    escaped
}

/// A URI value: its ASCII graphic characters as they are; anything else (a space, a control or
/// non-ASCII character) percent-encoded, octet by octet of its UTF-8.
pub(super) fn uri(value: &str) -> String {
    let mut written = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_graphic() {
            written.push(char::from(byte));
        } else {
            written.push_str(&format!("%{byte:02X}"));
        }
    }
    written
}

/// Appends a content line to `out`, folded so that no line holds more than 75 octets before its
/// CRLF: a continuation line starts with one space, and a fold never falls inside a character.
pub(super) fn push_line(out: &mut String, line: &str) {
    let mut octets = 0;
    for c in line.chars() {
        if octets + c.len_utf8() > LINE_OCTETS {
            out.push_str("\r\n ");
            octets = 1;
        }
        out.push(c);
        octets += c.len_utf8();
    }
    out.push_str("\r\n");
}
