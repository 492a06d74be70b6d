//! Registration's change feed (issue 8), which a read model keeps its copy by: each event, entry
//! and player once, as it is now, and never a change passed over because it committed late.

#![allow(
    clippy::expect_used,
    reason = "the test's helpers: a failed step fails the test"
)]

use catan_api::{
    ApiClient, CreateEntry, CreateEvent, DropEntry, EntryStatus, EventStatus, RegistrationChange,
    RegistrationChangeKind, RegistrationChanges,
};
use catan_e2e::{assert_refused, eventually, names, new_player, problem_of, spawn_suite};
use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};
use reqwest::{Method, StatusCode};
use uuid::Uuid;

/// Every change after `after`, read `limit` at a time until a page comes back empty: the changes
/// and the cursor reached.
async fn read_on(client: &ApiClient, after: &str, limit: u32) -> (Vec<RegistrationChange>, String) {
    let (mut changes, mut cursor) = (Vec::new(), after.to_string());
    loop {
        let page = client.registration_changes(&cursor, limit).await;
        let page = page.expect("a page of the feed");
        if page.items.is_empty() {
            assert_eq!(page.next, cursor, "an empty page keeps the cursor");
            return (changes, cursor);
        }
        assert_ne!(page.next, cursor, "a page with changes moves the cursor");
        changes.extend(page.items);
        cursor = page.next;
    }
}

/// Reads on from `after` until the changes read are `expected` (kind and id, in order), for at
/// most 10 s: a change shows once every transaction begun before it has ended, anywhere on the
/// database server. The changes and the cursor reached.
async fn read_until(
    client: &ApiClient,
    after: &str,
    expected: &[(RegistrationChangeKind, Uuid)],
) -> (Vec<RegistrationChange>, String) {
    read_until_by(client, after, 500, expected).await
}

/// [`read_until`] with pages of `limit` changes. The things a page carries are as they are now,
/// so a page may show a thing's last state while that change itself still waits behind a
/// transaction in flight: reading on by smaller pages waits for it too.
async fn read_until_by(
    client: &ApiClient,
    after: &str,
    limit: u32,
    expected: &[(RegistrationChangeKind, Uuid)],
) -> (Vec<RegistrationChange>, String) {
    eventually(10, "the changes expected in the feed", async || {
        let (changes, next) = read_on(client, after, limit).await;
        (things(&changes) == expected).then_some((changes, next))
    })
    .await
}

