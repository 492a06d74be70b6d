//! Read your own writes: a client that posts and then reads sees what it posted. Every write
//! ranking follows answers a `Catan-Position`; a ranking read that carries it answers once the
//! read model includes it (or 503 past the wait), and a read or join that names something made a
//! moment ago waits for it rather than answering 404. No test here sleeps.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

use catan_api::{ApiClient, CreateEvent, CreateSeason, POSITION_HEADER, Position, SubmitResult};
use catan_api::{Problem, Role};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{names, new_key, seated, spawn_suite, spawn_suite_configured, won_by_first};
use uuid::Uuid;

/// A sheet the first seated player won with 10 VP, the second with `vp`.
fn sheet(players: &[Uuid], vp: i64) -> SubmitResult {
    won_by_first(players, &[10, vp, 3, 2])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_times_a_posted_result_is_in_the_next_read_that_carries_its_position() {
    // One director registers 200 players: more than a key's rate limit lets through.
    let ts = spawn_suite_configured(|settings| {
        settings.rate_limit.per_second = 10_000.0;
        settings.rate_limit.burst = 10_000.0;
    })
    .await;
    let fx = ts.classic_event(4 * 50, Some(1)).await;
    let round = fx.draw().await;
    let reader = ApiClient::new(ts.anonymous.base_url());
    let mut etags = vec![String::new(); round.tables.len()];
    for i in 0..200_usize {
        let table = &round.tables[i % round.tables.len()];
        let players = seated(table);
        let vp = 2 + i64::try_from(i % 8).expect("small");
        // First each table's first sheet, then the director's corrections of it.
        let posted = if i < round.tables.len() {
            fx.scorer
                .submit_result(fx.event.id, 1, table.number, &sheet(&players, vp))
                .await
        } else {
            fx.director
                .correct_result(
                    fx.event.id,
                    1,
                    table.number,
                    &sheet(&players, vp),
                    &etags[i % 50],
                )
                .await
        }
        .expect("posted");
        etags[i % 50] = format!("\"v{}\"", posted.version);
        let writer = if i < round.tables.len() {
            &fx.scorer
        } else {
            &fx.director
        };
        let position = writer.position();
        assert!(position.results > 0, "the write answered its position");
        // Another client (a dashboard) handed the position reads with it.
        let standings = reader.with_position(position).standings(fx.event.id).await;
        let standings = standings.expect("standings");
        let counted = u32::try_from((i + 1).min(round.tables.len())).expect("small");
        assert_eq!(
            standings.results_counted, counted,
            "read {i} counts every result"
        );
        let second = standings
            .rows
            .iter()
            .find(|row| row.player_id == players[1])
            .expect("a row");
        assert_eq!(
            i64::from(second.vp),
            vp,
            "read {i} counts the sheet just posted"
        );
    }
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_event_joins_a_season_the_moment_it_is_made_two_hundred_times() {
    let ts = spawn_suite().await;
    let season = ts
        .admin
        .create_season(&season_of_2027())
        .await
        .expect("season");
    for i in 0..200 {
        let body = CreateEvent {
            starts_on: Some(chrono::NaiveDate::from_ymd_opt(2027, 5, 1).expect("a day")),
            ..CreateEvent::classic(&format!("Spring open {i}"))
        };
        let event = ts.admin.create_event(&body).await.expect("event");
        // Half of the joins come from a client that holds the event's position, half from one
        // that holds none: both find the event.
        let joiner = if i % 2 == 0 {
            ts.admin.clone()
        } else {
            ts.admin.with_position(Position::default())
        };
        let joined = joiner.join_season(season.id, event.id).await;
        let joined = joined.unwrap_or_else(|e| panic!("join {i}: {e}"));
        assert!(joined.event_ids.contains(&event.id), "join {i}");
    }
    ts.shutdown().await;
}

fn season_of_2027() -> CreateSeason {
    serde_json::from_value(serde_json::json!({
        "name": "Circuit 2027", "starts_on": "2027-01-01", "ends_on": "2027-12-31",
        "scoring": {"mode": "table_points"}
    }))
    .expect("a season")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_season_table_shows_a_join_and_a_result_at_once() {
    let ts = spawn_suite().await;
    let season = ts
        .admin
        .create_season(&season_of_2027())
        .await
        .expect("season");
    let body = CreateEvent {
        starts_on: Some(chrono::NaiveDate::from_ymd_opt(2027, 5, 1).expect("a day")),
        qualifying_rounds: Some(1),
        ..CreateEvent::classic("Season open")
    };
    let fx = ts.event(&body).await;
    let mut fx = fx;
    for player in ts.players(&fx, 4).await {
        let entry = catan_api::CreateEntry::player(player);
        fx.entries.push(
            fx.director
                .create_entry(fx.event.id, &entry)
                .await
                .expect("entry"),
        );
    }
    ts.admin
        .join_season(season.id, fx.event.id)
        .await
        .expect("join");
    let round = fx.draw().await;
    let players = seated(&round.tables[0]);
    fx.submit(1, 1, &sheet(&players, 7)).await;
    // The dashboard reads the season with the positions of the join (ranking's own write) and of
    // the result.
    let position = ts.admin.position().merge(fx.scorer.position());
    let table = ApiClient::new(ts.anonymous.base_url())
        .with_position(position)
        .season_standings(season.id, None, 100, 0)
        .await
        .expect("season table");
    let winner = table
        .rows
        .iter()
        .find(|row| row.player_id == players[0])
        .expect("the winner is in the table");
    assert_eq!(winner.points, "5.00", "table points of a won game");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn what_was_just_made_is_found_without_a_position_and_what_never_was_is_not() {
    let ts = spawn_suite().await;
    let event = ts
        .admin
        .create_event(&CreateEvent::classic("Made a moment ago"))
        .await
        .expect("event");
    // A client that never wrote anything, so carries no position.
    let stranger = ApiClient::new(ts.anonymous.base_url());
    let standings = stranger.standings(event.id).await.expect("not 404");
    assert_eq!(standings.rows.len(), 0);
    let unknown = ts
        .http(
            Method::GET,
            &format!("/v1/events/{}/standings", Uuid::new_v4()),
        )
        .send()
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_position_the_read_model_does_not_reach_in_time_is_503_never_a_stale_body() {
    let ts = spawn_suite_configured(|settings| {
        settings.consistency_wait = std::time::Duration::from_millis(300);
    })
    .await;
    let event = ts
        .admin
        .create_event(&CreateEvent::classic("Far ahead"))
        .await
        .expect("event");
    let written = ts.admin.position();
    assert!(written.registration > 0, "the event's position");
    let path = format!("/v1/events/{}/standings", event.id);
    // A position no write of this suite will reach for a long while.
    let ahead = Position {
        results: written.registration + 1_000_000_000,
        ..written
    };
    let started = std::time::Instant::now();
    let answer = ts
        .http(Method::GET, &path)
        .header(POSITION_HEADER, &ahead.to_string())
        .send()
        .await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(answer.headers["retry-after"], "1");
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(300),
        "it waited the wait"
    );
    // The same position as a link's query parameter.
    let linked = format!("{path}?position={ahead}");
    let answer = ts.http(Method::GET, &linked).send().await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    // The event's own position is reached.
    let answer = ts
        .http(Method::GET, &path)
        .header(POSITION_HEADER, &written.to_string())
        .send()
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    let refused = ts
        .http(Method::GET, &path)
        .header(POSITION_HEADER, "not-a-position")
        .send()
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    let problem: Problem = serde_json::from_str(&refused.text).expect("a problem");
    assert!(
        names(&problem, Some(POSITION_HEADER), "invalid_position"),
        "{problem:?}"
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_finds_its_subscriptions_again_and_the_admin_finds_all_never_a_secret() {
    let ts = spawn_suite_configured(|settings| {
        settings.webhooks.allow_private = true;
    })
    .await;
    let event = ts
        .admin
        .create_event(&CreateEvent::classic("Hooked open"))
        .await
        .expect("event");
    let director_key = ts
        .admin
        .create_api_key(&new_key("director", Role::Director, Some(vec![event.id])))
        .await
        .expect("key");
    let director = ts.client_for(&director_key.api_key).await;
    let hook = |url: &str, events: Option<Vec<Uuid>>| catan_api::CreateWebhook {
        url: url.into(),
        event_types: vec![catan_api::WebhookEventType::parse("result.posted").expect("a type")],
        event_ids: events,
    };
    let mine = director
        .create_webhook(&hook("http://127.0.0.1:9/mine", Some(vec![event.id])))
        .await
        .expect("subscribed");
    let admins = ts
        .admin
        .create_webhook(&hook("http://127.0.0.1:9/all", None))
        .await
        .expect("subscribed");
    let listed = director.webhooks().await.expect("the director's");
    assert_eq!(listed.iter().map(|w| w.id).collect::<Vec<_>>(), [mine.id]);
    let all = ts.admin.webhooks().await.expect("every one");
    assert_eq!(
        all.iter().map(|w| w.id).collect::<Vec<_>>(),
        [mine.id, admins.id]
    );
    let raw = ts
        .http(Method::GET, "/v1/webhooks")
        .token(&ts.admin_token)
        .send()
        .await;
    assert!(!raw.text.contains("whsec_"), "{}", raw.text);
    let scorer_key = ts
        .admin
        .create_api_key(&new_key("scorer", Role::Scorer, Some(vec![event.id])))
        .await
        .expect("key");
    let scorer = ts.client_for(&scorer_key.api_key).await;
    let refused = scorer.webhooks().await.expect_err("a scorer lists none");
    assert_eq!(refused.status(), Some(403));
    ts.shutdown().await;
}
