//! Venue mode end to end (issue 34): two suites on one machine, a federation and a venue, each
//! over a database of its own. The venue pulls a 15-player event the federation entered and
//! joined to its season, and the federation refuses writes to it. The federation is stopped;
//! the venue plays the event to its placements, with a late entry (a player the federation knows
//! under another id) and a director's correction. The federation is started again over its
//! database: a tampered bundle is refused and changes nothing; a publish cut off after its
//! registration and rounds parts completes exactly once when run again; the federation's
//! standings, placements, season table and ratings then equal the venue's; publishing again
//! changes nothing; a bundle that contradicts it is refused listing every difference; and the
//! venue's newcomer is offered for merging with the federation's player of the same name, and
//! merged. The venue's audit records of the event (its draws, sheets, correction and drop) are in
//! the federation's trail, each once, after either publish.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

#[path = "venue_mode/scenario.rs"]
mod scenario;

use catan_api::{AuditRecord, CreateEntry, EntryStatus};
use catan_e2e::fixtures::season_body;
use catan_e2e::venue::{VENUE, Venue};
use catan_e2e::{TestSuite, problem_of, spawn_suite};
use catan_suite::venue::bundle::Part;
use catan_suite::venue::federation::audit_of;
use catan_suite::venue::keep::VenueFile;
use catan_suite::venue::publish::{read_bundle, send, send_part};
use scenario::{FederationEvent, LATE_NAME, play};
use serde_json::{Value, json};
use uuid::Uuid;

/// What a suite shows of the event, once its read model has every change: the standings, the
/// placements, the season table and the ratings (without the instants they were computed at).
async fn shown(suite: &TestSuite, event_id: Uuid, season_id: Uuid) -> Value {
    let standings = suite.standings(event_id).await;
    let placements = suite.placements(event_id).await;
    let season = suite
        .anonymous
        .season_standings(season_id, None, 100, 0)
        .await
        .unwrap();
    let ratings = suite
        .anonymous
        .ratings_leaderboard(None, None)
        .await
        .unwrap();
    json!({
        "standings": [standings.after_round, standings.results_counted, standings.rows],
        "placements": [placements.complete, placements.rows],
        "season": season.rows,
        "ratings": ratings.rows,
    })
}

/// How many rows a suite keeps of what a publish adds: entries, players, rounds, sheet versions.
fn kept(suite: &TestSuite) -> [i64; 4] {
    [
        "SELECT count(*) AS n FROM registration.entries",
        "SELECT count(*) AS n FROM registration.players",
        "SELECT count(*) AS n FROM pairing.rounds",
        "SELECT count(*) AS n FROM results.result_versions",
    ]
    .map(|sql| suite.count(sql))
}

/// The venue's audit records as the federation keeps them: the same, made at the venue.
fn from_venue(records: &[AuditRecord]) -> Vec<AuditRecord> {
    assert!(!records.is_empty(), "the venue's trail of the event");
    let made_at_venue = |record: &AuditRecord| AuditRecord {
        venue: Some(VENUE.to_owned()),
        ..record.clone()
    };
    records.iter().map(made_at_venue).collect()
}

