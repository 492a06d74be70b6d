//! RFC 9457 problem details: the one error shape every service answers with.
//!
//! Error policy: bad input is a 4xx naming the field and the rule it broke and changes nothing;
//! a missing or bad token is 401, a token without the right role or event is 403; a peer service
//! that does not answer is 503; anything unexpected is a 500 whose detail is logged, not shown.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use catan_domain::results::Violation;

pub use catan_api::problem::{ErrorCode, FieldError, PROBLEM_JSON, Problem};

fn field_error(v: Violation) -> FieldError {
    FieldError {
        field: v.field,
        code: v.code.into(),
        message: v.message,
    }
}

/// Every error a handler can return.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{detail}")]
    Validation {
        detail: String,
        errors: Vec<FieldError>,
    },
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    /// A write to an event checked out to a venue (issue 34): a 409 whose detail names the venue
    /// and says how to go on, with the code `event_checked_out` on `event_id`.
    #[error("{0}")]
    CheckedOut(String),
    /// A copy that contradicts the records the suite has (issue 34): a 409 listing every
    /// difference in `errors`.
    #[error("{detail}")]
    Contradicts {
        detail: String,
        errors: Vec<FieldError>,
    },
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    PreconditionFailed(String),
    #[error("{0}")]
    PreconditionRequired(String),
    /// A 429 with `Retry-After` (also the problem's `retry_after_seconds`); with `wrong_pins`,
    /// the wait is for wrong PINs (the code `too_many_wrong_pins` on `pin`).
    #[error("{detail}")]
    TooManyRequests {
        detail: String,
        retry_after_seconds: u64,
        wrong_pins: bool,
    },
    #[error("{detail}")]
    MethodNotAllowed { detail: String, allow: String },
    /// A database or peer service this call needs did not answer: `detail` is what the caller
    /// reads, `source` what the log keeps.
    #[error("{detail}")]
    Unavailable {
        detail: String,
        #[source]
        source: Option<BoxError>,
    },
    /// Anything unexpected: the caller reads a generic detail, the log keeps the whole chain.
    #[error("internal error")]
    Internal(#[source] BoxError),
}

