//! Regional organisers and the audit trail (issue 14): an organiser of region A runs a whole event
//! of A with its own director and scorer keys, is refused everything on region B's event, and the
//! audit trail lists its changes in order and no secret; and every operation of the spec answers
//! each role as the permission matrix of docs/rules.md says.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "the test's helpers: a failed step fails the test"
)]

use catan_api::{
    ApiClient, ApiKeyCreated, AuditQuery, CreateEntry, CreateEvent, CreatePlayer, CreateSeason,
    DrawRound, EditEvent, Event, Role, Round, SubmitResult, Table,
};
use catan_e2e::fixtures::new_organiser_key;
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{TestSuite, eventually, new_key, problem_of, seated, spawn_suite, won_by_first};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use uuid::Uuid;

fn regional_event(name: &str, region: Uuid) -> CreateEvent {
    CreateEvent {
        region_id: Some(region),
        qualifying_rounds: Some(1),
        ..CreateEvent::classic(name)
    }
}

fn season_body(name: &str, region: Option<Uuid>) -> CreateSeason {
    serde_json::from_value(json!({
        "name": name, "region_id": region, "starts_on": "2020-01-01", "ends_on": "2040-12-31",
        "scoring": {"mode": "placement", "points": [25, 18, 15, 12], "best_n": 4},
    }))
    .expect("a season")
}

fn forbidden<T: std::fmt::Debug>(answer: Result<T, catan_api::ClientError>, what: &str) {
    let problem = problem_of(answer.expect_err(what));
    assert_eq!(problem.status, 403, "{what}: {problem:?}");
}

/// Regions A and B, an organiser key of A and a client with it.
async fn two_regions_and_an_organiser_of_the_first(
    ts: &TestSuite,
) -> (Uuid, Uuid, ApiKeyCreated, ApiClient) {
    let (region_a, region_b) = (
        ts.admin.create_region("Region A").await.unwrap().id,
        ts.admin.create_region("Region B").await.unwrap().id,
    );
    let organiser_key = ts
        .admin
        .create_api_key(&new_organiser_key("Organiser of A", vec![region_a]))
        .await
        .unwrap();
    let organiser = ts.client_for(&organiser_key.api_key).await;
    (region_a, region_b, organiser_key, organiser)
}