/// The records made at the venue in the federation's trail of the event, as its director sees
/// it (every page): each once, among the federation's own in the order they were made.
async fn audited_at_venue(federation: &TestSuite, fed: &FederationEvent) -> Vec<AuditRecord> {
    let director = federation.client_for(&fed.director_key).await;
    let trail = audit_of(&director, fed.event_id).await.unwrap();
    assert!(trail.windows(2).all(|w| w[0].at <= w[1].at), "{trail:?}");
    assert!(
        trail.iter().any(|r| r.venue.is_none()),
        "the federation's own"
    );
    trail.into_iter().filter(|r| r.venue.is_some()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_event_run_at_a_venue_without_the_federation_is_published_exactly_once() {
    let federation = spawn_suite().await;
    let fed = FederationEvent::enter(&federation).await;
    let event_id = fed.event_id;

    // The venue pulls the event; the federation refuses writes to it, naming the venue.
    let venue = tokio::task::spawn_blocking(Venue::new).await.unwrap();
    let pulled = venue.pull(&federation, &fed.director_key, event_id).await;
    assert_eq!(pulled.taken.created.entries, 15);
    let refused = federation
        .admin
        .create_entry(event_id, &CreateEntry::player(fed.not_entered))
        .await;
    let problem = problem_of(refused.unwrap_err());
    assert_eq!(problem.status, 409, "{problem:?}");
    assert!(problem.detail.contains(VENUE), "{problem:?}");

    // The federation goes away; the venue plays the event to its placements.
    let federation = federation.stop_keeping_database().await;
    let at_venue = venue.running().await;
    let season = at_venue
        .admin
        .create_season(&season_body("Catalan league", Some(fed.region_id)))
        .await
        .unwrap();
    at_venue
        .admin
        .join_season(season.id, event_id)
        .await
        .unwrap();
    let played = play(&at_venue, &fed).await;
    let venue_shows = shown(&at_venue, event_id, season.id).await;
    assert_eq!(
        venue_shows["placements"][0],
        json!(true),
        "placements complete"
    );
    let placed = venue_shows["placements"][1].as_array().unwrap();
    assert!(
        placed
            .iter()
            .any(|row| row["player_id"] == json!(played.late_player)),
        "the late entry placed too: {placed:?}"
    );
    for part in ["season", "ratings"] {
        let rows = venue_shows[part].as_array().unwrap().len();
        assert_eq!(rows, 16, "the venue's {part} rows");
    }
    let venue_kept = kept(&at_venue);
    at_venue.suite.stop().await;

    // `venue status`, with no federation to ask: checked out since the pull and as what, every
    // result not yet published, and no publish yet.
    let (statuses, said) = venue.status().await;
    let [status] = &statuses[..] else {
        panic!("one event pulled: {statuses:?}");
    };
    assert_eq!(status.file.venue, VENUE);
    assert_eq!(
        status.file.checked_out_at,
        Some(pulled.checkout.checked_out_at)
    );
    let unpublished = status
        .unpublished()
        .expect("the event is in the venue's suite");
    assert_eq!(i64::from(unpublished.sheet_versions), venue_kept[3]);
    assert_eq!(i64::from(unpublished.rounds), venue_kept[2]);
    assert!(unpublished.changes > 0, "{unpublished:?}");
    let since = pulled.checkout.checked_out_at.format("%Y-%m-%d %H:%M UTC");
    for line in [
        format!("Checked out to \"{VENUE}\" since {since}"),
        format!("Not yet published: {} results", venue_kept[3]),
        "Last publish: never".to_owned(),
    ] {
        assert!(said.contains(&line), "{line:?} in {said}");
    }

    // The federation is back, over its database, at its address.
    let federation = federation.start().await;
    let before = kept(&federation);

    // A bundle changed after it was signed: the federation refuses it, nothing changes.
    let (bundle, signed) = venue.signed_bundle(event_id).await;
    let mut tampered = signed.clone();
    let sheet = &mut tampered.results.part.tables[0].versions[0].sheet;
    sheet.scores[1].vp = (sheet.scores[1].vp + 1) % 9;
    let refused = send(&federation.anonymous, &tampered, &|line| println!("{line}")).await;
    assert!(refused.is_err(), "a tampered bundle is refused");
    let answer = send_part(&federation.anonymous, &tampered, Part::Results, true)
        .await
        .unwrap();
    assert_eq!(answer.unwrap_err().status, 403);
    assert_eq!(kept(&federation), before, "nothing changed");

    // A publish cut off after its registration and rounds parts ...
    for part in [Part::Registration, Part::Rounds] {
        let sent = send_part(&federation.anonymous, &signed, part, false)
            .await
            .unwrap()
            .unwrap();
        assert!(sent.adds(), "{sent:?}");
    }
    // ... run again, sends only the results: everything is there once.
    let published = venue.publish(event_id).await.unwrap();
    // `venue status` after it: nothing left to publish, and the publish went through.
    let (statuses, said) = venue.status().await;
    assert_eq!(
        statuses[0].unpublished(),
        Some(catan_suite::venue::keep::Tally::default())
    );
    assert!(said.contains("Not yet published: nothing"), "{said}");
    assert!(
        said.contains("Last publish: 20") && said.contains(": published (registration"),
        "{said}"
    );
    assert!(!published.registration.adds(), "{published:?}");
    assert!(!published.rounds.adds(), "{published:?}");
    assert!(published.results.adds(), "{published:?}");
    assert_eq!(
        kept(&federation)[2..],
        venue_kept[2..],
        "rounds and versions once"
    );
    for round in &played.rounds {
        let theirs = federation.anonymous.round(event_id, round.number).await;
        assert_eq!(
            theirs.unwrap().seed,
            round.seed,
            "round {} seed",
            round.number
        );
    }
    let [entries, players, ..] = kept(&federation);
    assert_eq!(
        (entries, players),
        (before[0] + 1, before[1] + 1),
        "the late entry and its player, once"
    );
    assert_eq!(
        shown(&federation, event_id, fed.season_id).await,
        venue_shows,
        "the federation shows what the venue showed"
    );
    let entries = federation.admin.entries(event_id).await.unwrap();
    let dropped = entries
        .iter()
        .find(|e| e.id == played.dropped_entry)
        .unwrap();
    assert_eq!(
        dropped.status,
        EntryStatus::Dropped,
        "the drop at the venue"
    );
    let venue_trail = from_venue(&bundle.registration.audit);
    assert_eq!(audited_at_venue(&federation, &fed).await, venue_trail);
    let said = |service: &str, route: &str| {
        let records = venue_trail.iter().filter(|r| r.service == service);
        records.filter(|r| r.route.ends_with(route)).count()
    };
    assert_eq!(said("pairing", "/rounds"), played.rounds.len(), "each draw");
    let round_2_table_1 = venue_trail.iter().filter(|r| {
        let (round, table) = (r.targets.get("round"), r.targets.get("table"));
        (round, table) == (Some(&"2".to_owned()), Some(&"1".to_owned()))
    });
    assert_eq!(round_2_table_1.count(), 2, "the sheet and its correction");
    assert!(said("registration", "/drop") == 1, "the drop");

    // Publishing again changes nothing: every count unchanged, the same exports.
    let again = venue.publish(event_id).await.unwrap();
    for part in [&again.registration, &again.rounds, &again.results] {
        assert!(!part.adds(), "{part:?}");
    }
    assert_eq!(
        again.results.totals().1,
        published.results.totals().0,
        "every version, confirmation and dispute unchanged"
    );
    assert_eq!(kept(&federation)[2..], venue_kept[2..]);
    assert_eq!(audited_at_venue(&federation, &fed).await, venue_trail);
    let exported = read_bundle(&federation.admin, event_id).await.unwrap();
    assert_eq!(json!(exported.rounds), json!(bundle.rounds));
    assert_eq!(exported.results, bundle.results);
    assert_eq!(
        shown(&federation, event_id, fed.season_id).await,
        venue_shows
    );

    // A bundle that contradicts the federation's copy, signed by the venue: every part that
    // differs is refused listing every difference, and nothing is applied.
    let mut contradicting = bundle.clone();
    contradicting.registration.players[0].name = "Someone else".into();
    contradicting.results.tables[0].versions[0].recorded_by = Uuid::new_v4();
    let key = VenueFile::read(&venue.dir, event_id)
        .unwrap()
        .unwrap()
        .signing_key()
        .unwrap();
    let contradicting = contradicting.signed(&key).unwrap();
    let said = std::sync::Mutex::new(Vec::new());
    let refused = send(&federation.anonymous, &contradicting, &|line| {
        said.lock().unwrap().push(line)
    })
    .await;
    assert!(refused.is_err(), "a contradicting bundle is refused");
    let said = said.into_inner().unwrap().join("\n");
    let player = bundle.registration.players[0].id;
    let table = &bundle.results.tables[0];
    for difference in [
        format!("players[{player}].name"),
        format!(
            "rounds[{}].tables[{}].versions[1].recorded_by",
            table.round, table.table
        ),
    ] {
        assert!(said.contains(&difference), "{difference} in:\n{said}");
    }
    assert!(!said.contains("Published"), "nothing applied:\n{said}");
    assert_eq!(kept(&federation)[2..], venue_kept[2..]);
    let name = federation.admin.player(player).await.unwrap().name;
    assert_eq!(name, bundle.registration.players[0].name);

    // The player the venue registered is offered for merging beside the federation's of the
    // same name: the admin's search of the region finds both.
    let mut found: Vec<Uuid> = federation
        .admin
        .search_players(LATE_NAME, Some(fed.region_id))
        .await
        .unwrap()
        .iter()
        .map(|p| p.id)
        .collect();
    found.sort();
    let mut both = vec![fed.not_entered, played.late_player];
    both.sort();
    assert_eq!(found, both);
    // The console's list of players who may be one person offers the pair (issue 34, item 4).
    let pairs = federation
        .admin
        .merge_candidates(Some(fed.region_id), 100, 0)
        .await
        .unwrap();
    let offered: Vec<(Uuid, Uuid)> = pairs
        .iter()
        .map(|pair| (pair.older.player.id, pair.newer.player.id))
        .collect();
    assert_eq!(offered, vec![(fed.not_entered, played.late_player)]);
    // Through the existing merge: the federation's player survives.
    let merged = federation
        .admin
        .merge_player(played.late_player, fed.not_entered)
        .await
        .unwrap();
    assert_eq!(merged.merged_into, Some(fed.not_entered));

    federation.shutdown().await;
    venue.remove().await;
}
