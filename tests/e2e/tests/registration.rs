//! Entries, drops, exclusions and late entries as the tournament director sees them.

use catan_api::{CreateEntry, CreateEvent, DrawRound, DropEntry, EntryStatus};
use catan_e2e::{assert_refused, new_player, seated_entries, spawn_suite, spawn_suite_with_event};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dropped_and_excluded_players_are_not_seated_and_late_entries_join_the_next_round() {
    let (ts, fx) = spawn_suite_with_event(13, Some(3)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let round1 = fx.draw().await;
    let seats: usize = round1.tables.iter().map(|t| t.seats.len()).sum();
    assert_eq!(seats, 13);

    // Round 2 cannot be drawn before round 1 is complete.
    let early = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await;
    assert_refused(early, 409, "incomplete round");
    for table in &round1.tables {
        fx.submit_random(&round1, table, &mut rng).await;
    }

    let dropped = &fx.entries[0];
    let excluded = &fx.entries[1];
    let drop_entry = async |entry: Uuid, reason: &str, exclude: bool| {
        let why = DropEntry {
            reason: reason.into(),
            exclude,
        };
        fx.director.drop_entry(fx.event.id, entry, &why).await
    };
    let d = drop_entry(dropped.id, "went home", false)
        .await
        .expect("drop");
    assert_eq!(d.status, EntryStatus::Dropped);
    let x = drop_entry(excluded.id, "conduct", true)
        .await
        .expect("exclude");
    assert_eq!(x.status, EntryStatus::Excluded);
    let twice = drop_entry(dropped.id, "again", false).await;
    assert_refused(twice, 409, "already dropped");
    let larry = new_player("Late Larry");
    let late = fx.director.create_player(&larry).await.expect("player");
    let late_player = CreateEntry::player(late.id);
    let enter = || fx.director.create_entry(fx.event.id, &late_player);
    let late_entry = enter().await.expect("late entry");
    assert_refused(enter().await, 409, "entered twice");

    let round2 = fx.draw().await;
    let seated = seated_entries(&round2);
    assert_eq!(seated.len(), 12, "13 - 2 + 1 players");
    assert!(!seated.contains(&dropped.id) && !seated.contains(&excluded.id));
    assert!(seated.contains(&late_entry.id));

    // Dropped players keep their round-1 games in the standings.
    let standings = ts.standings(fx.event.id).await;
    let row = standings
        .rows
        .iter()
        .find(|r| r.entry_id == dropped.id)
        .expect("still listed");
    assert_eq!((row.games, row.status), (1, EntryStatus::Dropped));
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fields_that_cannot_be_seated_and_bad_registrations_are_refused() {
    let ts = spawn_suite().await;
    let five = ts.classic_event(5, None).await;
    let drawn = five
        .director
        .draw_round(five.event.id, &DrawRound::default())
        .await;
    let err = assert_refused(drawn, 409, "5 cannot be seated");
    assert!(err.to_string().contains('5'), "{err}");
    assert_eq!(ts.count("SELECT count(*) AS n FROM pairing.rounds"), 0);

    let two = ts.classic_event(2, None).await;
    let drawn = two
        .director
        .draw_round(two.event.id, &DrawRound::default())
        .await;
    assert_refused(drawn, 409, "2 players");

    let no_rounds = CreateEvent {
        qualifying_rounds: Some(0),
        ..CreateEvent::classic("x")
    };
    assert_refused(ts.admin.create_event(&no_rounds).await, 422, "0 rounds");
    let blank = new_player("  ");
    assert_refused(ts.admin.create_player(&blank).await, 422, "blank name");
    let stranger = CreateEntry::player(Uuid::new_v4());
    let ghost = five.director.create_entry(five.event.id, &stranger).await;
    assert_refused(ghost, 422, "no such player");
    let unknown_event = ts.anonymous.event(Uuid::new_v4()).await;
    assert_refused(unknown_event, 404, "no such event");
    let too_big = DrawRound {
        seed: Some(1 << 60),
    };
    let drawn = five.director.draw_round(five.event.id, &too_big).await;
    assert_refused(drawn, 422, "seed");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_same_seed_and_field_give_the_same_round() {
    let ts = spawn_suite().await;
    // Only a practice event takes a chosen seed.
    let practice = CreateEvent {
        practice: Some(true),
        ..CreateEvent::classic("Practice open")
    };
    let first = ts.classic_event_as(&practice, 22).await;
    let second = ts.classic_event_as(&practice, 22).await;
    let a = first
        .director
        .draw_round(first.event.id, &DrawRound { seed: Some(424242) })
        .await
        .expect("draw");
    let b = second
        .director
        .draw_round(second.event.id, &DrawRound { seed: Some(424242) })
        .await
        .expect("draw");
    // Entries are numbered in entry order, so the nth entrant of each event sits in the same seat.
    let position = |fx: &catan_e2e::EventFixture, round: &catan_api::Round| -> Vec<Vec<usize>> {
        round
            .tables
            .iter()
            .map(|t| {
                t.seats
                    .iter()
                    .map(|s| {
                        fx.entries
                            .iter()
                            .position(|e| e.id == s.entry_id)
                            .expect("entry")
                    })
                    .collect()
            })
            .collect()
    };
    assert_eq!(a.seed, 424242);
    assert!(a.seed_chosen && b.seed_chosen);
    assert_eq!(position(&first, &a), position(&second, &b));
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn keep_apart_pairs_set_by_the_director_never_share_a_round_one_table() {
    let (ts, fx) = spawn_suite_with_event(16, Some(1)).await;
    let p: Vec<Uuid> = fx.entries.iter().map(|e| e.player_ids[0]).collect();
    // Families: 0-1, 0-2, 1-2 (three siblings), and a club pair 3-4.
    let pairs = vec![[p[0], p[1]], [p[0], p[2]], [p[1], p[2]], [p[3], p[4]]];
    let body = catan_api::KeepApart {
        pairs: pairs.clone(),
    };
    let stored = fx
        .director
        .set_keep_apart(fx.event.id, &body)
        .await
        .expect("set");
    assert_eq!(stored.pairs.len(), 4);
    let refused = async |pairs: Vec<[Uuid; 2]>, what: &str| {
        let body = catan_api::KeepApart { pairs };
        let set = fx.director.set_keep_apart(fx.event.id, &body).await;
        assert_refused(set, 422, what);
    };
    refused(vec![[p[5], p[5]]], "one player").await;
    refused(vec![[p[5], Uuid::new_v4()]], "not entered").await;
    let by_scorer = fx.scorer.set_keep_apart(fx.event.id, &body).await;
    assert_refused(by_scorer, 403, "scorer");
    for seed in [1, 2, 3] {
        let practice = CreateEvent {
            qualifying_rounds: Some(1),
            practice: Some(true),
            ..CreateEvent::classic("Practice open")
        };
        let event = ts.classic_event_as(&practice, 16).await;
        let q: Vec<Uuid> = event.entries.iter().map(|e| e.player_ids[0]).collect();
        let family = catan_api::KeepApart {
            pairs: vec![[q[0], q[1]], [q[0], q[2]], [q[1], q[2]], [q[3], q[4]]],
        };
        event
            .director
            .set_keep_apart(event.event.id, &family)
            .await
            .expect("set");
        let round = event
            .director
            .draw_round(event.event.id, &DrawRound { seed: Some(seed) })
            .await
            .expect("draw");
        assert_eq!(round.figures.keep_apart_broken, 0);
        for table in &round.tables {
            let seated: HashSet<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
            for [a, b] in &family.pairs {
                assert!(
                    !(seated.contains(a) && seated.contains(b)),
                    "seed {seed}: a kept-apart pair shares a table"
                );
            }
        }
    }
    ts.shutdown().await;
}

/// The events' links in the calendar feed at `path`, unfolded (RFC 5545 folds long lines), asked
/// by a client that claims another host in every header it could.
async fn calendar_links(ts: &catan_e2e::TestSuite, path: &str) -> Vec<String> {
    let feed = ts
        .http(catan_e2e::http::Method::GET, path)
        .header("x-forwarded-host", "evil.example")
        .header("x-forwarded-proto", "https")
        .header("forwarded", "host=evil.example;proto=https")
        .send()
        .await;
    assert_eq!(feed.status, 200, "{path}: {}", feed.text);
    let unfolded = feed.text.replace("\r\n ", "");
    assert!(!unfolded.contains("evil.example"), "{unfolded}");
    unfolded
        .lines()
        .filter_map(|line| line.strip_prefix("URL:"))
        .map(str::to_owned)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn calendar_feeds_link_events_at_the_suites_address_never_at_a_host_a_client_claims() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let player = fx.entries[0].player_id.unwrap();
    let page = format!("{}/events/{}", ts.suite.url(), fx.event.id);
    for path in [
        "/v1/events.ics".to_owned(),
        format!("/v1/players/{player}/events.ics"),
    ] {
        let links = calendar_links(&ts, &path).await;
        assert!(links.contains(&page), "{path}: {links:?} holds {page}");
    }
    ts.shutdown().await;

    // With the public address set, every link starts with it.
    let ts = catan_e2e::spawn_suite_configured(|settings| {
        settings.public_url = Some("https://catan.example.org".parse().unwrap());
    })
    .await;
    let fx = ts.classic_event(4, Some(1)).await;
    let links = calendar_links(&ts, "/v1/events.ics").await;
    let page = format!("https://catan.example.org/events/{}", fx.event.id);
    assert!(links.contains(&page), "{links:?} holds {page}");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_misspelt_player_is_renamed_everywhere_he_shows_and_the_trail_keeps_his_old_name() {
    let (ts, fx) = spawn_suite_with_event(8, Some(2)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let round1 = fx.draw().await;
    for table in &round1.tables {
        fx.submit_random(&round1, table, &mut rng).await;
    }
    let entry = &fx.entries[2];
    let player = entry.player_id.expect("a classic entry");
    let before = ts.standings(fx.event.id).await;
    let old = before
        .rows
        .iter()
        .find(|r| r.entry_id == entry.id)
        .expect("listed")
        .name
        .clone();

    let renamed = fx
        .director
        .rename_player(player, "  Pere Pons ")
        .await
        .expect("renamed");
    assert_eq!(renamed.name, "Pere Pons");
    let standings = ts.standings(fx.event.id).await;
    let row = standings
        .rows
        .iter()
        .find(|r| r.entry_id == entry.id)
        .unwrap();
    assert_eq!(row.name, "Pere Pons", "the standings follow the rename");
    let profile = ts.anonymous.player_profile(player).await.expect("profile");
    assert_eq!(profile.name, "Pere Pons");
    let listed = fx.director.entries(fx.event.id).await.expect("entries");
    assert!(
        listed
            .iter()
            .any(|e| e.id == entry.id && e.name == "Pere Pons")
    );

    // The audit trail keeps the name he had.
    let trail = ts
        .admin
        .audit(&catan_api::AuditQuery::default(), 500, 0)
        .await
        .expect("audit");
    let record = trail
        .iter()
        .find(|r| r.route == "/v1/players/{player_id}" && r.method == "PATCH")
        .expect("the rename is audited");
    assert_eq!(record.targets.get("old_name"), Some(&old));
    assert_eq!(record.targets.get("player_id"), Some(&player.to_string()));

    // A name a player cannot have, someone else's director and nobody are refused.
    let blank = fx.director.rename_player(player, "  ").await;
    assert_refused(blank, 422, "a blank name");
    let other = ts.classic_event(4, None).await;
    let stranger = other.director.rename_player(player, "Someone Else").await;
    assert_refused(stranger, 403, "the director of another event");
    assert_refused(
        ts.anonymous.rename_player(player, "Nobody").await,
        401,
        "no token",
    );
    let unknown = ts.admin.rename_player(Uuid::new_v4(), "Ghost").await;
    assert_refused(unknown, 404, "no such player");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_drop_is_undone_before_the_next_draw_and_refused_in_words_after_it() {
    let (ts, fx) = spawn_suite_with_event(13, Some(3)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let round1 = fx.draw().await;
    for table in &round1.tables {
        fx.submit_random(&round1, table, &mut rng).await;
    }
    let why = |exclude| DropEntry {
        reason: "did not show".into(),
        exclude,
    };
    let (back, gone) = (&fx.entries[0], &fx.entries[1]);
    fx.director
        .drop_entry(fx.event.id, back.id, &why(true))
        .await
        .expect("excluded");
    let reinstated = fx
        .director
        .reinstate_entry(fx.event.id, back.id)
        .await
        .expect("reinstated before the next draw");
    assert_eq!(
        (reinstated.status, reinstated.status_reason),
        (EntryStatus::Active, None)
    );
    let again = fx.director.reinstate_entry(fx.event.id, back.id).await;
    assert_refused(again, 409, "an active entry");

    fx.director
        .drop_entry(fx.event.id, gone.id, &why(false))
        .await
        .expect("dropped");
    let round2 = fx.draw().await;
    let seated = seated_entries(&round2);
    assert!(
        seated.contains(&back.id),
        "the reinstated entry plays round 2"
    );
    assert!(!seated.contains(&gone.id));
    let late = fx.director.reinstate_entry(fx.event.id, gone.id).await;
    let refusal = assert_refused(late, 409, "round 2 was drawn since the drop");
    assert!(
        refusal
            .to_string()
            .contains("round 2 was drawn after the entry was dropped"),
        "{refusal}"
    );
    let entries = fx.director.entries(fx.event.id).await.expect("entries");
    let still = entries.iter().find(|e| e.id == gone.id).unwrap();
    assert_eq!(
        still.status,
        EntryStatus::Dropped,
        "a refusal changes nothing"
    );

    assert_refused(
        fx.scorer.reinstate_entry(fx.event.id, gone.id).await,
        403,
        "a scorer",
    );
    assert_refused(
        fx.director
            .reinstate_entry(fx.event.id, Uuid::new_v4())
            .await,
        404,
        "no such entry",
    );
    ts.shutdown().await;
}