#[tokio::test]
async fn an_organiser_runs_an_event_of_its_region_and_its_changes_are_audited() {
    let ts = spawn_suite().await;
    let (region_a, region_b, organiser_key, organiser) =
        two_regions_and_an_organiser_of_the_first(&ts).await;
    let event_b = ts
        .admin
        .create_event(&regional_event("B open", region_b))
        .await
        .unwrap();
    let player_b = ts
        .admin
        .create_player(&CreatePlayer {
            name: "B player".into(),
            region_id: Some(region_b),
        })
        .await
        .unwrap();

    // Its own event, players, entries and keys.
    let event: Event = organiser
        .create_event(&regional_event("A open", region_a))
        .await
        .unwrap();
    let mut players = Vec::new();
    for i in 0..4 {
        let body = CreatePlayer {
            name: format!("A player {i}"),
            region_id: Some(region_a),
        };
        players.push(organiser.create_player(&body).await.unwrap().id);
    }
    let mut pins = Vec::new();
    for player in &players {
        let entry = organiser
            .create_entry(event.id, &CreateEntry::player(*player))
            .await
            .unwrap();
        pins.extend(entry.pins.unwrap_or_default().into_iter().map(|p| p.pin));
    }
    assert_eq!(pins.len(), players.len());
    let director_key = organiser
        .create_api_key(&new_key("A director", Role::Director, Some(vec![event.id])))
        .await
        .unwrap();
    let scorer_key = organiser
        .create_api_key(&new_key("A scorer", Role::Scorer, Some(vec![event.id])))
        .await
        .unwrap();
    let (director, scorer) = (
        ts.client_for(&director_key.api_key).await,
        ts.client_for(&scorer_key.api_key).await,
    );
    let edited = EditEvent {
        venue: Some("Casal de Gràcia".into()),
        ..EditEvent::default()
    };
    let event = organiser.edit_event(event.id, &edited).await.unwrap();
    assert_eq!(event.venue.as_deref(), Some("Casal de Gràcia"));
    ts.settled().await;
    let season = organiser
        .create_season(&season_body("A league", Some(region_a)))
        .await
        .unwrap();
    organiser.join_season(season.id, event.id).await.unwrap();

    // Every attempt on region B, and beyond an organiser's reach, is refused.
    forbidden(
        organiser
            .create_event(&regional_event("Not mine", region_b))
            .await,
        "an event of B",
    );
    forbidden(
        organiser.edit_event(event_b.id, &edited).await,
        "an edit of B's event",
    );
    forbidden(
        organiser
            .create_event(&CreateEvent::classic("Federation"))
            .await,
        "an event of no region",
    );
    forbidden(
        organiser
            .create_player(&CreatePlayer {
                name: "Not mine".into(),
                region_id: Some(region_b),
            })
            .await,
        "a player of B",
    );
    forbidden(
        organiser
            .create_entry(event_b.id, &CreateEntry::player(player_b.id))
            .await,
        "an entry in B's event",
    );
    forbidden(
        organiser
            .create_api_key(&new_key(
                "B director",
                Role::Director,
                Some(vec![event_b.id]),
            ))
            .await,
        "a key for B's event",
    );
    forbidden(
        organiser
            .create_api_key(&new_organiser_key("Another organiser", vec![region_a]))
            .await,
        "an organiser key",
    );
    forbidden(
        organiser
            .create_season(&season_body("Federation", None))
            .await,
        "a federation-wide season",
    );
    forbidden(
        organiser
            .create_season(&season_body("B league", Some(region_b)))
            .await,
        "a season of B",
    );
    forbidden(organiser.create_region("Region C").await, "a region");
    forbidden(
        organiser
            .draw_round(event_b.id, &DrawRound::default())
            .await,
        "a draw in B's event",
    );
    forbidden(
        director.draw_round(event_b.id, &DrawRound::default()).await,
        "its director in B's event",
    );
    let rotate = ts
        .http(Method::POST, "/v1/admin/signing-keys")
        .token(&ts.token(&organiser_key.api_key).await)
        .send()
        .await;
    assert_eq!(rotate.status, StatusCode::FORBIDDEN);

    // Its director and scorer run the event: the qualifying round, the final.
    let mut sheets: Vec<(u32, SubmitResult)> = Vec::new();
    let mut draws = 0;
    while let Ok(round) = director.draw_round(event.id, &DrawRound::default()).await {
        draws += 1;
        for table in &round.tables {
            let sheet = won_by_first(&seated(table), &[10, 7, 5, 4][..table.seats.len()]);
            scorer
                .submit_result(event.id, round.number, table.number, &sheet)
                .await
                .unwrap();
            sheets.push((round.number, sheet));
        }
    }
    let placements = ts.placements(event.id).await;
    assert!(placements.complete, "the event is over: {placements:?}");
    organiser
        .audit(&AuditQuery::default(), 100, 0)
        .await
        .unwrap();

    // The organiser revokes its director's key: its tokens stop at once.
    let revoked = ts
        .http(Method::DELETE, &format!("/v1/api-keys/{}", director_key.id))
        .token(&ts.token(&organiser_key.api_key).await)
        .send()
        .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);

    // The trail lists each of the organiser's changes, in order, and only them.
    let mine = AuditQuery {
        key_id: Some(organiser_key.id),
        ..AuditQuery::default()
    };
    let trail = organiser.audit(&mine, 1000, 0).await.unwrap();
    let routes: Vec<(String, String, u16)> = trail
        .iter()
        .map(|r| (r.method.clone(), r.route.clone(), r.status))
        .collect();
    let mut expected = vec![("POST".to_string(), "/v1/events".to_string(), 201)];
    expected.extend(std::iter::repeat_n(
        ("POST".to_string(), "/v1/players".to_string(), 201),
        4,
    ));
    expected.extend(std::iter::repeat_n(
        (
            "POST".to_string(),
            "/v1/events/{event_id}/entries".to_string(),
            201,
        ),
        4,
    ));
    expected.extend(std::iter::repeat_n(
        ("POST".to_string(), "/v1/api-keys".to_string(), 201),
        2,
    ));
    expected.push((
        "PATCH".to_string(),
        "/v1/events/{event_id}".to_string(),
        200,
    ));
    expected.push(("POST".to_string(), "/v1/seasons".to_string(), 201));
    expected.push((
        "PUT".to_string(),
        "/v1/seasons/{season_id}/events/{event_id}".to_string(),
        200,
    ));
    expected.push((
        "DELETE".to_string(),
        "/v1/api-keys/{key_id}".to_string(),
        204,
    ));
    assert_eq!(routes, expected, "the organiser's changes, in order");
    assert!(trail.iter().all(|r| r.role == Role::Organiser));
    assert!(trail.windows(2).all(|w| w[0].at <= w[1].at));
    assert_eq!(trail[0].targets.get("id"), Some(&event.id.to_string()));
    assert!(trail[0].event_ids.contains(&event.id));
    assert_eq!(
        trail
            .last()
            .and_then(|revoked| revoked.targets.get("key_id")),
        Some(&director_key.id.to_string())
    );

    // The event's trail holds the director's draws and the scorer's results too, and no secret.
    let of_event = AuditQuery {
        event_id: Some(event.id),
        ..AuditQuery::default()
    };
    let event_trail = organiser.audit(&of_event, 1000, 0).await.unwrap();
    let by = |key: Uuid, route: &str| {
        event_trail
            .iter()
            .filter(|r| r.key_id == key && r.route == route)
            .count()
    };
    assert_eq!(by(director_key.id, "/v1/events/{event_id}/rounds"), draws);
    assert_eq!(
        by(
            scorer_key.id,
            "/v1/events/{event_id}/rounds/{round}/tables/{table}/result"
        ),
        sheets.len()
    );
    let text = serde_json::to_string(&event_trail).unwrap();
    for secret in [
        &organiser_key.api_key,
        &director_key.api_key,
        &scorer_key.api_key,
    ] {
        assert!(
            !text.contains(secret.as_str()),
            "a key's secret in the trail"
        );
    }
    for pin in &pins {
        assert!(!text.contains(pin.as_str()), "a PIN in the trail: {text}");
    }

    // Region B's trail is not the organiser's to read; the admin reads all of it.
    let of_b = AuditQuery {
        region_id: Some(region_b),
        ..AuditQuery::default()
    };
    forbidden(organiser.audit(&of_b, 100, 0).await, "B's trail");
    let admin_b: Vec<(String, Role)> = ts
        .admin
        .audit(&of_b, 100, 0)
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.route, r.role))
        .collect();
    assert_eq!(
        admin_b,
        [
            ("/v1/events".into(), Role::Admin),
            ("/v1/players".into(), Role::Admin)
        ],
        "B's trail: the admin's event and player"
    );
    let scorer_view = scorer.audit(&AuditQuery::default(), 10, 0).await;
    forbidden(scorer_view, "a scorer reads no trail");
    ts.shutdown().await;
}

