//! The v1 contract as an OpenAPI document: what the services' own annotations leave to the
//! contract as a whole, applied as `Modify` steps to the merged document of the four services.

mod errors;
mod limits;
mod links;
mod positions;
mod text;

pub use errors::DocumentErrors;
pub use limits::DocumentRateLimits;
pub use links::LinkOperations;
pub use positions::DocumentPositions;
pub use text::{ConstrainText, text_pattern};

use utoipa::Modify;
use utoipa::openapi::OpenApi;

/// The document's title, version and description.
pub struct Info;

impl Modify for Info {
    fn modify(&self, doc: &mut OpenApi) {
        doc.info = utoipa::openapi::InfoBuilder::new()
            .title("Catan tournaments API")
            .version("1.0.0")
            .description(Some(
                "Registration, pairing, results and ranking of Settlers of Catan tournaments. Errors are RFC 9457 problem+json.",
            ))
            .build();
    }
}

/// The `bearer` security scheme the operations' `security` names: a JWT from `/v1/auth/token`.
pub struct BearerTokens;

impl Modify for BearerTokens {
    fn modify(&self, doc: &mut OpenApi) {
        use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
        let components = doc.components.get_or_insert_with(Default::default);
        let mut bearer = Http::new(HttpAuthScheme::Bearer);
        bearer.bearer_format = Some("JWT".into());
        components.add_security_scheme("bearer", SecurityScheme::Http(bearer));
    }
}

/// Every operation of the document.
fn operations_mut(
    doc: &mut OpenApi,
) -> impl Iterator<Item = &mut utoipa::openapi::path::Operation> {
    doc.paths.paths.values_mut().flat_map(|item| {
        [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.patch,
            &mut item.delete,
        ]
        .into_iter()
        .flatten()
    })
}

/// Finishes the merged document of the services into the v1 contract.
pub fn finish(doc: &mut OpenApi) {
    let steps: [&dyn Modify; 7] = [
        &Info,
        &BearerTokens,
        &DocumentErrors,
        &DocumentRateLimits,
        &DocumentPositions,
        &ConstrainText,
        &LinkOperations,
    ];
    for step in steps {
        step.modify(doc);
    }
}
