//! The rate limits' 429, documented on every operation with its `Retry-After` header.

use utoipa::Modify;
use utoipa::openapi::OpenApi;

/// Documents 429 on every operation, and the `Retry-After` header on every 429.
///
/// Every request without a valid token is held to its client address's budget before it is
/// routed, so any operation can answer 429 to a caller without a token (one that needs a token
/// answers 429 rather than 401 then); one with a token is held to its API key's budget. A 429 a
/// handler documents itself (the token routes', the standings stream's) keeps its description.
pub struct DocumentRateLimits;

impl Modify for DocumentRateLimits {
    fn modify(&self, doc: &mut OpenApi) {
        super::operations_mut(doc).for_each(document_rate_limits);
    }
}

/// The header every 429 carries.
const RETRY_AFTER: &str = "Retry-After";

fn document_rate_limits(operation: &mut utoipa::openapi::path::Operation) {
    use utoipa::openapi::header::HeaderBuilder;
    use utoipa::openapi::{ContentBuilder, ObjectBuilder, RefOr, ResponseBuilder, Type};
    let description = if operation.security.is_some() {
        "Too many requests: this API key is over its rate limit or, without a valid token, this \
         client address is over its budget; retry after `Retry-After` seconds"
    } else {
        "Too many requests without a token from this client address; retry after `Retry-After` \
         seconds"
    };
    let problem = ContentBuilder::new()
        .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
            "Problem",
        ))))
        .build();
    let too_many = operation
        .responses
        .responses
        .entry("429".to_string())
        .or_insert_with(|| {
            RefOr::T(
                ResponseBuilder::new()
                    .description(description)
                    .content(crate::problem::PROBLEM_JSON, problem)
                    .build(),
            )
        });
    if let RefOr::T(too_many) = too_many {
        too_many
            .headers
            .entry(RETRY_AFTER.to_string())
            .or_insert_with(|| {
                RefOr::T(
                    HeaderBuilder::new()
                        .schema(Some(
                            ObjectBuilder::new()
                                .schema_type(Type::Integer)
                                .minimum(Some(1))
                                .build(),
                        ))
                        .description(Some("Whole seconds to wait before the next try"))
                        .build(),
                )
            });
    }
}
