//! Players report and confirm (issue 31): an event's `player_reporting` says whether a seated
//! player posts the table's first sheet, confirms it, or leaves both to the staff; its
//! `players_may_drop` whether a player drops themselves.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "the test's helpers: a failed step fails the test"
)]

#[path = "player_reporting/signed_in.rs"]
mod signed_in;

use catan_api::{
    AuditQuery, DropEntry, EditEvent, EntryStatus, PlayerReporting, ResultStatus, Role, TableResult,
};
use catan_e2e::http::StatusCode;
use catan_e2e::{assert_refused, seated, spawn_suite};
use serde_json::json;
use signed_in::{classic_with, signed_in, with_options};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_report_a_seated_player_posts_the_first_sheet_and_the_others_confirm() {
    let ts = spawn_suite().await;
    let e = signed_in(&ts, &classic_with(json!({"player_reporting": "report"}))).await;
    assert_eq!(e.fx.event.player_reporting, PlayerReporting::Report);
    assert_eq!(e.round.player_reporting, PlayerReporting::Report);
    let players = seated(e.table(0));
    let sheet = e.sheet(0);

    // A player of the other table cannot post this one.
    let outsider = e.token(&ts, e.table(1).seats[0].player_id).await;
    let refused = e.put_sheet(&ts, &outsider, 0, &sheet).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.text);

    let reporter = e.token(&ts, players[0]).await;
    let posted = e.put_sheet(&ts, &reporter, 0, &sheet).await;
    assert_eq!(posted.status, StatusCode::CREATED, "{}", posted.text);
    let posted: TableResult = posted.json();
    assert_eq!(
        (posted.version, posted.recorded_by),
        (1, players[0]),
        "the reporter recorded version 1"
    );
    assert_eq!(
        posted.confirmed_by,
        vec![players[0]],
        "the reporter's sheet is their signature"
    );
    let by_reporter = AuditQuery {
        key_id: Some(players[0]),
        ..Default::default()
    };
    let trail = ts.admin.audit(&by_reporter, 100, 0).await.expect("audit");
    assert!(
        trail.iter().any(|record| record.role == Role::Player
            && record.method == "PUT"
            && record.status == 201),
        "the trail keeps the player's sheet under their id: {trail:?}"
    );
    let again = e.put_sheet(&ts, &reporter, 0, &sheet).await;
    assert_eq!(
        again.status,
        StatusCode::OK,
        "the same sheet changes nothing"
    );
    assert_eq!(again.json::<TableResult>().version, 1);

    // Another player of the table sends a different sheet: a player never corrects.
    let mut other_sheet = sheet.clone();
    other_sheet.scores[1].vp = 8;
    let second = e.token(&ts, players[1]).await;
    let conflict = e.put_sheet(&ts, &second, 0, &other_sheet).await;
    assert_eq!(conflict.status, StatusCode::CONFLICT, "{}", conflict.text);

    let mut last = None;
    for player in &players[1..] {
        let client = e.client(&ts, *player).await;
        last = Some(
            client
                .confirm_result(e.event(), 1, e.table(0).number)
                .await
                .expect("a seated player confirms"),
        );
    }
    let confirmed = last.expect("three confirmations");
    assert_eq!(confirmed.status, ResultStatus::Confirmed);
    assert_eq!(confirmed.version, 1);

    // Only the director corrects.
    let corrected =
        e.fx.director
            .correct_result(e.event(), 1, e.table(0).number, &other_sheet, "\"v1\"")
            .await
            .expect("the director corrects");
    assert_eq!(corrected.version, 2);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_confirm_a_players_sheet_is_refused_and_the_round_keeps_its_option() {
    let ts = spawn_suite().await;
    let e = signed_in(&ts, &classic_with(json!({}))).await;
    assert_eq!(e.fx.event.player_reporting, PlayerReporting::Confirm);
    assert!(!e.fx.event.players_may_drop);
    let players = seated(e.table(0));
    let player = e.token(&ts, players[0]).await;
    let refused = e.put_sheet(&ts, &player, 0, &e.sheet(0)).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.text);

    // The event now lets players report; round 1, drawn before, keeps `confirm`.
    let edit = EditEvent {
        player_reporting: Some(PlayerReporting::Report),
        ..EditEvent::default()
    };
    let edited = ts.admin.edit_event(e.event(), &edit).await.expect("edit");
    assert_eq!(edited.player_reporting, PlayerReporting::Report);
    let still = e.put_sheet(&ts, &player, 0, &e.sheet(0)).await;
    assert_eq!(still.status, StatusCode::FORBIDDEN, "{}", still.text);

    e.fx.submit(1, e.table(0).number, &e.sheet(0)).await;
    let client = e.client(&ts, players[0]).await;
    let signed = client
        .confirm_result(e.event(), 1, e.table(0).number)
        .await
        .expect("a seated player confirms");
    assert_eq!(signed.confirmed_by, vec![players[0]]);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_off_players_neither_confirm_nor_dispute_and_the_director_confirms_for_them() {
    let ts = spawn_suite().await;
    let e = signed_in(&ts, &classic_with(json!({"player_reporting": "off"}))).await;
    assert_eq!(e.round.player_reporting, PlayerReporting::Off);
    let table = e.table(0).number;
    let players = seated(e.table(0));
    e.fx.submit(1, table, &e.sheet(0)).await;
    let client = e.client(&ts, players[0]).await;
    assert_refused(
        client.confirm_result(e.event(), 1, table).await,
        403,
        "no player confirms",
    );
    assert_refused(
        client.dispute_result(e.event(), 1, table, "I had 8").await,
        403,
        "no player disputes",
    );
    let mut last = None;
    for player in &players {
        last = Some(
            e.fx.director
                .confirm_result_for(e.event(), 1, table, *player)
                .await
                .expect("the director confirms for a player"),
        );
    }
    let confirmed = last.expect("four confirmations");
    assert_eq!(confirmed.status, ResultStatus::Confirmed);
    assert_eq!(confirmed.confirmed_by_director.len(), 4);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn players_drop_themselves_only_where_the_event_allows_and_only_their_own_entry() {
    let ts = spawn_suite().await;
    let leaving = DropEntry {
        reason: "Has to catch a train".into(),
        exclude: false,
    };
    let not_allowed = signed_in(&ts, &classic_with(json!({}))).await;
    let player = not_allowed.table(0).seats[0].player_id;
    let client = not_allowed.client(&ts, player).await;
    let own = not_allowed.entry_of(player);
    assert_refused(
        client.drop_entry(not_allowed.event(), own, &leaving).await,
        403,
        "the event does not let players drop",
    );

    let allowed = signed_in(&ts, &classic_with(json!({"players_may_drop": true}))).await;
    assert!(allowed.fx.event.players_may_drop);
    let (player, other) = (
        allowed.table(0).seats[0].player_id,
        allowed.table(1).seats[0].player_id,
    );
    let client = allowed.client(&ts, player).await;
    assert_refused(
        client
            .drop_entry(allowed.event(), allowed.entry_of(other), &leaving)
            .await,
        403,
        "another player's entry",
    );
    let excluding = DropEntry {
        exclude: true,
        ..leaving.clone()
    };
    let own = allowed.entry_of(player);
    assert_refused(
        client.drop_entry(allowed.event(), own, &excluding).await,
        403,
        "only the director excludes",
    );
    let dropped = client
        .drop_entry(allowed.event(), own, &leaving)
        .await
        .expect("the player drops");
    assert_eq!(dropped.status, EntryStatus::Dropped);
    assert_eq!(
        dropped.status_reason.as_deref(),
        Some("Has to catch a train")
    );

    // A partner team's either member drops the team.
    let name = format!("Players' cup {}", uuid::Uuid::new_v4().simple());
    let body = with_options(
        catan_api::CreateEvent::partner(&name),
        json!({"players_may_drop": true}),
    );
    let partner = signed_in(&ts, &body).await;
    let team = &partner.fx.entries[0];
    let member = partner.client(&ts, team.player_ids[1]).await;
    let dropped = member
        .drop_entry(partner.event(), team.id, &leaving)
        .await
        .expect("a member drops the team");
    assert_eq!(dropped.status, EntryStatus::Dropped);
    ts.shutdown().await;
}
