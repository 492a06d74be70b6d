//! OpenAPI links: the API's own flow from what an operation creates to what uses it.

use utoipa::Modify;
use utoipa::openapi::OpenApi;

/// Links each operation that creates something to those that read or use it.
pub struct LinkOperations;

impl Modify for LinkOperations {
    fn modify(&self, doc: &mut OpenApi) {
        link_operations(doc);
    }
}

/// OpenAPI links from each operation that creates something to those that read or use it, so
/// that clients (and stateful testers) can follow the API's own flow: an event leads to its
/// entries, rounds, results and standings; a round to its tables' results and boards.
fn link_operations(doc: &mut OpenApi) {
    use serde_json::{Value, json};
    use utoipa::openapi::RefOr;
    use utoipa::openapi::link::LinkBuilder;
    const EVENT: &str = "$response.body#/event_id";
    let event = json!({"event_id": "$response.body#/id"});
    let round = json!({"event_id": EVENT, "number": "$response.body#/number"});
    let round_as_round = json!({"event_id": EVENT, "round": "$response.body#/number"});
    let first_table = json!({"event_id": EVENT, "round": "$response.body#/number", "table": "$response.body#/tables/0/number"});
    let first_board = json!({"event_id": EVENT, "number": "$response.body#/number", "table": "$response.body#/tables/0/number"});
    let result = json!({"event_id": EVENT, "round": "$response.body#/round", "table": "$response.body#/table"});
    let result_round = json!({"event_id": EVENT, "round": "$response.body#/round"});
    let by_event = json!({"event_id": EVENT});
    let links: Vec<(&str, &str, &str, Value)> = vec![
        ("create_event", "201", "get_event", event.clone()),
        ("create_event", "201", "create_entry", event.clone()),
        ("create_event", "201", "list_entries", event.clone()),
        ("create_event", "201", "draw_round", event.clone()),
        ("create_event", "201", "list_rounds", event.clone()),
        ("create_event", "201", "result_changes", event.clone()),
        ("create_event", "201", "standings", event.clone()),
        ("create_event", "201", "standings_stream", event.clone()),
        ("create_event", "201", "event_placements", event.clone()),
        (
            "create_entry",
            "201",
            "drop_entry",
            json!({"event_id": EVENT, "entry_id": "$response.body#/id"}),
        ),
        ("create_entry", "201", "list_entries", by_event.clone()),
        ("create_entry", "201", "draw_round", by_event.clone()),
        (
            "create_player",
            "201",
            "get_player",
            json!({"player_id": "$response.body#/id"}),
        ),
        ("draw_round", "201", "get_round", round.clone()),
        ("draw_round", "201", "round_results", round_as_round.clone()),
        ("draw_round", "201", "table_board", first_board.clone()),
        ("draw_round", "201", "submit_result", first_table.clone()),
        ("draw_round", "201", "get_result", first_table.clone()),
        ("draw_round", "201", "result_history", first_table.clone()),
        ("submit_result", "201", "get_result", result.clone()),
        ("submit_result", "201", "result_history", result.clone()),
        (
            "submit_result",
            "201",
            "round_results",
            result_round.clone(),
        ),
        ("submit_result", "201", "standings", by_event.clone()),
        ("submit_result", "201", "draw_round", by_event.clone()),
        (
            "create_webhook",
            "201",
            "get_webhook",
            json!({"webhook_id": "$response.body#/id"}),
        ),
        (
            "create_webhook",
            "201",
            "list_deliveries",
            json!({"webhook_id": "$response.body#/id"}),
        ),
        (
            "create_webhook",
            "201",
            "delete_webhook",
            json!({"webhook_id": "$response.body#/id"}),
        ),
    ];
    let mut operations: std::collections::HashMap<String, &mut utoipa::openapi::path::Operation> =
        std::collections::HashMap::new();
    for operation in super::operations_mut(doc) {
        if let Some(id) = operation.operation_id.clone() {
            operations.insert(id, operation);
        }
    }
    let known: std::collections::HashSet<String> = operations.keys().cloned().collect();
    for (from, status, to, parameters) in links {
        assert!(known.contains(to), "a link to the unknown operation {to}");
        let operation = operations
            .get_mut(from)
            .unwrap_or_else(|| panic!("a link from the unknown operation {from}"));
        let Some(RefOr::T(response)) = operation.responses.responses.get_mut(status) else {
            panic!("a link from {from}'s missing {status} response");
        };
        let mut link = LinkBuilder::new().operation_id(to);
        for (name, value) in parameters.as_object().into_iter().flatten() {
            link = link.parameter(name, value.clone());
        }
        response
            .links
            .insert(to.to_string(), RefOr::T(link.build()));
    }
}