/// The cause an error keeps for the log.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl ApiError {
    /// A 422 naming one field.
    pub fn field(field: &str, code: ErrorCode, message: impl Into<String>) -> Self {
        let message = message.into();
        ApiError::Validation {
            detail: message.clone(),
            errors: vec![FieldError {
                field: field.to_string(),
                code,
                message,
            }],
        }
    }

    /// Ok when nothing is broken, else a 422 listing every `(field, code, message)` broken.
    pub fn all_of(broken: Vec<(&str, ErrorCode, &str)>) -> Result<(), Self> {
        if broken.is_empty() {
            return Ok(());
        }
        let detail = broken
            .iter()
            .map(|(_, _, message)| *message)
            .collect::<Vec<_>>()
            .join("; ");
        let errors = broken
            .into_iter()
            .map(|(field, code, message)| FieldError {
                field: field.to_string(),
                code,
                message: message.to_string(),
            })
            .collect();
        Err(ApiError::Validation { detail, errors })
    }

    /// A 422 from the rules' violations.
    pub fn violations(violations: Vec<Violation>) -> Self {
        let errors: Vec<FieldError> = violations.into_iter().map(field_error).collect();
        let detail = match errors.as_slice() {
            [one] => one.message.clone(),
            many => format!("{} rules broken; see errors", many.len()),
        };
        ApiError::Validation { detail, errors }
    }

    /// An unexpected error, keeping `cause` (an error or a message) for the log.
    pub fn internal(cause: impl Into<BoxError>) -> Self {
        ApiError::Internal(cause.into())
    }

    /// A 503 telling the caller `detail`, keeping `cause` for the log.
    pub fn unavailable(detail: impl Into<String>, cause: impl Into<BoxError>) -> Self {
        ApiError::Unavailable {
            detail: detail.into(),
            source: Some(cause.into()),
        }
    }

    /// The error and its causes, outermost first, for the log.
    pub fn chain(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(error) = cause {
            text.push_str(": ");
            text.push_str(&error.to_string());
            cause = error.source();
        }
        text
    }

    fn kind_and_title(&self) -> (&'static str, &'static str) {
        match self {
            ApiError::Validation { .. } => ("/problems/validation", "The request breaks a rule"),
            ApiError::BadRequest(_) => ("/problems/bad-request", "Malformed request"),
            ApiError::Unauthorized(_) => ("/problems/unauthorized", "Authentication required"),
            ApiError::Forbidden(_) => ("/problems/forbidden", "Not allowed"),
            ApiError::NotFound(_) => ("/problems/not-found", "Not found"),
            ApiError::Conflict(_) => ("/problems/conflict", "Conflict with the current state"),
            ApiError::CheckedOut(_) => (
                "/problems/event-checked-out",
                "The event is checked out to a venue",
            ),
            ApiError::Contradicts { .. } => {
                ("/problems/conflict", "Conflict with the current state")
            }
            ApiError::PayloadTooLarge(_) => {
                ("/problems/payload-too-large", "Request body too large")
            }
            ApiError::Unavailable { .. } => (
                "/problems/unavailable",
                "A service this call needs is unavailable",
            ),
            ApiError::PreconditionFailed(_) => (
                "/problems/precondition-failed",
                "The resource changed meanwhile",
            ),
            ApiError::PreconditionRequired(_) => {
                ("/problems/precondition-required", "If-Match is required")
            }
            ApiError::TooManyRequests { .. } => {
                ("/problems/too-many-requests", "Too many requests")
            }
            ApiError::MethodNotAllowed { .. } => {
                ("/problems/method-not-allowed", "Method not allowed")
            }
            ApiError::Internal(_) => ("/problems/internal", "Internal error"),
        }
    }

    pub fn to_problem(&self) -> Problem {
        let (kind, title) = self.kind_and_title();
        let (detail, errors) = match self {
            ApiError::Validation { detail, errors } | ApiError::Contradicts { detail, errors } => {
                (detail.clone(), errors.clone())
            }
            ApiError::CheckedOut(detail) => (
                detail.clone(),
                vec![FieldError {
                    field: "event_id".into(),
                    code: ErrorCode::EventCheckedOut,
                    message: detail.clone(),
                }],
            ),
            ApiError::TooManyRequests {
                detail,
                wrong_pins: true,
                ..
            } => (
                detail.clone(),
                vec![FieldError {
                    field: "pin".into(),
                    code: ErrorCode::TooManyWrongPins,
                    message: detail.clone(),
                }],
            ),
            // Internal details go to the log, not to the caller.
            ApiError::Internal(_) => (
                "An unexpected error occurred; it has been logged.".to_string(),
                vec![],
            ),
            other => (other.to_string(), vec![]),
        };
        Problem {
            kind: kind.to_string(),
            title: title.to_string(),
            status: self.status_code().as_u16(),
            detail,
            errors,
            retry_after_seconds: match self {
                ApiError::TooManyRequests {
                    retry_after_seconds,
                    ..
                } => Some(*retry_after_seconds),
                _ => None,
            },
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::Validation { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) | ApiError::CheckedOut(_) | ApiError::Contradicts { .. } => {
                StatusCode::CONFLICT
            }
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::PreconditionFailed(_) => StatusCode::PRECONDITION_FAILED,
            ApiError::PreconditionRequired(_) => StatusCode::PRECONDITION_REQUIRED,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            ApiError::Internal(_) => tracing::error!(error = %self.chain(), "internal error"),
            ApiError::Unavailable {
                source: Some(_), ..
            } => tracing::warn!(error = %self.chain(), "unavailable"),
            _ => {}
        }
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header((actix_web::http::header::CONTENT_TYPE, PROBLEM_JSON));
        match self {
            ApiError::Unauthorized(_) => {
                response.insert_header(("WWW-Authenticate", "Bearer"));
            }
            ApiError::TooManyRequests {
                retry_after_seconds,
                ..
            } => {
                response.insert_header(("Retry-After", retry_after_seconds.to_string()));
            }
            ApiError::MethodNotAllowed { allow, .. } => {
                response.insert_header(("Allow", allow.clone()));
            }
            // What this call needs may be back, or caught up, in a moment.
            ApiError::Unavailable { .. } => {
                response.insert_header(("Retry-After", "1"));
            }
            _ => {}
        }
        response.json(self.to_problem())
    }
}

impl From<crate::db::DbError> for ApiError {
    fn from(e: crate::db::DbError) -> Self {
        match e {
            crate::db::DbError::Unavailable(_) => {
                ApiError::unavailable("the database is unavailable; retry later", e)
            }
            crate::db::DbError::Query(_) | crate::db::DbError::Migration(_) => {
                ApiError::internal(e)
            }
        }
    }
}

