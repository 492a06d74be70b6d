//! Names and reasons: what the services accept as bounded text, stated as a pattern in the spec.

use utoipa::Modify;
use utoipa::openapi::OpenApi;

/// Every bounded text field of a request (`minLength` 1 and a `maxLength`: names, team names,
/// reasons) is checked by the rule of [`text_pattern`], the same for all of them: the pattern
/// replaces the `maxLength`.
pub struct ConstrainText;

impl Modify for ConstrainText {
    fn modify(&self, doc: &mut OpenApi) {
        constrain_text(doc);
    }
}

/// Rust's whitespace (`char::is_whitespace`), which `str::trim` removes.
const SPACE: &str =
    r"[\u0009-\u000D\u0020\u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]";
/// Neither whitespace nor a control character (`char::is_control`).
const VISIBLE: &str =
    r"[^\u0000-\u0020\u007F-\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]";
/// Not a control character.
const NOT_CONTROL: &str = r"[^\u0000-\u001F\u007F-\u009F]";

/// What the services accept as a name or reason of at most `max` characters (`valid_name` in
/// registration, the dispute's reason in results): once trimmed of whitespace, 1 to `max`
/// characters without control characters. The whitespace around is not counted, so the bound is
/// in the pattern rather than a `maxLength`.
pub fn text_pattern(max: usize) -> String {
    let inner = max.saturating_sub(2);
    format!("^{SPACE}*{VISIBLE}(?:{NOT_CONTROL}{{0,{inner}}}{VISIBLE})?{SPACE}*$")
}

fn constrain_text(doc: &mut OpenApi) {
    use utoipa::openapi::{RefOr, Schema};
    let Some(components) = doc.components.as_mut() else {
        return;
    };
    for schema in components.schemas.values_mut() {
        let RefOr::T(Schema::Object(object)) = schema else {
            continue;
        };
        for property in object.properties.values_mut() {
            if let RefOr::T(Schema::Object(text)) = property
                && let (Some(1), Some(max), None) =
                    (text.min_length, text.max_length, &text.pattern)
            {
                text.pattern = Some(text_pattern(max));
                text.max_length = None;
                let rule = format!(
                    "1 to {max} characters once trimmed of whitespace, without control characters."
                );
                text.description = Some(match text.description.take() {
                    Some(d) if !d.is_empty() => format!("{d} {rule}"),
                    _ => rule,
                });
            }
        }
    }
}
