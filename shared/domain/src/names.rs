//! What a name may hold: names are shown to other people (standings, pairings, certificates), so
//! none may hide or reorder text, and one spelling of a name is one sequence of characters.

use unicode_normalization::UnicodeNormalization;

/// The characters that change how the text around them shows without showing themselves: bidi
/// embeddings, overrides and isolates (which reorder what follows), zero-width characters and
/// joiners, the byte order mark, and the other format characters (Unicode category Cf), plus
/// the fillers that render as blank space.
const HIDING: &[(char, char)] = &[
    ('\u{00AD}', '\u{00AD}'),
    ('\u{034F}', '\u{034F}'),
    ('\u{0600}', '\u{0605}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{06DD}', '\u{06DD}'),
    ('\u{070F}', '\u{070F}'),
    ('\u{0890}', '\u{0891}'),
    ('\u{08E2}', '\u{08E2}'),
    ('\u{115F}', '\u{1160}'),
    ('\u{180E}', '\u{180E}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{206F}'),
    ('\u{3164}', '\u{3164}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFA0}', '\u{FFA0}'),
    ('\u{FFF9}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0001}', '\u{E0001}'),
    ('\u{E0020}', '\u{E007F}'),
];

/// Whether `c` can hide or reorder the text around it.
pub fn hides_text(c: char) -> bool {
    HIDING
        .iter()
        .any(|(first, last)| (*first..=*last).contains(&c))
}

/// The longest name (or reason) taken, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// What keeps a text from being a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameFault {
    /// Nothing but blanks.
    Blank,
    /// More than [`MAX_NAME_CHARS`] characters: `chars` of them.
    TooLong { chars: usize },
    /// A control character (a tab, a NUL, a line break inside a cell).
    Control,
    /// A character that hides or reorders the text around it.
    Hiding(char),
}

/// `name` as a name is kept: trimmed, 1 to 200 characters, without control characters nor
/// characters that hide or reorder text, in normalisation form C; else what is wrong with it.
pub fn checked_name(name: &str) -> Result<String, NameFault> {
    let name = name.trim();
    let chars = name.chars().count();
    if chars == 0 {
        return Err(NameFault::Blank);
    }
    if chars > MAX_NAME_CHARS {
        return Err(NameFault::TooLong { chars });
    }
    if name.chars().any(char::is_control) {
        return Err(NameFault::Control);
    }
    shown_name(name).map_err(NameFault::Hiding)
}

/// `name` in Unicode normalisation form C (so "é" typed as e + accent and as one character is
/// one name), or the first character in it that can hide or reorder text.
pub fn shown_name(name: &str) -> Result<String, char> {
    match name.chars().find(|c| hides_text(*c)) {
        Some(hiding) => Err(hiding),
        None => Ok(name.nfc().collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_kept_in_composed_form() {
        assert_eq!(shown_name("Jose\u{301}"), Ok("Jos\u{e9}".to_owned()));
        assert_eq!(shown_name("Jos\u{e9}"), Ok("Jos\u{e9}".to_owned()));
        assert_eq!(
            shown_name("Zoë Ødegård 李"),
            Ok("Zoë Ødegård 李".to_owned())
        );
    }

    #[test]
    fn a_name_is_trimmed_and_one_to_two_hundred_characters_without_control_characters() {
        assert_eq!(checked_name("  Ana  "), Ok("Ana".to_owned()));
        assert_eq!(checked_name(" \t "), Err(NameFault::Blank));
        assert_eq!(
            checked_name(&"é".repeat(200)).map(|n| n.chars().count()),
            Ok(200)
        );
        assert_eq!(
            checked_name(&"a".repeat(250)),
            Err(NameFault::TooLong { chars: 250 })
        );
        assert_eq!(checked_name("Ana\u{0}Gil"), Err(NameFault::Control));
        assert_eq!(
            checked_name("Ana\u{202E}Gil"),
            Err(NameFault::Hiding('\u{202E}'))
        );
    }

    #[test]
    fn characters_that_hide_or_reorder_text_are_refused() {
        for hiding in [
            '\u{202A}',
            '\u{202B}',
            '\u{202C}',
            '\u{202D}',
            '\u{202E}', // embeddings, overrides
            '\u{2066}',
            '\u{2067}',
            '\u{2068}',
            '\u{2069}', // isolates
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{2060}',
            '\u{FEFF}', // zero width
            '\u{200E}',
            '\u{200F}',
            '\u{061C}',
            '\u{00AD}',
            '\u{E0041}', // other format
        ] {
            let name = format!("Alice{hiding}Bob");
            assert_eq!(
                shown_name(&name),
                Err(hiding),
                "U+{:04X}",
                u32::from(hiding)
            );
        }
    }

    #[test]
    fn visible_neighbours_of_the_hiding_ranges_pass() {
        for visible in [
            '\u{200A}', '\u{2010}', '\u{2030}', '\u{2070}', '\u{FEFE}', 'a',
        ] {
            assert!(!hides_text(visible), "U+{:04X}", u32::from(visible));
        }
    }
}
