//! The calls of the permission matrix's walk: the resources of a region, and the request each
//! operation of the spec is sent as.

use catan_api::{
    CreateEntry, CreateEvent, CreatePlayer, DrawRound, Role, Round, SubmitResult, Table,
};
use catan_e2e::fixtures::{regional_event, season_body};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{TestSuite, eventually, new_key, seated, won_by_first};
use serde_json::{Value, json};
use uuid::Uuid;

/// Qualifying rounds enough for every round the walk draws in A: round 1, the two draws it
/// allows, and at most three more for the six first sheets it posts (a round has two tables at
/// least). Not more: each draw plans the rounds left, and takes longer the more there are.
pub(crate) const WALK_ROUNDS: i64 = 6;

/// One region's resources, shared by the calls that consume nothing.
pub(crate) struct Resources {
    pub(crate) region: Uuid,
    /// A classic event of the region, its first round drawn and scored.
    pub(crate) event: Uuid,
    /// The players entered, and their PINs; the first is the player role's.
    pub(crate) players: Vec<(Uuid, String)>,
    /// The players of round 1's table 1 in seat order, the player role first.
    table1: Vec<Uuid>,
    /// The event's director key (the director role's, in A) and a token of it.
    pub(crate) director_key: String,
    pub(crate) director_token: String,
    pub(crate) scorer_key: String,
    /// A subscription of the event's director whose receiver never answers.
    pub(crate) webhook: Uuid,
    /// One of its deliveries, failed for good: a dead letter.
    pub(crate) dead_letter: Uuid,
    pub(crate) season: Uuid,
}

/// A sheet for `table` that its first seated player won.
pub(crate) fn sheet_for(table: &Table) -> SubmitResult {
    won_by_first(&seated(table), &[10, 7, 5, 4])
}

pub(crate) async fn resources(ts: &TestSuite, name: &str) -> Resources {
    let region = ts.admin.create_region(name).await.unwrap().id;
    let body = CreateEvent {
        qualifying_rounds: Some(WALK_ROUNDS),
        ..regional_event(&format!("{name} open"), region)
    };
    let event = ts.admin.create_event(&body).await.unwrap().id;
    let mut players = Vec::new();
    for i in 0..8 {
        let body = CreatePlayer {
            name: format!("{name} player {i}"),
            region_id: Some(region),
        };
        let player = ts.admin.create_player(&body).await.unwrap().id;
        let entry = ts
            .admin
            .create_entry(event, &CreateEntry::player(player))
            .await
            .unwrap();
        let pin = entry.pins.unwrap_or_default().remove(0).pin;
        players.push((player, pin));
    }
    let key = |role: Role| {
        new_key(
            &format!("{name} {}", role.as_str()),
            role,
            Some(vec![event]),
        )
    };
    let director_key = ts
        .admin
        .create_api_key(&key(Role::Director))
        .await
        .unwrap()
        .api_key;
    let director_token = ts.token(&director_key).await;
    let scorer_key = ts
        .admin
        .create_api_key(&key(Role::Scorer))
        .await
        .unwrap()
        .api_key;
    let webhook = subscribe(ts, &director_token, event).await;
    let round = ts
        .admin
        .draw_round(event, &DrawRound::default())
        .await
        .unwrap();
    for table in &round.tables {
        ts.admin
            .submit_result(event, 1, table.number, &sheet_for(table))
            .await
            .unwrap();
    }
    let table1 = seated(&round.tables[0]);
    players.sort_by_key(|(player, _)| table1.iter().position(|p| p == player).unwrap_or(4));
    // The sheets' deliveries fail at their one try (see the suite's settings).
    let dead_letter = eventually(30, "a dead letter", async || {
        let letters = ts.admin.dead_letters(100, 0).await.unwrap().items;
        letters
            .into_iter()
            .find(|letter| letter.webhook_id == Some(webhook))
            .map(|letter| letter.id)
    })
    .await;
    // Ranking knows the event and its players before the walk joins and declines.
    ts.settled().await;
    let season = ts
        .admin
        .create_season(&season_body(&format!("{name} league"), Some(region)))
        .await
        .unwrap()
        .id;
    Resources {
        region,
        event,
        players,
        table1,
        director_key,
        director_token,
        scorer_key,
        webhook,
        dead_letter,
        season,
    }
}

/// A subscription to `event`'s results, made with `token`, to a receiver that never answers.
pub(crate) async fn subscribe(ts: &TestSuite, token: &str, event: Uuid) -> Uuid {
    let created = ts
        .http(Method::POST, "/v1/webhooks")
        .token(token)
        .json(&json!({"url": "https://127.0.0.1:9/hook", "event_types": ["result.posted"], "event_ids": [event]}))
        .send()
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{:?}", created.body());
    created.body()["id"].as_str().unwrap().parse().unwrap()
}

