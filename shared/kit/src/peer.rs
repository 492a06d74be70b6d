//! Answers from peer services, turned into this service's errors.

use crate::ApiError;
use catan_api::ClientError;
use std::future::Future;

/// A peer's 404 stays a 404 (the event or round does not exist); a peer that refuses a call, cannot
/// be reached or fails is this service's failure: a 500 or a 503 (retry later; nothing was
/// written) whose cause goes to the log, not to the caller.
impl From<ClientError> for ApiError {
    fn from(error: ClientError) -> Self {
        match error {
            ClientError::Problem { problem } if problem.status == 404 => {
                ApiError::NotFound(problem.detail)
            }
            ClientError::Problem { ref problem } if problem.status < 500 => {
                ApiError::internal(error)
            }
            other => ApiError::unavailable(
                "a service this call needs is unavailable; retry later",
                other,
            ),
        }
    }
}

/// A list that came out empty may be the list of something that does not exist: then `parent`,
/// the call that reads it from the service that owns it, answers 404, and so does this.
pub async fn parent_exists_if_empty<T, P>(
    items: &[T],
    parent: impl Future<Output = Result<P, ClientError>>,
) -> Result<(), ApiError> {
    if items.is_empty() {
        parent.await?;
    }
    Ok(())
}
