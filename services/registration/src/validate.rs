//! The checks every resource's requests share: names, number settings, settings that belong to
//! another format, searches and date ranges. Each is a pure decision: the value to use, or the
//! 422 naming the field.

use catan_domain::names::{MAX_NAME_CHARS, NameFault, checked_name};
use catan_kit::ApiError;
use catan_kit::problem::{ErrorCode, FieldError};
use chrono::NaiveDate;
use std::ops::RangeInclusive;

/// A name (or reason) of 1 to 200 characters, trimmed, without control characters (which
/// PostgreSQL's text cannot hold in the case of NUL, and no name needs) nor characters that
/// hide or reorder text, in normalisation form C ([`checked_name`]).
pub fn valid_name(field: &str, name: &str) -> Result<String, ApiError> {
    checked_name(name).map_err(|fault| {
        let message = match fault {
            NameFault::Blank | NameFault::TooLong { .. } => {
                format!("{field} must have 1 to {MAX_NAME_CHARS} characters")
            }
            NameFault::Control => format!("{field} must not contain control characters"),
            NameFault::Hiding(hiding) => format!(
                "{field} must not contain characters that hide or reorder text (U+{:04X})",
                u32::from(hiding)
            ),
        };
        ApiError::field(field, ErrorCode::InvalidName, message)
    })
}

/// A number setting within `range` (`default` when absent), named by its field, as the type it
/// is kept in.
pub fn setting<T>(
    field: &str,
    value: Option<i64>,
    default: T,
    range: RangeInclusive<i64>,
) -> Result<T, ApiError>
where
    T: Into<i64> + TryFrom<i64>,
{
    let value = value.unwrap_or(default.into());
    match T::try_from(value) {
        Ok(setting) if range.contains(&value) => Ok(setting),
        _ => Err(ApiError::field(
            field,
            ErrorCode::OutOfRange,
            format!("{field} must be {} to {}", range.start(), range.end()),
        )),
    }
}

/// Settings that belong to the other format are refused rather than ignored: `fields` are the
/// settings of the other format and whether the request gives each.
pub fn refuse_foreign(fields: &[(&str, bool)], format: &str) -> Result<(), ApiError> {
    match fields.iter().find(|(_, given)| *given) {
        Some((field, _)) => Err(ApiError::field(
            field,
            ErrorCode::NotForFormat,
            format!("{field} does not apply to {format} events"),
        )),
        None => Ok(()),
    }
}

/// An optional name, such as a venue: checked as [`valid_name`] when given.
pub fn valid_optional_name(field: &str, name: Option<&str>) -> Result<Option<String>, ApiError> {
    name.map(|name| valid_name(field, name)).transpose()
}

/// The part of a name searched for (`q`): trimmed, blank for none; at most 200 characters,
/// without control characters (which no name holds).
pub fn searched_name(q: Option<&str>) -> Result<Option<String>, ApiError> {
    let q = q.map(str::trim).filter(|q| !q.is_empty());
    match q {
        Some(q) if q.chars().count() > MAX_NAME_CHARS || q.chars().any(char::is_control) => {
            Err(ApiError::field(
                "q",
                ErrorCode::InvalidQuery,
                "q must have at most 200 characters, without control characters",
            ))
        }
        other => Ok(other.map(str::to_owned)),
    }
}

/// A search's days from `from` through `to` (either open): `to` must not come before `from`.
pub fn searched_days(
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
) -> Result<(Option<NaiveDate>, Option<NaiveDate>), ApiError> {
    match (from, to) {
        (Some(from), Some(to)) if to < from => Err(ApiError::field(
            "to",
            ErrorCode::EndsBeforeStart,
            format!("to ({to}) must not be before from ({from})"),
        )),
        days => Ok(days),
    }
}