/// What each change touched, in order.
fn things(changes: &[RegistrationChange]) -> Vec<(RegistrationChangeKind, Uuid)> {
    changes.iter().map(|c| (c.kind, c.id)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_feed_carries_each_event_entry_and_player_once_as_it_is_now() {
    use RegistrationChangeKind::{Entry, Event, Player};
    let ts = spawn_suite().await;
    let register = async |name: &str| ts.admin.create_player(&new_player(name)).await.unwrap();
    let ada = register("Ada").await;
    let grace = register("Grace").await;
    let spring = CreateEvent {
        venue: Some("Casal".into()),
        ..CreateEvent::classic("Spring open")
    };
    let spring = ts.admin.create_event(&spring).await.expect("event");
    let enter_ada = CreateEntry::player(ada.id);
    let entry = ts.admin.create_entry(spring.id, &enter_ada).await;
    let entry = entry.expect("entry");
    let why = DropEntry {
        reason: "went home".into(),
        exclude: false,
    };
    let dropped = ts.admin.drop_entry(spring.id, entry.id, &why).await;
    assert_eq!(dropped.expect("drop").status, EntryStatus::Dropped);

    // From the beginning: each thing once, where it last changed (the entry's drop), as it is now.
    let expected = [
        (Player, ada.id),
        (Player, grace.id),
        (Event, spring.id),
        (Entry, entry.id),
    ];
    // Read a change a page first, until the entry's drop is there as a change of its own: a
    // page shows things as they are now, so the dropped entry may show before its drop does.
    let both = [&expected[..], &expected[3..]].concat();
    let (by_one, by_one_cursor) = read_until_by(&ts.anonymous, "", 1, &both).await;
    let (changes, cursor) = read_until(&ts.anonymous, "", &expected).await;
    let [ada_now, _, spring_now, entry_now] = &changes[..] else {
        panic!("four changes: {changes:?}");
    };
    assert_eq!(ada_now.player.as_ref().map(|p| &p.name), Some(&ada.name));
    let spring_now = spring_now.event.as_ref().expect("the event's state");
    assert_eq!(
        (spring_now.venue.as_deref(), spring_now.status),
        (Some("Casal"), EventStatus::Running)
    );
    let entry_now = entry_now.entry.as_ref().expect("the entry's state");
    assert_eq!(entry_now.status, EntryStatus::Dropped, "its current state");
    assert_eq!(entry_now.player_ids, [ada.id]);
    assert!(changes.iter().all(|c| {
        let states = [c.event.is_some(), c.entry.is_some(), c.player.is_some()];
        states.iter().filter(|&&s| s).count() == 1
    }));

    // Read again, the same; the PINs are never in it.
    let again = ts.anonymous.registration_changes("", 500).await.unwrap();
    assert_eq!(things(&again.items), expected);
    assert_eq!(again.next, cursor);
    let raw = ts.http(Method::GET, "/v1/feeds/registration").send().await;
    assert_eq!(raw.status, StatusCode::OK);
    let raw: RegistrationChanges = serde_json::from_str(&raw.text).expect("a page");
    assert_eq!(things(&raw.items), expected);
    assert!(!raw.next.is_empty());
    let text = ts.http(Method::GET, "/v1/feeds/registration").send().await;
    assert!(!text.text.contains("pins"), "{}", text.text);
    // A change a page: the entry's creation and its drop are on two pages, both as it is now.
    let entry_states = by_one[3..]
        .iter()
        .map(|c| c.entry.as_ref().map(|e| e.status));
    assert!(entry_states.eq([Some(EntryStatus::Dropped); 2]));
    assert_eq!(by_one_cursor, cursor);

    // A merge is a change of the duplicate.
    let merged = ts
        .admin
        .merge_player(grace.id, ada.id)
        .await
        .expect("merge");
    let (changes, _) = read_until(&ts.anonymous, &cursor, &[(Player, grace.id)]).await;
    let grace_now = changes[0].player.as_ref().expect("the player's state");
    assert_eq!(grace_now.merged_into, Some(ada.id));
    assert_eq!(merged.merged_into, Some(ada.id));

    for bad in ["x", "1", "1.", "-1.2", "1.2.3"] {
        let refused = ts.anonymous.registration_changes(bad, 10).await;
        let problem = problem_of(assert_refused(refused, 422, bad));
        assert!(
            names(&problem, Some("after"), "invalid_query"),
            "{problem:?}"
        );
    }
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_change_that_commits_late_is_read_after_the_cursor_not_passed_over() {
    use RegistrationChangeKind::Player;
    let ts = spawn_suite().await;
    let late = ts.admin.create_player(&new_player("Late Larry")).await;
    let late = late.expect("player");
    let (_, start) = read_until(&ts.anonymous, "", &[(Player, late.id)]).await;

    // A writer that does not go through the API, nor its search_path, renames Larry and has not
    // committed yet...
    let mut writer = PgConnection::establish(&ts.database_url).expect("the test database");
    writer
        .batch_execute(&format!(
            "BEGIN; UPDATE registration.players SET name = 'Larry Late' WHERE id = '{}'",
            late.id
        ))
        .expect("an open transaction renaming Larry");
    // ...while another player is registered and committed.
    let early = ts.admin.create_player(&new_player("Early Erin")).await;
    let early = early.expect("player");
    assert_eq!(
        ts.anonymous.player(early.id).await.unwrap().name,
        "Early Erin"
    );

    // The feed shows neither, and its cursor stays before both.
    for _ in 0..3 {
        let page = ts.anonymous.registration_changes(&start, 500).await;
        let page = page.expect("a page");
        assert_eq!(
            things(&page.items),
            [],
            "nothing passes the open transaction"
        );
        assert_eq!(page.next, start);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }

    writer.batch_execute("COMMIT").expect("commit");
    let (changes, _) = read_until(
        &ts.anonymous,
        &start,
        &[(Player, late.id), (Player, early.id)],
    )
    .await;
    let renamed = changes[0].player.as_ref().expect("Larry now");
    assert_eq!(renamed.name, "Larry Late");
    ts.shutdown().await;
}