/// JSON body errors (malformed JSON, wrong types, oversized bodies) as problems.
pub fn json_config(limit_bytes: usize) -> actix_web::web::JsonConfig {
    actix_web::web::JsonConfig::default()
        .limit(limit_bytes)
        .content_type_required(false)
        .error_handler(move |err, _req: &HttpRequest| json_problem(err, limit_bytes))
}

/// A JSON body error as the problem it is: 413 past `limit_bytes`, 400 for text that is not JSON,
/// 422 naming the field for JSON of the wrong shape.
pub fn json_problem(
    err: actix_web::error::JsonPayloadError,
    limit_bytes: usize,
) -> actix_web::Error {
    use actix_web::error::JsonPayloadError;
    let api = match &err {
        JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
            ApiError::PayloadTooLarge(format!("the body is larger than {limit_bytes} bytes"))
        }
        // Text that is not JSON at all is a bad request; JSON of the wrong shape is 422.
        JsonPayloadError::Deserialize(de) if de.is_syntax() || de.is_eof() => {
            ApiError::BadRequest(format!("the body is not valid JSON: {de}"))
        }
        JsonPayloadError::Deserialize(de) => {
            let field = field_from_serde_message(&de.to_string());
            ApiError::Validation {
                detail: format!("the JSON body does not match the schema: {de}"),
                errors: vec![FieldError {
                    field,
                    code: ErrorCode::InvalidJson,
                    message: de.to_string(),
                }],
            }
        }
        other => ApiError::BadRequest(format!("unreadable JSON body: {other}")),
    };
    actix_web::error::InternalError::from_response(err, api.error_response()).into()
}

/// Path parameters that do not parse (a table number "x", an id that is not a UUID) are 404s:
/// no such resource exists; unless the path names another route that does not take the method
/// (`PATCH /v1/players/merge-candidates`, taken for `/v1/players/{player_id}`): a 405.
pub fn path_config() -> actix_web::web::PathConfig {
    actix_web::web::PathConfig::default().error_handler(|err, req| {
        let api = req
            .app_data::<actix_web::web::Data<crate::server::RouteTable>>()
            .and_then(|routes| routes.not_allowed(req))
            .unwrap_or_else(|| ApiError::NotFound(format!("no such resource: {err}")));
        actix_web::error::InternalError::from_response(err, api.error_response()).into()
    })
}

pub fn query_config() -> actix_web::web::QueryConfig {
    actix_web::web::QueryConfig::default().error_handler(|err, _req| {
        let api = ApiError::field("query", ErrorCode::InvalidQuery, err.to_string());
        actix_web::error::InternalError::from_response(err, api.error_response()).into()
    })
}

/// The answer to a route that does not exist.
pub async fn not_found(req: HttpRequest) -> HttpResponse {
    ApiError::NotFound(format!("no route for {} {}", req.method(), req.path())).error_response()
}

/// serde_json says "missing field `vp` at line 1 column 20" or "unknown variant `x`, expected ...";
/// the field name is the best we can point at without a path-tracking deserializer.
fn field_from_serde_message(message: &str) -> String {
    message
        .split("field `")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or("body")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_is_read_from_serde_messages() {
        assert_eq!(
            field_from_serde_message("missing field `vp` at line 1 column 2"),
            "vp"
        );
        assert_eq!(
            field_from_serde_message("expected a string at line 1"),
            "body"
        );
    }

    #[test]
    fn internal_errors_do_not_leak_details_but_keep_them_for_the_log() {
        let error = ApiError::internal(std::io::Error::other("password=secret"));
        let p = error.to_problem();
        assert!(!p.detail.contains("secret"));
        assert_eq!(p.status, 500);
        assert_eq!(error.chain(), "internal error: password=secret");
    }

    #[test]
    fn unavailable_errors_show_their_detail_and_log_their_cause() {
        let error = ApiError::unavailable(
            "the pairing service is unavailable; retry later",
            "connection refused to 10.0.0.7:8082",
        );
        let p = error.to_problem();
        assert_eq!(p.status, 503);
        assert!(!p.detail.contains("10.0.0.7"));
        assert!(
            error
                .chain()
                .ends_with("connection refused to 10.0.0.7:8082")
        );
    }
}
