//! Read your own writes in the contract: the `Catan-Position` every write ranking follows
//! answers, and the header and `position` query parameter every ranking operation takes it back
//! in, with the 503 it answers when its read model does not include it in time.

use crate::consistency::{POSITION_HEADER, POSITION_PATTERN, POSITION_QUERY};
use utoipa::Modify;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{Operation, Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::{
    ContentBuilder, ObjectBuilder, OpenApi, Ref, RefOr, Required, ResponseBuilder, Type,
};

/// Documents `Catan-Position` on the writes of the services ranking follows, and on every
/// operation of ranking the header and query parameter it takes and the 503 of a wait that ran
/// out.
pub struct DocumentPositions;

/// The services whose writes ranking's read model follows, by their operations' tag.
const PRODUCERS: [&str; 3] = ["registration", "results", "ranking"];

/// Writes of those services that answer no position: they change nothing ranking follows, or
/// change nothing at all.
const NOT_FOLLOWED: [&str; 1] = ["/v1/predictions"];

impl Modify for DocumentPositions {
    fn modify(&self, doc: &mut OpenApi) {
        for (path, item) in doc.paths.paths.iter_mut() {
            let writes = [
                &mut item.put,
                &mut item.post,
                &mut item.patch,
                &mut item.delete,
            ];
            for operation in writes.into_iter().flatten() {
                if tagged(operation, &PRODUCERS) && !NOT_FOLLOWED.contains(&path.as_str())
                    || path == "/v1/webhooks"
                {
                    answer_position(operation);
                }
            }
            let all = [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.patch,
                &mut item.delete,
            ];
            for operation in all.into_iter().flatten() {
                if tagged(operation, &["ranking"]) {
                    take_position(operation);
                }
            }
        }
    }
}

fn tagged(operation: &Operation, tags: &[&str]) -> bool {
    operation
        .tags
        .iter()
        .flatten()
        .any(|tag| tags.contains(&tag.as_str()))
}

fn token_schema() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(POSITION_PATTERN))
        .max_length(Some(1000))
}

/// Every successful answer of a write carries its position.
fn answer_position(operation: &mut Operation) {
    for (status, response) in operation.responses.responses.iter_mut() {
        let RefOr::T(response) = response else {
            continue;
        };
        if !status.starts_with('2') {
            continue;
        }
        response
            .headers
            .entry(POSITION_HEADER.to_string())
            .or_insert_with(|| {
                RefOr::T(
                    HeaderBuilder::new()
                        .schema(Some(token_schema().examples(["v1.812.0.0"])))
                        .description(Some(
                            "Where this write is in the feeds ranking follows: send it back with a \
                         ranking read (the `Catan-Position` header, or `position` in a link) to \
                         read a model that includes it",
                        ))
                        .build(),
                )
            });
    }
}

/// A ranking operation takes positions back, and answers 503 when its wait for them runs out.
fn take_position(operation: &mut Operation) {
    let parameters = operation.parameters.get_or_insert_with(Vec::new);
    let description = "Positions of writes (`Catan-Position` answers) this read must include, \
                       several separated by commas: it answers once ranking's read model includes \
                       them, or 503";
    let mut add = |name: &str, place: ParameterIn| {
        if parameters
            .iter()
            .any(|p| matches!(p, RefOr::T(p) if p.name == name))
        {
            return;
        }
        let parameter: Parameter = ParameterBuilder::new()
            .name(name)
            .parameter_in(place)
            .required(Required::False)
            .description(Some(description))
            .schema(Some(token_schema()))
            .build();
        parameters.push(RefOr::T(parameter));
    };
    add(POSITION_HEADER, ParameterIn::Header);
    add(POSITION_QUERY, ParameterIn::Query);
    let problem = ContentBuilder::new()
        .schema(Some(RefOr::Ref(Ref::from_schema_name("Problem"))))
        .build();
    operation
        .responses
        .responses
        .entry("503".to_string())
        .or_insert_with(|| {
            RefOr::T(
                ResponseBuilder::new()
                    .description(
                        "The read model did not include the positions asked for within \
                         `CATAN_CONSISTENCY_WAIT_MS` (2 s): retry after `Retry-After` seconds",
                    )
                    .header(
                        "Retry-After",
                        HeaderBuilder::new()
                            .schema(Some(
                                ObjectBuilder::new()
                                    .schema_type(Type::Integer)
                                    .minimum(Some(1)),
                            ))
                            .description(Some("Whole seconds to wait before the next try"))
                            .build(),
                    )
                    .content(crate::problem::PROBLEM_JSON, problem)
                    .build(),
            )
        });
    let invalid = operation.responses.responses.entry("422".to_string());
    invalid.or_insert_with(|| {
        RefOr::T(
            ResponseBuilder::new()
                .description("A position no write answered (`invalid_position`)")
                .content(
                    crate::problem::PROBLEM_JSON,
                    ContentBuilder::new()
                        .schema(Some(RefOr::Ref(Ref::from_schema_name("Problem"))))
                        .build(),
                )
                .build(),
        )
    });
}