/// A request of the walk.
pub(crate) struct Call {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) body: Option<Value>,
}

/// The request for `operation` on `r`'s resources, for the operations that consume nothing.
pub(crate) fn request_for(operation: &str, r: &Resources) -> Call {
    let (method, template) = operation.split_once(' ').unwrap();
    let player = r.players[0].0;
    let mut path = template
        .replace("{event_id}", &r.event.to_string())
        .replace("{region_id}", &r.region.to_string())
        .replace("{season_id}", &r.season.to_string())
        .replace("{webhook_id}", &r.webhook.to_string())
        .replace("{dead_letter_id}", &r.dead_letter.to_string())
        .replace("{opponent_id}", &r.players[1].0.to_string())
        .replace("{number}", "1")
        .replace("{round}", "1")
        .replace("{table}", "1");
    // A PIN is reissued to another player than the player role's.
    path = if path.ends_with("/pin") {
        path.replace("{player_id}", &r.players[2].0.to_string())
    } else {
        path.replace("{player_id}", &player.to_string())
    };
    let body = match (method, template) {
        ("POST", "/v1/auth/token") => Some(json!({"api_key": r.scorer_key})),
        ("POST", "/v1/auth/player-token") => {
            Some(json!({"event_id": r.event, "player_id": player, "pin": r.players[0].1}))
        }
        ("POST", "/v1/predictions") => Some(json!({"player_ids": [
            r.players[0].0, r.players[1].0, r.players[2].0]})),
        ("POST", "/v1/api-keys") => {
            Some(json!({"name": "matrix key", "role": "director", "event_ids": [r.event]}))
        }
        ("PATCH", "/v1/events/{event_id}") => Some(json!({"venue": "Matrix hall"})),
        ("PATCH", "/v1/players/{player_id}") => Some(json!({"name": "Matrix player renamed"})),
        ("POST", "/v1/events") => {
            Some(json!({"name": "Matrix open", "format": "classic", "region_id": r.region}))
        }
        ("PUT", "/v1/events/{event_id}/keep-apart") => {
            Some(json!({"pairs": [[r.players[3].0, r.players[4].0]]}))
        }
        ("POST", "/v1/events/{event_id}/rounds") => Some(json!({})),
        ("POST", "/v1/events/{event_id}/checkout") => Some(
            json!({"venue": "Matrix hall", "public_key": catan_kit::venue_signature::new_venue_key().1}),
        ),
        ("POST", "/v1/events/{event_id}/rounds/{round}/tables/{table}/result/confirm") => {
            Some(json!({"player_id": player}))
        }
        ("POST", "/v1/events/{event_id}/rounds/{round}/tables/{table}/result/dispute") => {
            Some(json!({"reason": "I had 8 VP"}))
        }
        ("POST", "/v1/players") => Some(json!({"name": "Matrix player", "region_id": r.region})),
        ("POST", "/v1/regions") => {
            Some(json!({"name": format!("Matrix region {}", Uuid::new_v4())}))
        }
        ("POST", "/v1/seasons") => {
            Some(serde_json::to_value(season_body("Matrix league", Some(r.region))).unwrap())
        }
        ("POST", "/v1/webhooks") => Some(json!({"url": "https://127.0.0.1:9/matrix",
            "event_types": ["round.drawn"], "event_ids": [r.event]})),
        _ => None,
    };
    if template == "/v1/audit" {
        path.push_str(&format!("?event_id={}", r.event));
    }
    if template == "/v1/players/merge-candidates" {
        path.push_str(&format!("?region_id={}", r.region));
    }
    Call {
        method: method.parse().unwrap(),
        path,
        body,
    }
}

