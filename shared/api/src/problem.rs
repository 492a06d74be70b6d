//! RFC 9457 problem details, as every service answers errors.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub const PROBLEM_JSON: &str = "application/problem+json";

/// One field-level message inside a problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FieldError {
    /// JSON path of the offending field, e.g. `scores[2].vp`.
    pub field: String,
    /// Stable identifier of the rule broken, e.g. `vp_out_of_range`.
    pub code: String,
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
