//! Regional organisers and the audit trail (issue 14): an organiser of region A runs a whole event
//! of A with its own director and scorer keys, is refused everything on region B's event, and the
//! audit trail lists its changes in order and no secret (the permission matrix of every operation
//! is walked by permission_matrix.rs).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "the test's helpers: a failed step fails the test"
)]

use catan_api::{
    ApiClient, ApiKeyCreated, AuditQuery, CreateEntry, CreateEvent, CreatePlayer, DrawRound,
    EditEvent, Event, Role, SubmitResult,
};
use catan_e2e::fixtures::{new_organiser_key, regional_event, season_body};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{TestSuite, new_key, problem_of, seated, spawn_suite, won_by_first};
use uuid::Uuid;

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