/// The request for an operation that consumes what it acts on (a key revoked, an entry dropped,
/// a table's first sheet, a version disputed, ...), with what it consumes made for it now in
/// `r`'s region; `None` for the other operations.
pub(crate) async fn fresh_call(ts: &TestSuite, operation: &str, r: &Resources) -> Option<Call> {
    let event = r.event;
    let (path, body) = match operation {
        "DELETE /v1/admin/signing-keys/{kid}" => {
            // A key rotated out at once: it signed none of the walk's tokens.
            let rotate = async || {
                let rotated = ts
                    .http(Method::POST, "/v1/admin/signing-keys")
                    .token(&ts.admin_token)
                    .send()
                    .await;
                assert_eq!(rotated.status, StatusCode::CREATED, "{}", rotated.text);
                rotated.body()["kid"].as_str().unwrap().to_string()
            };
            let retired = rotate().await;
            rotate().await;
            (format!("/v1/admin/signing-keys/{retired}"), None)
        }
        "DELETE /v1/api-keys/{key_id}" => {
            let body = new_key("Matrix key to revoke", Role::Director, Some(vec![event]));
            let key = ts.admin.create_api_key(&body).await.unwrap().id;
            (format!("/v1/api-keys/{key}"), None)
        }
        // A checkout is read and released while there is one, and made when there is none; the
        // walk of the three leaves the event released, as the other operations need it.
        "GET /v1/events/{event_id}/checkout" | "DELETE /v1/events/{event_id}/checkout" => {
            let body = request_for("POST /v1/events/{event_id}/checkout", r).body;
            let body: catan_api::CheckOutEvent = serde_json::from_value(body.unwrap()).unwrap();
            // Refused (409) when it is checked out already, as it may be.
            let _ = ts.admin.check_out_event(event, &body).await;
            return Some(request_for(operation, r));
        }
        "POST /v1/events/{event_id}/checkout" => {
            // Refused (404) when it is not checked out, as it may not be.
            let _ = ts.admin.release_checkout(event).await;
            return Some(request_for(operation, r));
        }
        "POST /v1/events/{event_id}/entries" => {
            let player = new_regional_player(ts, r.region).await;
            (
                format!("/v1/events/{event}/entries"),
                Some(json!({"player_id": player})),
            )
        }
        "POST /v1/events/{event_id}/entries/{entry_id}/drop" => {
            let player = new_regional_player(ts, r.region).await;
            let entry = ts
                .admin
                .create_entry(event, &CreateEntry::player(player))
                .await
                .unwrap()
                .id;
            (
                format!("/v1/events/{event}/entries/{entry}/drop"),
                Some(json!({"reason": "left early"})),
            )
        }
        "POST /v1/events/{event_id}/entries/{entry_id}/reinstate" => {
            let player = new_regional_player(ts, r.region).await;
            let entry = ts
                .admin
                .create_entry(event, &CreateEntry::player(player))
                .await
                .unwrap()
                .id;
            let why = catan_api::DropEntry {
                reason: "left early".into(),
                exclude: false,
            };
            ts.admin.drop_entry(event, entry, &why).await.unwrap();
            (
                format!("/v1/events/{event}/entries/{entry}/reinstate"),
                None,
            )
        }
        "POST /v1/events/{event_id}/rounds" => {
            let (round, unscored) = latest_round(ts, event).await;
            for table in &unscored {
                ts.admin
                    .submit_result(event, round.number, table.number, &sheet_for(table))
                    .await
                    .unwrap();
            }
            return Some(request_for(operation, r));
        }
        "POST /v1/events/{event_id}/rounds/{number}/redraw"
        | "POST /v1/events/{event_id}/rounds/{number}/swap" => {
            // The latest round while none of its tables has a result (a redraw or a swap leaves
            // it so); else one drawn now.
            let round = result_free_round(ts, event).await;
            let path = operation
                .split_once(' ')
                .unwrap()
                .1
                .replace("{event_id}", &event.to_string())
                .replace("{number}", &round.number.to_string());
            let body = if operation.ends_with("/swap") {
                json!({"player_id": round.tables[0].seats[0].player_id,
                    "with_player_id": round.tables[1].seats[0].player_id})
            } else {
                json!({})
            };
            (path, Some(body))
        }
        "POST /v1/events/{event_id}/rounds/{number}/clock" => {
            // Round 1's clock: started by the first call, given a minute more by the others.
            let clock = ts.admin.round_clock(event, 1).await.unwrap();
            let body = if clock.actions.is_empty() {
                json!({"action": "start", "minutes": 60})
            } else {
                json!({"action": "extend_round", "minutes": 1})
            };
            (format!("/v1/events/{event}/rounds/1/clock"), Some(body))
        }
        "PUT /v1/events/{event_id}/rounds/{round}/tables/{table}/result" => {
            let (round, table) = unscored_table(ts, event).await;
            (
                format!(
                    "/v1/events/{event}/rounds/{round}/tables/{}/result",
                    table.number
                ),
                Some(serde_json::to_value(sheet_for(&table)).unwrap()),
            )
        }
        "DELETE /v1/events/{event_id}/rounds/{round}/tables/{table}/result" => {
            // A result of the latest round, posted now: the next round is not drawn yet.
            let (round, table) = unscored_table(ts, event).await;
            ts.admin
                .submit_result(event, round, table.number, &sheet_for(&table))
                .await
                .unwrap();
            (
                format!(
                    "/v1/events/{event}/rounds/{round}/tables/{}/result",
                    table.number
                ),
                None,
            )
        }
        "POST /v1/events/{event_id}/rounds/{round}/results" => {
            let (round, table) = unscored_table(ts, event).await;
            let sheets = json!({"sheets": [{"table": table.number, "sheet": sheet_for(&table)}]});
            (
                format!("/v1/events/{event}/rounds/{round}/results"),
                Some(sheets),
            )
        }
        "POST /v1/events/{event_id}/rounds/{round}/tables/{table}/result/confirm"
        | "POST /v1/events/{event_id}/rounds/{round}/tables/{table}/result/dispute" => {
            correct_table1(ts, r).await;
            return Some(request_for(operation, r));
        }
        "POST /v1/players/{player_id}/merge" => {
            let duplicate = new_regional_player(ts, r.region).await;
            let survivor = new_regional_player(ts, r.region).await;
            (
                format!("/v1/players/{duplicate}/merge"),
                Some(json!({"into": survivor})),
            )
        }
        "DELETE /v1/seasons/{season_id}/events/{event_id}" => {
            ts.admin.join_season(r.season, event).await.unwrap();
            return Some(request_for(operation, r));
        }
        "DELETE /v1/webhooks/{webhook_id}" => {
            let webhook = subscribe(ts, &r.director_token, event).await;
            (format!("/v1/webhooks/{webhook}"), None)
        }
        "PUT /v1/events/{event_id}/venue-copy" => {
            // The event's copy as the suite has it now: taken in, it changes nothing.
            let copy = catan_suite::venue::federation::read_copy(&ts.admin, event, false)
                .await
                .unwrap();
            let path = format!("/v1/events/{event}/venue-copy");
            (path, Some(serde_json::to_value(copy).unwrap()))
        }
        "PUT /v1/events/{event_id}/venue-copy/rounds" => {
            // The event's rounds as the suite has them now: taken in, they change nothing.
            let rounds = ts.admin.venue_rounds(event).await.unwrap();
            let path = format!("/v1/events/{event}/venue-copy/rounds");
            (path, Some(serde_json::to_value(rounds).unwrap()))
        }
        "PUT /v1/events/{event_id}/venue-copy/results" => {
            // The event's results as the suite has them now: taken in, they change nothing.
            let results = ts.admin.venue_results(event).await.unwrap();
            let path = format!("/v1/events/{event}/venue-copy/results");
            (path, Some(serde_json::to_value(results).unwrap()))
        }
        _ => return None,
    };
    let method = operation.split_once(' ').unwrap().0.parse().unwrap();
    Some(Call { method, path, body })
}

