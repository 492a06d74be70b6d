//! The players' matrix of docs/rules.md: each of a player's own writes, by the event's option, on
//! the player's own table or entry and on another's.

use crate::signed_in::SignedIn;
use crate::{Expected, cell};
use catan_api::{ClientResult, DropEntry};
use catan_e2e::TestSuite;
use catan_e2e::http::Answer;
use serde_json::{Value, json};

/// A row of the players' matrix.
pub(crate) struct Row {
    /// `METHOD /path`, as the spec names it.
    pub(crate) operation: String,
    /// The event's one option set, as `CreateEvent` fields.
    pub(crate) option: Value,
    /// The answers on the player's own table or entry, and on another's.
    pub(crate) own: Expected,
    pub(crate) another: Expected,
}

/// The rows between the players' matrix's markers in `rules`.
pub(crate) fn documented(rules: &str) -> Vec<Row> {
    crate::marked_rows(rules, "players-matrix")
        .into_iter()
        .map(|cells| {
            let [operation, option, answers] = cells.as_slice() else {
                panic!("a row of 3 cells: {cells:?}")
            };
            let (name, value) = option
                .trim_matches('`')
                .split_once(": ")
                .expect("`option: value`");
            let value = serde_json::from_str(value).unwrap_or_else(|_| json!(value));
            let (own, another) = answers.split_once('/').expect("own/another's");
            Row {
                operation: operation.trim_matches('`').to_string(),
                option: json!({ name: value }),
                own: cell(own),
                another: cell(another),
            }
        })
        .collect()
}

/// A 2xx answer, or the refusal's status.
fn answer<T>(result: ClientResult<T>) -> Expected {
    match result {
        Ok(_) => Expected::Ok,
        Err(err) => Expected::Status(err.status().unwrap_or_default()),
    }
}

/// A raw answer: 2xx, or its status.
fn answered(answer: &Answer) -> Expected {
    if answer.status.is_success() {
        Expected::Ok
    } else {
        Expected::Status(answer.status.as_u16())
    }
}

/// What the event's first seated player's token is answered for `operation`: on another's
/// table or entry first (a refusal changes nothing), then on their own.
pub(crate) async fn answers(ts: &TestSuite, e: &SignedIn, operation: &str) -> (Expected, Expected) {
    let player = e.table(0).seats[0].player_id;
    let another_player = e.table(1).seats[0].player_id;
    let client = e.client(ts, player).await;
    let event = e.event();
    let tables = [e.table(0).number, e.table(1).number];
    let (own, another) = match operation.split_once(' ').expect("METHOD /path").1 {
        "/v1/events/{event_id}/rounds/{round}/tables/{table}/result" => {
            let token = e.token(ts, player).await;
            let another = e.put_sheet(ts, &token, 1, &e.sheet(1)).await;
            let own = e.put_sheet(ts, &token, 0, &e.sheet(0)).await;
            (answered(&own), answered(&another))
        }
        "/v1/events/{event_id}/rounds/{round}/tables/{table}/result/confirm" => {
            e.fx.submit(1, tables[0], &e.sheet(0)).await;
            e.fx.submit(1, tables[1], &e.sheet(1)).await;
            let another = answer(client.confirm_result(event, 1, tables[1]).await);
            (
                answer(client.confirm_result(event, 1, tables[0]).await),
                another,
            )
        }
        "/v1/events/{event_id}/rounds/{round}/tables/{table}/result/dispute" => {
            e.fx.submit(1, tables[0], &e.sheet(0)).await;
            e.fx.submit(1, tables[1], &e.sheet(1)).await;
            let reason = "I had 8 VP";
            let another = answer(client.dispute_result(event, 1, tables[1], reason).await);
            (
                answer(client.dispute_result(event, 1, tables[0], reason).await),
                another,
            )
        }
        "/v1/events/{event_id}/entries/{entry_id}/drop" => {
            let body = DropEntry {
                reason: "left early".into(),
                exclude: false,
            };
            let another = answer(
                client
                    .drop_entry(event, e.entry_of(another_player), &body)
                    .await,
            );
            (
                answer(client.drop_entry(event, e.entry_of(player), &body).await),
                another,
            )
        }
        other => panic!("the players' matrix names no player's write {other}"),
    };
    (own, another)
}
