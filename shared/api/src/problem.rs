//! RFC 9457 problem details, as every service answers errors.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub const PROBLEM_JSON: &str = "application/problem+json";

/// The stable identifier of the rule a field breaks: what a client switches on (the message is
/// for people and may change).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    // The results sheet's rules (`catan_domain::results::RuleCode`).
    UnknownPlayer,
    DuplicatePlayer,
    MissingPlayer,
    OutOfRange,
    WinnerMissing,
    WinnerNotSeated,
    WinnerBelowTen,
    WinnerAtTimeLimit,
    FinalAtTimeLimit,
    TooFewBuildings,
    BreakdownSumMismatch,
    TooManyVpCards,
    MultipleLongestRoadHolders,
    MultipleLargestArmyHolders,
    WinnerBelowTarget,
    // The request itself.
    /// The body does not fit the schema.
    InvalidJson,
    /// A query parameter does not parse.
    InvalidQuery,
    InvalidIdempotencyKey,
    /// The Idempotency-Key was used for another request.
    KeyReused,
    Required,
    /// A setting or field of the other event format.
    NotForFormat,
    InvalidName,
    InvalidReason,
    // Registration's rules.
    UnknownEvent,
    UnknownRegion,
    /// A partner event's team target no game can reach.
    Unplayable,
    /// A team is two different players.
    TeamOfTwo,
    /// A keep-apart pair names one player twice.
    SamePlayer,
    /// A keep-apart pair names a player not entered in the event.
    NotEntered,
    /// API keys are made for the admin, director and scorer roles.
    NotAKeyRole,
    NotAllowed,
    // Webhooks.
    /// A list that must name at least one item names none.
    Empty,
    /// A text longer than its limit.
    TooLong,
    InvalidUrl,
    UnsupportedScheme,
    CredentialsInUrl,
    PrivateAddress,
    UnresolvableHost,
}

impl ErrorCode {
    /// The code as it is written in a problem document.
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorCode::UnknownPlayer => "unknown_player",
            ErrorCode::DuplicatePlayer => "duplicate_player",
            ErrorCode::MissingPlayer => "missing_player",
            ErrorCode::OutOfRange => "out_of_range",
            ErrorCode::WinnerMissing => "winner_missing",
            ErrorCode::WinnerNotSeated => "winner_not_seated",
            ErrorCode::WinnerBelowTen => "winner_below_ten",
            ErrorCode::WinnerAtTimeLimit => "winner_at_time_limit",
            ErrorCode::FinalAtTimeLimit => "final_at_time_limit",
            ErrorCode::TooFewBuildings => "too_few_buildings",
            ErrorCode::BreakdownSumMismatch => "breakdown_sum_mismatch",
            ErrorCode::TooManyVpCards => "too_many_vp_cards",
            ErrorCode::MultipleLongestRoadHolders => "multiple_longest_road_holders",
            ErrorCode::MultipleLargestArmyHolders => "multiple_largest_army_holders",
            ErrorCode::WinnerBelowTarget => "winner_below_target",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::InvalidQuery => "invalid_query",
            ErrorCode::InvalidIdempotencyKey => "invalid_idempotency_key",
            ErrorCode::KeyReused => "key_reused",
            ErrorCode::Required => "required",
            ErrorCode::NotForFormat => "not_for_format",
            ErrorCode::InvalidName => "invalid_name",
            ErrorCode::InvalidReason => "invalid_reason",
            ErrorCode::UnknownEvent => "unknown_event",
            ErrorCode::UnknownRegion => "unknown_region",
            ErrorCode::Unplayable => "unplayable",
            ErrorCode::TeamOfTwo => "team_of_two",
            ErrorCode::SamePlayer => "same_player",
            ErrorCode::NotEntered => "not_entered",
            ErrorCode::NotAKeyRole => "not_a_key_role",
            ErrorCode::NotAllowed => "not_allowed",
            ErrorCode::Empty => "empty",
            ErrorCode::TooLong => "too_long",
            ErrorCode::InvalidUrl => "invalid_url",
            ErrorCode::UnsupportedScheme => "unsupported_scheme",
            ErrorCode::CredentialsInUrl => "credentials_in_url",
            ErrorCode::PrivateAddress => "private_address",
            ErrorCode::UnresolvableHost => "unresolvable_host",
        }
    }
}

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

impl From<catan_domain::results::RuleCode> for ErrorCode {
    fn from(code: catan_domain::results::RuleCode) -> Self {
        use catan_domain::results::RuleCode as Rule;
        match code {
            Rule::UnknownPlayer => ErrorCode::UnknownPlayer,
            Rule::DuplicatePlayer => ErrorCode::DuplicatePlayer,
            Rule::MissingPlayer => ErrorCode::MissingPlayer,
            Rule::OutOfRange => ErrorCode::OutOfRange,
            Rule::WinnerMissing => ErrorCode::WinnerMissing,
            Rule::WinnerNotSeated => ErrorCode::WinnerNotSeated,
            Rule::WinnerBelowTen => ErrorCode::WinnerBelowTen,
            Rule::WinnerAtTimeLimit => ErrorCode::WinnerAtTimeLimit,
            Rule::FinalAtTimeLimit => ErrorCode::FinalAtTimeLimit,
            Rule::TooFewBuildings => ErrorCode::TooFewBuildings,
            Rule::BreakdownSumMismatch => ErrorCode::BreakdownSumMismatch,
            Rule::TooManyVpCards => ErrorCode::TooManyVpCards,
            Rule::MultipleLongestRoadHolders => ErrorCode::MultipleLongestRoadHolders,
            Rule::MultipleLargestArmyHolders => ErrorCode::MultipleLargestArmyHolders,
            Rule::WinnerBelowTarget => ErrorCode::WinnerBelowTarget,
        }
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
            "required",
            "not_for_format",
            "invalid_name",
            "invalid_reason",
            "unknown_event",
            "unknown_region",
            "unplayable",
            "team_of_two",
            "same_player",
            "not_entered",
            "not_a_key_role",
            "not_allowed",
            "empty",
            "too_long",
            "invalid_url",
            "unsupported_scheme",
            "credentials_in_url",
            "private_address",
            "unresolvable_host"
        ]))
        .expect("every code parses");
        assert_eq!(all.len(), 38);
        for code in all {
            assert_eq!(serde_json::to_value(code).expect("a string"), code.as_str());
        }
    }
}