/// A 422 listing every rule broken, each on its field.
pub fn broken_rules(errors: Vec<FieldError>) -> ApiError {
    let detail = match errors.as_slice() {
        [one] => one.message.clone(),
        many => format!("{} rules broken; see errors", many.len()),
    };
    ApiError::Validation { detail, errors }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The field and code of a 422, for asserting on.
    pub(crate) fn broken(error: ApiError) -> (String, ErrorCode, String) {
        match error {
            ApiError::Validation { mut errors, .. } if errors.len() == 1 => {
                let e = errors.remove(0);
                (e.field, e.code, e.message)
            }
            other => panic!("not one broken rule: {other:?}"),
        }
    }

    /// The field and code of a 422.
    pub(crate) fn field_and_code(error: ApiError) -> (String, ErrorCode) {
        let (field, code, _) = broken(error);
        (field, code)
    }

    #[test]
    fn names_are_trimmed() {
        assert_eq!(valid_name("name", "  Ada  ").unwrap(), "Ada");
        assert_eq!(valid_name("name", &"é".repeat(200)).unwrap().len(), 400);
    }

    #[test]
    fn names_that_hide_or_reorder_text_are_refused_and_names_are_composed() {
        for name in [
            "Ada\u{202E}",
            "A\u{200B}da",
            "\u{2066}Ada\u{2069}",
            "\u{FEFF}Ada",
        ] {
            let (field, code, message) = broken(valid_name("name", name).unwrap_err());
            assert_eq!((field.as_str(), code), ("name", ErrorCode::InvalidName));
            assert!(message.contains("hide or reorder text"), "{message}");
        }
        assert_eq!(valid_name("name", "Jose\u{301}").unwrap(), "Jos\u{e9}");
    }

    #[test]
    fn empty_long_and_control_names_are_refused() {
        for name in ["", "   ", &"x".repeat(201)] {
            let (field, code, message) = broken(valid_name("team_name", name).unwrap_err());
            assert_eq!(
                (field.as_str(), code),
                ("team_name", ErrorCode::InvalidName)
            );
            assert_eq!(message, "team_name must have 1 to 200 characters");
        }
        let (_, code, message) = broken(valid_name("reason", "a\0b").unwrap_err());
        assert_eq!(code, ErrorCode::InvalidName);
        assert_eq!(message, "reason must not contain control characters");
    }

    #[test]
    fn settings_take_their_default_and_stay_in_range() {
        assert_eq!(setting::<u32>("rounds", None, 3, 1..=15).unwrap(), 3);
        assert_eq!(setting::<u32>("rounds", Some(15), 3, 1..=15).unwrap(), 15);
        for outside in [0, 16, -1, i64::MAX] {
            let (field, code, message) =
                broken(setting::<u32>("rounds", Some(outside), 3, 1..=15).unwrap_err());
            assert_eq!((field.as_str(), code), ("rounds", ErrorCode::OutOfRange));
            assert_eq!(message, "rounds must be 1 to 15");
        }
    }

    #[test]
    fn a_default_outside_the_range_is_refused_too() {
        assert!(setting::<u8>("team_target_vp", None, 4, 5..=44).is_err());
    }

    #[test]
    fn the_first_foreign_setting_given_is_named() {
        assert!(refuse_foreign(&[("a", false), ("b", false)], "classic").is_ok());
        let (field, code, message) = broken(
            refuse_foreign(&[("a", false), ("b", true), ("c", true)], "classic").unwrap_err(),
        );
        assert_eq!((field.as_str(), code), ("b", ErrorCode::NotForFormat));
        assert_eq!(message, "b does not apply to classic events");
    }

    #[test]
    fn a_blank_search_is_no_search_and_control_characters_are_refused() {
        assert_eq!(searched_name(None).unwrap(), None);
        assert_eq!(searched_name(Some("  ")).unwrap(), None);
        assert_eq!(
            searched_name(Some(" José ")).unwrap().as_deref(),
            Some("José")
        );
        for refused in ["a\u{0}b", &"x".repeat(201)] {
            let (field, code) = field_and_code(searched_name(Some(refused)).unwrap_err());
            assert_eq!((field.as_str(), code), ("q", ErrorCode::InvalidQuery));
        }
    }

    #[test]
    fn a_searched_range_may_be_open_or_one_day_but_not_end_before_it_starts() {
        let day = |d| NaiveDate::from_ymd_opt(2026, 4, d).unwrap();
        assert_eq!(searched_days(None, None).unwrap(), (None, None));
        assert_eq!(
            searched_days(Some(day(3)), None).unwrap(),
            (Some(day(3)), None)
        );
        assert_eq!(
            searched_days(Some(day(3)), Some(day(3))).unwrap(),
            (Some(day(3)), Some(day(3)))
        );
        let (field, code, message) = broken(searched_days(Some(day(4)), Some(day(3))).unwrap_err());
        assert_eq!((field.as_str(), code), ("to", ErrorCode::EndsBeforeStart));
        assert_eq!(
            message,
            "to (2026-04-03) must not be before from (2026-04-04)"
        );
    }

    #[test]
    fn an_optional_name_is_checked_when_given() {
        assert_eq!(valid_optional_name("venue", None).unwrap(), None);
        assert_eq!(
            valid_optional_name("venue", Some(" Casal "))
                .unwrap()
                .as_deref(),
            Some("Casal")
        );
        let (field, code) = field_and_code(valid_optional_name("venue", Some(" ")).unwrap_err());
        assert_eq!((field.as_str(), code), ("venue", ErrorCode::InvalidName));
    }

    #[test]
    fn broken_rules_are_all_listed() {
        let error = |field: &str| FieldError {
            field: field.into(),
            code: ErrorCode::SamePlayer,
            message: format!("{field} is wrong"),
        };
        match broken_rules(vec![error("a"), error("b")]) {
            ApiError::Validation { detail, errors } => {
                assert_eq!(detail, "2 rules broken; see errors");
                assert_eq!(errors, [error("a"), error("b")]);
            }
            other => panic!("not a 422: {other:?}"),
        }
        assert_eq!(broken(broken_rules(vec![error("a")])).2, "a is wrong");
    }
}
