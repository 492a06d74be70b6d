//! Registration's part of the league layer (issue 8): events with days, a venue and a status,
//! found by region, format, status, days and name; one identity for a duplicate player (the
//! change feed is registration_feed.rs's).

#![allow(
    clippy::expect_used,
    reason = "the test's helpers: a failed step fails the test"
)]

use catan_api::{CreateEntry, CreateEvent, Event, EventFormat, EventSearch, EventStatus, Role};
use catan_e2e::{TestSuite, assert_refused, names, new_key, new_player, problem_of, spawn_suite};
use chrono::{Days, NaiveDate, Utc};
use reqwest::{Method, StatusCode};
use std::collections::HashSet;
use uuid::Uuid;

fn today() -> NaiveDate {
    Utc::now().date_naive()
}

/// `days` after today (before, when negative).
fn day(days: i64) -> NaiveDate {
    let today = today();
    let shift = Days::new(days.unsigned_abs());
    if days < 0 {
        today - shift
    } else {
        today + shift
    }
}

/// The ids of the first page (of 100) of the events `search` finds, as anyone reads them.
async fn found(ts: &TestSuite, search: EventSearch) -> Vec<Uuid> {
    let events = ts.anonymous.events(&search, 100, 0).await;
    events.expect("events").iter().map(|e| e.id).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn events_are_listed_by_day_and_found_by_region_format_status_days_and_name() {
    let ts = spawn_suite().await;
    let north = ts.admin.create_region("Norte").await.expect("region");
    let south = ts.admin.create_region("Sur").await.expect("region");
    let create = async |body: CreateEvent| ts.admin.create_event(&body).await.expect("event");
    let malaga = create(CreateEvent {
        region_id: Some(north.id),
        starts_on: Some(day(-30)),
        ends_on: Some(day(-29)),
        ..CreateEvent::classic("Torneo de Málaga")
    })
    .await;
    let pairs = create(CreateEvent {
        region_id: Some(south.id),
        starts_on: Some(day(-1)),
        ends_on: Some(day(1)),
        ..CreateEvent::partner("Pairs weekend")
    })
    .await;
    // Today's clients send no days: the event is held today, for one day.
    let winter = create(CreateEvent::classic("Winter cup")).await;
    let autumn = create(CreateEvent {
        region_id: Some(south.id),
        starts_on: Some(today()),
        ..CreateEvent::classic("Autumn league")
    })
    .await;
    let spring = create(CreateEvent {
        region_id: Some(north.id),
        starts_on: Some(day(30)),
        venue: Some("  Casal de Gràcia ".into()),
        ..CreateEvent::classic("Spring open")
    })
    .await;

    assert_eq!((winter.starts_on, winter.ends_on), (today(), today()));
    assert_eq!(winter.venue, None);
    assert_eq!((spring.starts_on, spring.ends_on), (day(30), day(30)));
    assert_eq!(spring.venue.as_deref(), Some("Casal de Gràcia"));
    let status = |event: &Event| event.status;
    assert_eq!(
        [&malaga, &pairs, &winter, &autumn, &spring].map(status),
        [
            EventStatus::Finished,
            EventStatus::Running,
            EventStatus::Running,
            EventStatus::Running,
            EventStatus::Planned,
        ]
    );
    let read = ts.anonymous.event(spring.id).await.expect("the event");
    assert_eq!(
        (read.starts_on, read.venue, read.status),
        (day(30), spring.venue.clone(), EventStatus::Planned)
    );

    // By first day, then name; to anyone, without a token.
    let all = ts.anonymous.events(&EventSearch::default(), 100, 0).await;
    let all = all.expect("every event");
    let ids: Vec<Uuid> = all.iter().map(|e| e.id).collect();
    assert_eq!(ids, [malaga.id, pairs.id, autumn.id, winter.id, spring.id]);
    assert_eq!(all[0].status, EventStatus::Finished);
    assert_eq!(all[0].ends_on, day(-29));

    let search = |change: fn(&mut EventSearch)| {
        let mut search = EventSearch::default();
        change(&mut search);
        search
    };
    // Region and format.
    let northern = EventSearch {
        region_id: Some(north.id),
        ..EventSearch::default()
    };
    assert_eq!(found(&ts, northern).await, [malaga.id, spring.id]);
    let partner = search(|s| s.format = Some(EventFormat::Partner));
    assert_eq!(found(&ts, partner).await, [pairs.id]);
    // Status, from the days and today's date.
    let planned = search(|s| s.status = Some(EventStatus::Planned));
    assert_eq!(found(&ts, planned).await, [spring.id]);
    let running = search(|s| s.status = Some(EventStatus::Running));
    assert_eq!(found(&ts, running).await, [pairs.id, autumn.id, winter.id]);
    let finished = search(|s| s.status = Some(EventStatus::Finished));
    assert_eq!(found(&ts, finished).await, [malaga.id]);
    // Days: an event is found when any of its days is in [from, to].
    let days = |from: Option<i64>, to: Option<i64>| EventSearch {
        from: from.map(day),
        to: to.map(day),
        ..EventSearch::default()
    };
    assert_eq!(found(&ts, days(Some(-29), Some(-29))).await, [malaga.id]);
    assert_eq!(found(&ts, days(None, Some(-30))).await, [malaga.id]);
    assert!(found(&ts, days(Some(-28), Some(-2))).await.is_empty());
    assert_eq!(found(&ts, days(Some(1), Some(29))).await, [pairs.id]);
    assert_eq!(found(&ts, days(Some(2), None)).await, [spring.id]);
    // Name, whatever the case and accents; with the other filters.
    let named = |q: &str| EventSearch {
        q: Some(q.into()),
        ..EventSearch::default()
    };
    assert_eq!(found(&ts, named("MALAGA")).await, [malaga.id]);
    assert_eq!(found(&ts, named("torneo de málaga")).await, [malaga.id]);
    assert_eq!(found(&ts, named("  ")).await.len(), 5, "a blank q is no q");
    let northern_cups = EventSearch {
        region_id: Some(north.id),
        status: Some(EventStatus::Planned),
        ..named("OPEN")
    };
    assert_eq!(found(&ts, northern_cups).await, [spring.id]);

    // Pages of the same order, a full one linking to the next.
    let page = async |offset| {
        let page = ts
            .anonymous
            .events(&EventSearch::default(), 2, offset)
            .await;
        page.expect("a page")
            .iter()
            .map(|e| e.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(page(0).await, [malaga.id, pairs.id]);
    assert_eq!(page(2).await, [autumn.id, winter.id]);
    assert_eq!(page(4).await, [spring.id]);
    let first = ts.http(Method::GET, "/v1/events?limit=2").send().await;
    assert_eq!(first.status, StatusCode::OK);
    assert!(
        first.header("link").is_some_and(|l| l.contains("offset=2")),
        "{first:?}"
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn events_ending_before_they_start_and_searches_ending_before_they_start_are_refused() {
    let ts = spawn_suite().await;
    let backwards = CreateEvent {
        starts_on: Some(day(10)),
        ends_on: Some(day(9)),
        ..CreateEvent::classic("Backwards open")
    };
    let refused = ts.admin.create_event(&backwards).await;
    let problem = problem_of(assert_refused(refused, 422, "ends before it starts"));
    assert!(
        names(&problem, Some("ends_on"), "ends_before_start"),
        "{problem:?}"
    );
    // Without starts_on the event starts today: an end before today is refused too.
    let ends_yesterday = CreateEvent {
        ends_on: Some(day(-1)),
        ..CreateEvent::classic("Yesterday open")
    };
    let refused = ts.admin.create_event(&ends_yesterday).await;
    let problem = problem_of(assert_refused(refused, 422, "ends before today"));
    assert!(names(&problem, Some("ends_on"), "ends_before_start"));
    let blank_venue = CreateEvent {
        venue: Some("   ".into()),
        ..CreateEvent::classic("Nowhere open")
    };
    let refused = ts.admin.create_event(&blank_venue).await;
    let problem = problem_of(assert_refused(refused, 422, "a blank venue"));
    assert!(names(&problem, Some("venue"), "invalid_name"));
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM registration.events"),
        0,
        "nothing stored"
    );

    let backwards = EventSearch {
        from: Some(day(3)),
        to: Some(day(2)),
        ..EventSearch::default()
    };
    let refused = ts.anonymous.events(&backwards, 100, 0).await;
    let problem = problem_of(assert_refused(refused, 422, "from after to"));
    assert!(
        names(&problem, Some("to"), "ends_before_start"),
        "{problem:?}"
    );
    let not_a_status = ts.http(Method::GET, "/v1/events?status=soon").send().await;
    assert_eq!(not_a_status.status, StatusCode::UNPROCESSABLE_ENTITY);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_duplicate_is_merged_into_the_survivor_and_leaves_the_searches() {
    let ts = spawn_suite().await;
    let register = async |name: &str| ts.admin.create_player(&new_player(name)).await.unwrap();
    let duplicate = register("José Ñúñez").await;
    let survivor = register("Jose Nunez").await;
    let other = register("Ana Núñez").await;

    let merged = ts.admin.merge_player(duplicate.id, survivor.id).await;
    let merged = merged.expect("merged");
    assert_eq!(
        (merged.id, merged.merged_into),
        (duplicate.id, Some(survivor.id))
    );
    let read = ts
        .anonymous
        .player(duplicate.id)
        .await
        .expect("the duplicate");
    assert_eq!(read.merged_into, Some(survivor.id));
    let found = ts.anonymous.search_players("nunez", None).await.unwrap();
    let found: Vec<Uuid> = found.iter().map(|p| p.id).collect();
    assert_eq!(
        found,
        [other.id, survivor.id],
        "the duplicate leaves the searches"
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn merges_that_break_a_rule_are_refused_listing_each_and_change_nothing() {
    let ts = spawn_suite().await;
    let register = async |name: &str| ts.admin.create_player(&new_player(name)).await.unwrap();
    let (duplicate, survivor) = (register("Ada").await, register("Ada L.").await);
    let (ana, bea) = (register("Ana").await, register("Bea").await);
    ts.admin
        .merge_player(duplicate.id, survivor.id)
        .await
        .expect("a first merge");
    let spring = ts
        .admin
        .create_event(&CreateEvent::classic("Spring open"))
        .await;
    let spring = spring.expect("event");
    for player in [ana.id, bea.id] {
        let entry = CreateEntry::player(player);
        ts.admin
            .create_entry(spring.id, &entry)
            .await
            .expect("entry");
    }

    let refusals = async |player: Uuid, into: Uuid| -> HashSet<(String, String)> {
        let refused = ts.admin.merge_player(player, into).await;
        let problem = problem_of(assert_refused(refused, 422, "a merge breaking a rule"));
        problem
            .errors
            .iter()
            .map(|e| (e.field.clone(), e.code.to_string()))
            .collect()
    };
    let rule = |field: &str, code: &str| (field.to_string(), code.to_string());
    assert_eq!(
        refusals(ana.id, ana.id).await,
        HashSet::from([rule("into", "same_player")])
    );
    assert_eq!(
        refusals(duplicate.id, ana.id).await,
        HashSet::from([rule("player_id", "already_merged")])
    );
    assert_eq!(
        refusals(ana.id, duplicate.id).await,
        HashSet::from([rule("into", "already_merged")])
    );
    assert_eq!(
        refusals(ana.id, bea.id).await,
        HashSet::from([rule("into", "shared_event")])
    );
    // Every rule broken at once.
    assert_eq!(
        refusals(duplicate.id, duplicate.id).await,
        HashSet::from([
            rule("into", "same_player"),
            rule("player_id", "already_merged")
        ])
    );
    let enter_survivor = CreateEntry::player(survivor.id);
    ts.admin
        .create_entry(spring.id, &enter_survivor)
        .await
        .expect("entry");
    assert_eq!(
        refusals(bea.id, survivor.id).await,
        HashSet::from([rule("into", "shared_event")])
    );

    // An unknown duplicate, the path's resource, is 404; an unknown survivor, an id of the body,
    // is refused on it; only the admin merges.
    let nobody = Uuid::new_v4();
    assert_refused(
        ts.admin.merge_player(nobody, ana.id).await,
        404,
        "no duplicate",
    );
    assert_eq!(
        refusals(ana.id, nobody).await,
        HashSet::from([rule("into", "unknown_player")])
    );
    let director = ts
        .admin
        .create_api_key(&new_key("director", Role::Director, Some(vec![spring.id])))
        .await
        .expect("director key");
    let director = ts.client_for(&director.api_key).await;
    let forbidden = director.merge_player(ana.id, bea.id).await;
    assert_refused(forbidden, 403, "a director merging");
    assert_refused(
        ts.anonymous.merge_player(ana.id, bea.id).await,
        401,
        "no token",
    );

    // Nothing was stored by any refusal: only the first merge.
    assert_eq!(
        ts.count("SELECT count(*) AS n FROM registration.players WHERE merged_into IS NOT NULL"),
        1
    );
    for player in [ana.id, bea.id, survivor.id] {
        let now = ts.anonymous.player(player).await.expect("player");
        assert_eq!(now.merged_into, None);
    }
    ts.shutdown().await;
}