#[tokio::test]
async fn an_organiser_lists_the_keys_acting_on_its_regions_events_and_never_a_secret() {
    let ts = spawn_suite().await;
    let (region_a, region_b, organiser_key, organiser) =
        two_regions_and_an_organiser_of_the_first(&ts).await;
    let event_a = ts
        .admin
        .create_event(&regional_event("A open", region_a))
        .await
        .unwrap()
        .id;
    let event_b = ts
        .admin
        .create_event(&regional_event("B open", region_b))
        .await
        .unwrap()
        .id;
    let director_a = organiser
        .create_api_key(&new_key("A director", Role::Director, Some(vec![event_a])))
        .await
        .unwrap();
    let scorer_a = organiser
        .create_api_key(&new_key("A scorer", Role::Scorer, Some(vec![event_a])))
        .await
        .unwrap();
    // Keys the admin issued: two that act on A's event (one on B's too), three that do not.
    let issue = async |body| ts.admin.create_api_key(&body).await.unwrap();
    let admin_scorer_a = issue(new_key(
        "Federation scorer",
        Role::Scorer,
        Some(vec![event_a]),
    ))
    .await;
    let director_a_and_b = issue(new_key(
        "Travelling director",
        Role::Director,
        Some(vec![event_b, event_a]),
    ))
    .await;
    let director_b = issue(new_key("B director", Role::Director, Some(vec![event_b]))).await;
    let organiser_b = issue(new_organiser_key("Organiser of B", vec![region_b])).await;
    let another_admin = issue(new_key("Another admin", Role::Admin, None)).await;
    let revoked = ts
        .http(Method::DELETE, &format!("/v1/api-keys/{}", scorer_a.id))
        .token(&ts.token(&organiser_key.api_key).await)
        .send()
        .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);

    // The organiser's list: the director and scorer keys acting on an event of its regions, the
    // revoked one too, the oldest first; never its own nor another organiser's, an admin's, or
    // a key of B's events alone.
    let listed = ts
        .http(Method::GET, "/v1/api-keys")
        .token(&ts.token(&organiser_key.api_key).await)
        .send()
        .await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.text);
    let keys: Vec<catan_api::ListedApiKey> = listed.json();
    let ids: Vec<Uuid> = keys.iter().map(|k| k.id).collect();
    assert_eq!(
        ids,
        [
            director_a.id,
            scorer_a.id,
            admin_scorer_a.id,
            director_a_and_b.id
        ],
        "{keys:?}"
    );
    assert!(keys[1].revoked_at.is_some() && keys[0].revoked_at.is_none());
    assert_eq!(keys[3].event_ids, Some(vec![event_b, event_a]));
    let every_secret = [
        &organiser_key.api_key,
        &director_a.api_key,
        &scorer_a.api_key,
        &admin_scorer_a.api_key,
        &director_a_and_b.api_key,
        &director_b.api_key,
        &organiser_b.api_key,
        &another_admin.api_key,
    ];
    for secret in every_secret {
        assert!(!listed.text.contains(secret.as_str()), "a secret listed");
    }
    let first_page = organiser.api_keys(2, 0).await.unwrap();
    let second_page = organiser.api_keys(2, 2).await.unwrap();
    let paged: Vec<Uuid> = first_page
        .iter()
        .chain(&second_page)
        .map(|k| k.id)
        .collect();
    assert_eq!(paged, ids, "two pages of two");

    // The admin lists every key; a director lists none.
    let all: Vec<Uuid> = ts
        .admin
        .api_keys(100, 0)
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.id)
        .collect();
    for key in [
        organiser_key.id,
        director_b.id,
        organiser_b.id,
        another_admin.id,
    ] {
        assert!(all.contains(&key), "the admin lists {key}");
    }
    assert!(ids.iter().all(|key| all.contains(key)));
    let director = ts.client_for(&director_a.api_key).await;
    forbidden(director.api_keys(100, 0).await, "a director lists keys");
    ts.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// The permission matrix.