pub(crate) async fn new_regional_player(ts: &TestSuite, region: Uuid) -> Uuid {
    let body = CreatePlayer {
        name: "Matrix newcomer".into(),
        region_id: Some(region),
    };
    ts.admin.create_player(&body).await.unwrap().id
}

/// The event's latest round, and those of its tables that have no sheet yet.
pub(crate) async fn latest_round(ts: &TestSuite, event: Uuid) -> (Round, Vec<Table>) {
    let round = ts
        .admin
        .rounds(event)
        .await
        .unwrap()
        .into_iter()
        .max_by_key(|round| round.number)
        .expect("a round");
    let posted = ts.admin.round_results(event, round.number).await.unwrap();
    let unscored = round
        .tables
        .iter()
        .filter(|table| !posted.items.iter().any(|r| r.table == table.number))
        .cloned()
        .collect();
    (round, unscored)
}

/// The event's latest round when none of its tables has a result; else, its tables scored, the
/// next round drawn now.
async fn result_free_round(ts: &TestSuite, event: Uuid) -> Round {
    let (round, unscored) = latest_round(ts, event).await;
    if unscored.len() == round.tables.len() {
        return round;
    }
    for table in &unscored {
        ts.admin
            .submit_result(event, round.number, table.number, &sheet_for(table))
            .await
            .unwrap();
    }
    ts.admin
        .draw_round(event, &catan_api::DrawRound::default())
        .await
        .unwrap()
}

/// A table of the event with no sheet yet, and its round: one of the latest round's, else one of
/// a round drawn now (the latest being complete).
pub(crate) async fn unscored_table(ts: &TestSuite, event: Uuid) -> (u32, Table) {
    let (round, unscored) = latest_round(ts, event).await;
    if let Some(table) = unscored.into_iter().next() {
        return (round.number, table);
    }
    let round = ts
        .admin
        .draw_round(event, &DrawRound::default())
        .await
        .unwrap();
    (round.number, round.tables[0].clone())
}

/// A correction of round 1's table 1, the player role's: a version nobody has confirmed or
/// disputed yet.
pub(crate) async fn correct_table1(ts: &TestSuite, r: &Resources) {
    let (current, etag) = ts.admin.result_with_etag(r.event, 1, 1).await.unwrap();
    let second = current
        .scores
        .iter()
        .find(|score| score.player_id == r.table1[1])
        .expect("seated")
        .vp;
    let vps = [10, if second == 7 { 8 } else { 7 }, 5, 4];
    ts.admin
        .correct_result(r.event, 1, 1, &won_by_first(&r.table1, &vps), &etag)
        .await
        .unwrap();
}
