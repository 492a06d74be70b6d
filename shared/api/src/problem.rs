//! RFC 9457 problem details, as every service answers errors.

use catan_domain::results::RuleCode;
use catan_domain::season::SeasonRule;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub const PROBLEM_JSON: &str = "application/problem+json";

/// Makes `ErrorCode` of the rules a results sheet can break (as `catan_domain::with_rule_codes!`
/// hands them over), of the codes the enum lists itself, and of the rules a season's scoring and
/// qualification can break (as `catan_domain::with_season_rule_codes!` hands them over), in that
/// order, each serialized as its `"code"`.
macro_rules! error_codes {
    (
        rules { $($(#[doc = $season_doc:literal])* $season:ident = $season_code:tt,)* }
        sheet { $($(#[doc = $rule_doc:literal])* $rule:ident = $rule_code:tt,)* }
        $(#[$meta:meta])*
        pub enum ErrorCode { $($(#[doc = $doc:literal])* $variant:ident = $code:tt,)* }
    ) => {
        $(#[$meta])*
        pub enum ErrorCode {
            $($(#[doc = $rule_doc])* #[serde(rename = $rule_code)] $rule,)*
            $($(#[doc = $doc])* #[serde(rename = $code)] $variant,)*
            $($(#[doc = $season_doc])* #[serde(rename = $season_code)] $season,)*
        }

        impl ErrorCode {
            /// The code as it is written in a problem document.
            pub fn as_str(&self) -> &'static str {
                match self {
                    $(ErrorCode::$rule => $rule_code,)*
                    $(ErrorCode::$variant => $code,)*
                    $(ErrorCode::$season => $season_code,)*
                }
            }
        }

        impl From<RuleCode> for ErrorCode {
            fn from(code: RuleCode) -> Self {
                match code {
                    $(RuleCode::$rule => ErrorCode::$rule,)*
                }
            }
        }

        impl From<SeasonRule> for ErrorCode {
            fn from(rule: SeasonRule) -> Self {
                match rule {
                    $(SeasonRule::$season => ErrorCode::$season,)*
                }
            }
        }
    };
}

/// Hands the results sheet's rules (as `sheet { ... }`) and then a season's rules (as
/// `rules { ... }`, by `catan_domain::with_season_rule_codes!`) to [`error_codes!`].
macro_rules! with_season_codes {
    (rules { $($sheet:tt)* } $($rest:tt)*) => {
        catan_domain::with_season_rule_codes!(error_codes! { sheet { $($sheet)* } $($rest)* });
    };
}

catan_domain::with_rule_codes!(with_season_codes! {
    /// The stable identifier of the rule a field breaks: what a client switches on (the message is
    /// for people and may change).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
    pub enum ErrorCode {
        // (The results sheet's rules, `catan_domain::results::RuleCode`, come first.)
        // The request itself.
        /// The body does not fit the schema.
        InvalidJson = "invalid_json",
        /// A query parameter does not parse.
        InvalidQuery = "invalid_query",
        /// A change feed's cursor is not one of its pages' `next`.
        InvalidCursor = "invalid_cursor",
        /// A `Catan-Position` (header or `position` query parameter) that no write answered.
        InvalidPosition = "invalid_position",
        InvalidIdempotencyKey = "invalid_idempotency_key",
        /// The Idempotency-Key was used for another request.
        KeyReused = "key_reused",
        /// A retry of a write whose answer showed a secret once (PINs, a key): the secret is
        /// not kept for replays (409, on `Idempotency-Key`).
        ShownOnce = "shown_once",
        /// Wrong PINs for this player from this address, or from this address in all, past
        /// their free tries: a wait (429, on `pin`; `retry_after_seconds` says how long).
        TooManyWrongPins = "too_many_wrong_pins",
        Required = "required",
        /// A setting or field of the other event format.
        NotForFormat = "not_for_format",
        InvalidName = "invalid_name",
        InvalidReason = "invalid_reason",
        /// A `time_limit` sheet for a table whose time is not up (issue 32).
        TimeNotUp = "time_not_up",
        // Registration's rules.
        UnknownEvent = "unknown_event",
        UnknownRegion = "unknown_region",
        /// A partner event's team target no game can reach.
        Unplayable = "unplayable",
        /// A team is two different players.
        TeamOfTwo = "team_of_two",
        /// Two players that must differ are one: a keep-apart pair, or a merge into itself.
        SamePlayer = "same_player",
        /// A keep-apart pair names a player not entered in the event.
        NotEntered = "not_entered",
        /// API keys are made for the admin, director and scorer roles.
        NotAKeyRole = "not_a_key_role",
        NotAllowed = "not_allowed",
        /// A range ends before it starts: an event's `ends_on`, a search's `to`.
        EndsBeforeStart = "ends_before_start",
        /// A merge names a player merged already, as the duplicate or as the survivor.
        AlreadyMerged = "already_merged",
        /// A merge of two players who both have an entry in one event.
        SharedEvent = "shared_event",
        // Webhooks.
        /// A list that must name at least one item names none.
        Empty = "empty",
        /// A text longer than its limit.
        TooLong = "too_long",
        /// A list with more items than its limit (a batch of more than 500 sheets).
        TooMany = "too_many",
        InvalidUrl = "invalid_url",
        UnsupportedScheme = "unsupported_scheme",
        CredentialsInUrl = "credentials_in_url",
        PrivateAddress = "private_address",
        UnresolvableHost = "unresolvable_host",
        // Seasons (ranking); the season's scoring and qualification rules,
        // `catan_domain::season::SeasonRule`, come last.
        /// An event joined to a season whose days do not hold every day of the event.
        OutsideSeason = "outside_season",
        /// An event of another region (or of none) joined to a regional season.
        OtherRegion = "other_region",
        // Venue mode (issue 34).
        /// A write to an event checked out to a venue: its checkout is released first (once the
        /// venue has published it; a publish alone leaves it checked out).
        EventCheckedOut = "event_checked_out",
        /// A venue's public key that is not 32 bytes of base64url without padding.
        InvalidPublicKey = "invalid_public_key",
        /// A record of a venue's copy that differs from the one the suite has (the message says
        /// ours and theirs); the field names the record and its field.
        Differs = "differs",
    }
});

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One field-level message inside a problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FieldError {
    /// JSON path of the offending field, e.g. `scores[2].vp`.
    pub field: String,
    /// Stable identifier of the rule broken.
    pub code: ErrorCode,
    pub message: String,
}

/// An RFC 9457 problem document (`application/problem+json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "type": "/problems/validation",
    "title": "The request breaks a rule",
    "status": 422,
    "detail": "2 rules broken; see errors",
    "errors": [
        {"field": "scores[2].vp", "code": "out_of_range", "message": "VP must be between 2 and 22; got 23."},
        {"field": "winner_player_id", "code": "winner_below_ten", "message": "The winner needs at least 10 VP."}
    ]
}))]
pub struct Problem {
    /// A relative URI naming the kind of problem, e.g. `/problems/validation`.
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
    /// Field-level messages, for validation problems.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
    /// With a 429: the seconds to wait before the next try, as `Retry-After` says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_seconds: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_written_as_serde_writes_it() {
        let all: Vec<ErrorCode> = serde_json::from_value(serde_json::json!([
            "unknown_player",
            "duplicate_player",
            "missing_player",
            "out_of_range",
            "winner_missing",
            "winner_not_seated",
            "winner_below_ten",
            "winner_at_time_limit",
            "final_at_time_limit",
            "too_few_buildings",
            "breakdown_sum_mismatch",
            "too_many_vp_cards",
            "multiple_longest_road_holders",
            "multiple_largest_army_holders",
            "winner_below_target",
            "invalid_json",
            "invalid_query",
            "invalid_idempotency_key",
            "key_reused",
            "shown_once",
            "too_many_wrong_pins",
            "required",
            "not_for_format",
            "invalid_name",
            "invalid_reason",
            "time_not_up",
            "unknown_event",
            "unknown_region",
            "unplayable",
            "team_of_two",
            "same_player",
            "not_entered",
            "not_a_key_role",
            "not_allowed",
            "ends_before_start",
            "already_merged",
            "shared_event",
            "empty",
            "too_long",
            "too_many",
            "invalid_url",
            "unsupported_scheme",
            "credentials_in_url",
            "private_address",
            "unresolvable_host",
            "outside_season",
            "other_region",
            "event_checked_out",
            "invalid_public_key",
            "differs"
        ]))
        .expect("every code parses");
        assert_eq!(all.len(), 50);
        for &code in &all {
            assert_eq!(serde_json::to_value(code).expect("a string"), code.as_str());
        }
        // The results sheet's rules come first, each the API's code of the same name.
        for &code in &all[..15] {
            let rule: RuleCode = serde_json::from_value(code.as_str().into()).expect("a rule code");
            assert_eq!(ErrorCode::from(rule), code);
        }
        // A season's rules are the API's codes of the same names.
        for &rule in SeasonRule::ALL {
            let code = ErrorCode::from(rule);
            assert_eq!(code.as_str(), rule.code());
            assert_eq!(serde_json::to_value(code).expect("a string"), rule.code());
        }
    }
}