// ---------------------------------------------------------------------------------------------

/// What docs/rules.md says an operation answers a role: against region A's resource and B's.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expected {
    /// Allowed: a 2xx to a request that is valid when it is sent.
    Ok,
    Status(u16),
}

const ROLES: [&str; 6] = [
    "admin",
    "organiser",
    "director",
    "scorer",
    "player",
    "anonymous",
];

/// The matrix of docs/rules.md: operation (`METHOD /path`) to each role's (A, B) answers.
fn documented_matrix() -> BTreeMap<String, Vec<(Expected, Expected)>> {
    let rules =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rules.md"))
            .expect("docs/rules.md");
    let start = rules
        .find("<!-- permission-matrix:start -->")
        .expect("the matrix");
    let end = rules
        .find("<!-- permission-matrix:end -->")
        .expect("its end");
    let cell = |text: &str| match text {
        "ok" => Expected::Ok,
        status => Expected::Status(status.parse().expect("a status")),
    };
    rules[start..end]
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 1 + ROLES.len(), "{line}");
            let answers = cells[1..]
                .iter()
                .map(|c| match c.split_once('/') {
                    Some((a, b)) => (cell(a), cell(b)),
                    None => (cell(c), cell(c)),
                })
                .collect();
            (cells[0].trim_matches('`').to_string(), answers)
        })
        .collect()
}

