//! The errors every operation can answer, documented on every operation (the rate limits' 429
//! in [`super::DocumentRateLimits`]).

use utoipa::Modify;
use utoipa::openapi::OpenApi;

/// Documents on every operation the errors its annotation leaves out, and a description on
/// every response.
pub struct DocumentErrors;

impl Modify for DocumentErrors {
    fn modify(&self, doc: &mut OpenApi) {
        super::operations_mut(doc).for_each(document_errors);
    }
}

/// Every error an operation can answer, documented where the handler's annotation leaves it
/// out: the framework's own (malformed JSON, oversized body, a path or query that does not
/// parse) and the service's (a database or peer that does not answer), all problem+json; and a
/// description on every response, as OpenAPI requires.
fn document_errors(operation: &mut utoipa::openapi::path::Operation) {
    use utoipa::openapi::path::ParameterIn;
    use utoipa::openapi::{ContentBuilder, RefOr, ResponseBuilder};
    let parameters: Vec<ParameterIn> = operation
        .parameters
        .iter()
        .flatten()
        .filter_map(|p| match p {
            RefOr::T(p) => Some(p.parameter_in.clone()),
            RefOr::Ref(_) => None,
        })
        .collect();
    let mut standard: Vec<(&str, &str)> = vec![
        (
            "500",
            "An unexpected error; its detail is logged, not shown",
        ),
        (
            "503",
            "A database or service this call needs did not answer; nothing was written",
        ),
    ];
    if operation.request_body.is_some() {
        standard.push(("400", "The body is not JSON"));
        standard.push(("413", "The body is larger than 64 KiB"));
        standard.push((
            "422",
            "The body does not fit the schema or breaks a rule; `errors` names each field",
        ));
    }
    if parameters.iter().any(|p| matches!(p, ParameterIn::Path)) {
        standard.push((
            "404",
            "No such resource (or a path parameter that does not parse)",
        ));
    }
    if parameters.iter().any(|p| matches!(p, ParameterIn::Query)) {
        standard.push(("422", "A query parameter that does not parse"));
    }
    if operation.security.is_some() {
        standard.push((
            "401",
            "No token, or one that is expired, not yet valid, tampered with or foreign",
        ));
        standard.push(("403", "The token's role or events do not allow this"));
    }
    let problem = ContentBuilder::new()
        .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
            "Problem",
        ))))
        .build();
    for (status, description) in standard {
        operation
            .responses
            .responses
            .entry(status.to_string())
            .or_insert_with(|| {
                RefOr::T(
                    ResponseBuilder::new()
                        .description(description)
                        .content(crate::problem::PROBLEM_JSON, problem.clone())
                        .build(),
                )
            });
    }
    for (status, response) in operation.responses.responses.iter_mut() {
        if let RefOr::T(response) = response
            && response.description.is_empty()
        {
            response.description = describe(status).to_string();
        }
    }
}

fn describe(status: &str) -> &'static str {
    match status {
        "200" => "OK",
        "201" => "Created",
        "400" => "The body is not JSON",
        "401" => "No token, or one that is expired, not yet valid, tampered with or foreign",
        "403" => "The token's role or events do not allow this",
        "404" => "No such resource",
        "409" => "The request conflicts with the current state",
        "412" => "The resource changed since the ETag given in If-Match",
        "413" => "The body is larger than 64 KiB",
        "422" => "The request breaks a rule; `errors` names each field",
        "428" => "The request must carry If-Match",
        "429" => "Too many requests; retry after `Retry-After` seconds",
        "503" => "A database or service this call needs did not answer; nothing was written",
        _ => "See the problem document",
    }
}
