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
/// entries, rounds, results and standings; a round to its tables' results and boards; a season
/// to its events, table, qualified players and declines.
fn link_operations(doc: &mut OpenApi) {
    use serde_json::{Value, json};
    use utoipa::openapi::RefOr;
    use utoipa::openapi::link::LinkBuilder;
    const EVENT: &str = "$response.body#/event_id";
    const CREATED: &str = "201";
    let by_id = |name: &str| json!({ name: "$response.body#/id" });
    let by_event = json!({"event_id": EVENT});
    // Each operation that creates something, the parameters its answer gives, and the operations
    // that take them.
    let links: Vec<(&str, Value, &[&str])> = vec![
        // Not to the standings: ranking's read model reads the new event a moment later.
        (
            "create_event",
            by_id("event_id"),
            &[
                "get_event",
                "create_entry",
                "list_entries",
                "draw_round",
                "list_rounds",
                "result_changes",
            ],
        ),
        (
            "create_entry",
            json!({"event_id": EVENT, "entry_id": "$response.body#/id"}),
            &["drop_entry"],
        ),
        (
            "create_entry",
            by_event.clone(),
            &["list_entries", "draw_round"],
        ),
        // Not to the player's profile: ranking reads registration's players a moment later.
        ("create_player", by_id("player_id"), &["get_player"]),
        (
            "create_season",
            by_id("season_id"),
            &[
                "get_season",
                "join_event",
                "leave_event",
                "season_standings",
                "season_qualified",
                "decline_place",
            ],
        ),
        (
            "draw_round",
            json!({"event_id": EVENT, "number": "$response.body#/number"}),
            &["get_round"],
        ),
        (
            "draw_round",
            json!({"event_id": EVENT, "round": "$response.body#/number"}),
            &["round_results"],
        ),
        (
            "draw_round",
            json!({"event_id": EVENT, "number": "$response.body#/number", "table": "$response.body#/tables/0/number"}),
            &["table_board"],
        ),
        (
            "draw_round",
            json!({"event_id": EVENT, "round": "$response.body#/number", "table": "$response.body#/tables/0/number"}),
            &["submit_result", "get_result", "result_history"],
        ),
        (
            "submit_result",
            json!({"event_id": EVENT, "round": "$response.body#/round", "table": "$response.body#/table"}),
            &["get_result", "result_history"],
        ),
        (
            "submit_result",
            json!({"event_id": EVENT, "round": "$response.body#/round"}),
            &["round_results"],
        ),
        ("submit_result", by_event, &["standings", "draw_round"]),
        (
            "create_webhook",
            by_id("webhook_id"),
            &["get_webhook", "list_deliveries", "delete_webhook"],
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
    for (from, parameters, targets) in links {
        let operation = operations
            .get_mut(from)
            .unwrap_or_else(|| panic!("a link from the unknown operation {from}"));
        let Some(RefOr::T(response)) = operation.responses.responses.get_mut(CREATED) else {
            panic!("a link from {from}'s missing {CREATED} response");
        };
        for &to in targets {
            assert!(known.contains(to), "a link to the unknown operation {to}");
            let mut link = LinkBuilder::new().operation_id(to);
            for (name, value) in parameters.as_object().into_iter().flatten() {
                link = link.parameter(name, value.clone());
            }
            response
                .links
                .insert(to.to_string(), RefOr::T(link.build()));
        }
    }
}
