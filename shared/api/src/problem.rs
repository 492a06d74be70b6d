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
    // Webhook URLs.
    InvalidUrl,
    UnsupportedScheme,
    CredentialsInUrl,
    PrivateAddress,
    UnresolvableHost,
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