/// Every operation of the committed spec, as `METHOD /path`.
fn spec_operations() -> Vec<String> {
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../openapi/openapi.json"
        ))
        .expect("the spec"),
    )
    .expect("JSON");
    let mut operations = Vec::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_some() {
                operations.push(format!("{} {path}", method.to_uppercase()));
            }
        }
    }
    operations
}

/// Qualifying rounds enough for every round the walk draws in A: round 1, the two draws it
/// allows, and at most three more for the six first sheets it posts (a round has two tables at
/// least). Not more: each draw plans the rounds left, and takes longer the more there are.
const WALK_ROUNDS: i64 = 6;

/// One region's resources, shared by the calls that consume nothing.
struct Resources {
    region: Uuid,
    /// A classic event of the region, its first round drawn and scored.
    event: Uuid,
    /// The players entered, and their PINs; the first is the player role's.
    players: Vec<(Uuid, String)>,
    /// The players of round 1's table 1 in seat order, the player role first.
    table1: Vec<Uuid>,
    /// The event's director key (the director role's, in A) and a token of it.
    director_key: String,
    director_token: String,
    scorer_key: String,
    /// A subscription of the event's director whose receiver never answers.
    webhook: Uuid,
    /// One of its deliveries, failed for good: a dead letter.
    dead_letter: Uuid,
    season: Uuid,
}

/// A sheet for `table` that its first seated player won.
fn sheet_for(table: &Table) -> SubmitResult {
    won_by_first(&seated(table), &[10, 7, 5, 4])
}

