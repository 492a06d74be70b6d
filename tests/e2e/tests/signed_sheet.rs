//! The signed results sheet: players confirm or dispute, the director resolves, and an event can
//! count only confirmed results in its standings.

use catan_api::{CreateEntry, CreateEvent, ResultStatus, StandingsCount};
use catan_e2e::{
    assert_refused, place_of, seated, spawn_suite, spawn_suite_with_event, won_by_first,
};
use std::collections::HashMap;
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn players_confirm_or_dispute_and_the_director_resolves() {
    let ts = spawn_suite().await;
    let body = CreateEvent {
        qualifying_rounds: Some(1),
        standings_count: Some(StandingsCount::Confirmed),
        ..CreateEvent::classic("Signed sheets open")
    };
    let mut fx = ts.event(&body).await;
    let mut pins: HashMap<Uuid, String> = HashMap::new();
    for player in ts.players(&fx, 8).await {
        let entry = fx
            .director
            .create_entry(fx.event.id, &CreateEntry::player(player))
            .await
            .expect("entry");
        for pin in entry
            .pins
            .clone()
            .expect("the PINs come with the new entry")
        {
            pins.insert(pin.player_id, pin.pin);
        }
        assert!(
            ts.anonymous
                .entries(fx.event.id)
                .await
                .expect("entries")
                .iter()
                .all(|e| e.pins.is_none()),
            "PINs are shown once"
        );
        fx.entries.push(entry);
    }
    let round = fx.draw().await;
    let table = &round.tables[0];
    let players = seated(table);
    let sheet = won_by_first(&players, &[10, 7, 5, 3]);
    let posted = fx.submit(1, table.number, &sheet).await;
    assert_eq!(posted.status, ResultStatus::Posted);
    assert_eq!(
        ts.standings(fx.event.id).await.results_counted,
        0,
        "an unconfirmed result does not count yet"
    );

    let player_client = |player: Uuid| ts.player_client(fx.event.id, player, &pins[&player]);
    let mut clients = Vec::new();
    for player in &players {
        clients.push(player_client(*player).await);
    }
    // Only the table's own players sign its sheet, with their own token.
    let outsider = player_client(round.tables[1].seats[0].player_id).await;
    let signed = outsider.confirm_result(fx.event.id, 1, table.number).await;
    assert_refused(signed, 403, "not his table");
    let signed = fx.scorer.confirm_result(fx.event.id, 1, table.number).await;
    assert_refused(signed, 403, "a scorer is no player");

    for client in &clients[..3] {
        let r = client
            .confirm_result(fx.event.id, 1, table.number)
            .await
            .expect("confirm");
        assert_eq!(r.status, ResultStatus::Posted);
    }
    let r = clients[3]
        .confirm_result(fx.event.id, 1, table.number)
        .await
        .expect("last confirmation");
    assert_eq!(r.status, ResultStatus::Confirmed);
    assert_eq!(r.confirmed_by.len(), 4);
    let standings = ts.standings(fx.event.id).await;
    assert_eq!(standings.results_counted, 1, "a confirmed result counts");

    // Another table: a player disputes; the director's correction resolves it.
    let other = &round.tables[1];
    let others = seated(other);
    let mut sheet2 = sheet.clone();
    sheet2.winner_player_id = Some(others[0]);
    for (score, p) in sheet2.scores.iter_mut().zip(&others) {
        score.player_id = *p;
    }
    fx.submit(1, other.number, &sheet2).await;
    let disputer = player_client(others[1]).await;
    let disputed = disputer
        .dispute_result(fx.event.id, 1, other.number, "I had 8, not 7")
        .await
        .expect("dispute");
    assert_eq!(disputed.status, ResultStatus::Disputed);
    assert_eq!(disputed.disputes[0].reason, "I had 8, not 7");
    let again = disputer
        .dispute_result(fx.event.id, 1, other.number, "again")
        .await;
    assert_refused(again, 409, "once per version");
    let mut fixed = sheet2.clone();
    fixed.scores[1].vp = 8;
    let resolved = fx
        .director
        .correct_result(fx.event.id, 1, other.number, &fixed, "\"v1\"")
        .await
        .expect("correction");
    assert_eq!(resolved.status, ResultStatus::Resolved);
    assert_eq!(resolved.disputes[0].resolved_by_version, Some(2));
    let standings = ts.standings(fx.event.id).await;
    assert_eq!(
        standings.results_counted, 2,
        "the director's resolution counts"
    );
    assert_eq!(standings.rows[place_of(&standings, others[1])].vp, 8);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn wrong_pins_are_refused_and_make_the_caller_wait() {
    let (ts, fx) = spawn_suite_with_event(4, Some(1)).await;
    let player = fx.entries[0].player_ids[0];
    let pin = fx.entries[0].pins.as_ref().expect("pins")[0].pin.clone();
    let wrong = if pin == "000000" { "111111" } else { "000000" };
    let sign_in =
        async |event: Uuid, pin: &str| ts.anonymous.player_token(event, player, pin).await;
    for _ in 0..4 {
        assert_refused(sign_in(fx.event.id, wrong).await, 401, "wrong PIN");
    }
    assert!(
        sign_in(fx.event.id, &pin).await.is_ok(),
        "the right PIN resets the count"
    );
    for _ in 0..5 {
        let _ = sign_in(fx.event.id, wrong).await;
    }
    assert_refused(sign_in(fx.event.id, &pin).await, 429, "this caller waits");
    // The wait is the caller's, not the player's: from another address he signs in.
    let elsewhere = async |event: Uuid| {
        let body = serde_json::json!({ "event_id": event, "player_id": player, "pin": pin });
        ts.http_from(
            std::net::Ipv4Addr::new(127, 0, 0, 9),
            catan_e2e::http::Method::POST,
            "/v1/auth/player-token",
        )
        .json(&body)
        .send()
        .await
        .status
        .as_u16()
    };
    assert_eq!(elsewhere(fx.event.id).await, 200, "not locked out");
    assert_eq!(elsewhere(Uuid::new_v4()).await, 401, "another event");
    ts.shutdown().await;
}
