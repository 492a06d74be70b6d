//! Answers from peer services, turned into this service's errors.

use crate::ApiError;
use catan_api::ClientError;

/// A peer's 404 stays a 404 (the event or round does not exist); a peer that cannot be reached or
/// fails is a 503 naming it, so the caller knows to retry later and nothing was written.
pub fn peer_error(service: &str, error: ClientError) -> ApiError {
    match error {
        ClientError::Problem { problem } if problem.status == 404 => {
            ApiError::NotFound(problem.detail)
        }
        ClientError::Problem { problem } if problem.status < 500 => ApiError::internal(format!(
            "{service} service refused a call: {} {}",
            problem.status, problem.detail
        )),
        other => ApiError::Unavailable(format!("the {service} service is unavailable: {other}")),
    }
}