async fn resources(ts: &TestSuite, name: &str) -> Resources {
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
async fn subscribe(ts: &TestSuite, token: &str, event: Uuid) -> Uuid {
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
struct Call {
    method: Method,
    path: String,
    body: Option<Value>,
}

/// The request for `operation` on `r`'s resources, for the operations that consume nothing.
fn request_for(operation: &str, r: &Resources) -> Call {
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
        ("POST", "/v1/events") => {
            Some(json!({"name": "Matrix open", "format": "classic", "region_id": r.region}))
        }
        ("PUT", "/v1/events/{event_id}/keep-apart") => {
            Some(json!({"pairs": [[r.players[3].0, r.players[4].0]]}))
        }
        ("POST", "/v1/events/{event_id}/rounds") => Some(json!({})),
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
    Call {
        method: method.parse().unwrap(),
        path,
        body,
    }
}

/// The request for an operation that consumes what it acts on (a key revoked, an entry dropped,
/// a table's first sheet, a version disputed, ...), with what it consumes made for it now in
/// `r`'s region; `None` for the other operations.
async fn fresh_call(ts: &TestSuite, operation: &str, r: &Resources) -> Option<Call> {
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
        _ => return None,
    };
    let method = operation.split_once(' ').unwrap().0.parse().unwrap();
    Some(Call { method, path, body })
}

async fn new_regional_player(ts: &TestSuite, region: Uuid) -> Uuid {
    let body = CreatePlayer {
        name: "Matrix newcomer".into(),
        region_id: Some(region),
    };
    ts.admin.create_player(&body).await.unwrap().id
}

/// The event's latest round, and those of its tables that have no sheet yet.
async fn latest_round(ts: &TestSuite, event: Uuid) -> (Round, Vec<Table>) {
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

/// A table of the event with no sheet yet, and its round: one of the latest round's, else one of
/// a round drawn now (the latest being complete).
async fn unscored_table(ts: &TestSuite, event: Uuid) -> (u32, Table) {
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
async fn correct_table1(ts: &TestSuite, r: &Resources) {
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

#[tokio::test]
async fn every_operation_answers_each_role_as_the_permission_matrix_says() {
    let ts = catan_e2e::spawn_suite_configured(|settings| {
        settings.clients = catan_kit::settings::ClientSettings::unlimited();
        settings.rate_limit.per_second = 1e9;
        settings.rate_limit.burst = 1e9;
        settings.webhooks.allow_private = true;
        // A delivery's one failed try makes it a dead letter, for the replays.
        settings.webhooks.max_attempts = 1;
        settings.webhooks.poll_interval = std::time::Duration::from_millis(50);
    })
    .await;
    let matrix = documented_matrix();
    let operations = spec_operations();
    let mut documented: Vec<&String> = matrix.keys().collect();
    documented.sort();
    let mut specified: Vec<&String> = operations.iter().collect();
    specified.sort();
    assert_eq!(
        documented, specified,
        "docs/rules.md's matrix names every operation of the spec, and no other"
    );

    let (a, b) = (
        resources(&ts, "Matrix A").await,
        resources(&ts, "Matrix B").await,
    );
    let organiser = ts
        .admin
        .create_api_key(&new_organiser_key("Matrix organiser", vec![a.region]))
        .await
        .unwrap()
        .api_key;
    let player_token = ts
        .anonymous
        .player_token(a.event, a.players[0].0, &a.players[0].1)
        .await
        .unwrap()
        .access_token;
    let tokens = [
        Some(ts.admin_token.clone()),
        Some(ts.token(&organiser).await),
        Some(ts.token(&a.director_key).await),
        Some(ts.token(&a.scorer_key).await),
        Some(player_token),
        None,
    ];

    // A call that consumes what it acts on gets it made fresh, and a new one once an allowed
    // call has consumed it: every allowed call is sent a request valid when it is sent, and a
    // refused one the request an allowed one would be sent. The least trusted go first.
    let mut mismatches = Vec::new();
    for operation in &operations {
        let expected = &matrix[operation];
        for (resources, region) in [(&a, "A"), (&b, "B")] {
            let mut call: Option<Call> = None;
            let mut consumed = false;
            for role in (0..ROLES.len()).rev() {
                let wanted = if region == "A" {
                    expected[role].0
                } else {
                    expected[role].1
                };
                if call.is_none() || consumed && wanted == Expected::Ok {
                    call = Some(match fresh_call(&ts, operation, resources).await {
                        Some(call) => call,
                        None => request_for(operation, resources),
                    });
                    consumed = false;
                }
                let call = call.as_ref().unwrap();
                let mut request = ts.http(call.method.clone(), &call.path);
                if let Some(token) = &tokens[role] {
                    request = request.token(token);
                }
                if let Some(body) = &call.body {
                    request = request.json(body);
                }
                let answer = request.response().await;
                let status = answer.status().as_u16();
                consumed |= answer.status().is_success();
                let matches = match wanted {
                    Expected::Ok => answer.status().is_success(),
                    Expected::Status(wanted) => status == wanted,
                };
                if !matches {
                    let detail = answer.text().await.unwrap_or_default();
                    mismatches.push(format!(
                        "{operation} as {} on {region}: {status}, documented {wanted:?}: {detail}",
                        ROLES[role]
                    ));
                }
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "answers that differ from docs/rules.md's matrix:\n{}",
        mismatches.join("\n")
    );
    ts.shutdown().await;
}
