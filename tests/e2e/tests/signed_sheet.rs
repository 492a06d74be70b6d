//! The signed results sheet: players confirm or dispute, the director resolves, and an event can
//! count only confirmed results in its standings.

use catan_api::{CreateEntry, CreateEvent, DrawRound, ResultStatus, StandingsCount};
use catan_e2e::{spawn_suite, won_by_first};
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
    let round = fx
        .director
        .draw_round(fx.event.id, &DrawRound::default())
        .await
        .expect("draw");
    let table = &round.tables[0];
    let players: Vec<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
    let sheet = won_by_first(&players, &[10, 7, 5, 3]);
    let posted = fx
        .scorer
        .submit_result(fx.event.id, 1, table.number, &sheet)
        .await
        .expect("posted");
    assert_eq!(posted.status, ResultStatus::Posted);
    let standings = ts
        .anonymous
        .standings(fx.event.id)
        .await
        .expect("standings");
    assert_eq!(
        standings.results_counted, 0,
        "an unconfirmed result does not count yet"
    );

    let player_client = |token: String| ts.anonymous.with_token(token);
    let mut clients = Vec::new();
    for player in &players {
        let token = ts
            .anonymous
            .player_token(fx.event.id, *player, &pins[player])
            .await
            .expect("player token")
            .access_token;
        clients.push(player_client(token));
    }
    // Only the table's own players sign its sheet, with their own token.
    let elsewhere = round.tables[1].seats[0].player_id;
    let outsider = player_client(
        ts.anonymous
            .player_token(fx.event.id, elsewhere, &pins[&elsewhere])
            .await
            .expect("token")
            .access_token,
    );
    assert_eq!(
        outsider
            .confirm_result(fx.event.id, 1, table.number)
            .await
            .expect_err("not his table")
            .status(),
        Some(403)
    );
    assert_eq!(
        fx.scorer
            .confirm_result(fx.event.id, 1, table.number)
            .await
            .expect_err("a scorer is no player")
            .status(),
        Some(403)
    );

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
    let standings = ts
        .anonymous
        .standings(fx.event.id)
        .await
        .expect("standings");
    assert_eq!(standings.results_counted, 1, "a confirmed result counts");

    // Another table: a player disputes; the director's correction resolves it.
    let other = &round.tables[1];
    let others: Vec<Uuid> = other.seats.iter().map(|s| s.player_id).collect();
    let mut sheet2 = sheet.clone();
    sheet2.winner_player_id = Some(others[0]);
    for (score, p) in sheet2.scores.iter_mut().zip(&others) {
        score.player_id = *p;
    }
    fx.scorer
        .submit_result(fx.event.id, 1, other.number, &sheet2)
        .await
        .expect("posted");
    let disputer = player_client(
        ts.anonymous
            .player_token(fx.event.id, others[1], &pins[&others[1]])
            .await
            .expect("token")
            .access_token,
    );
    let disputed = disputer
        .dispute_result(fx.event.id, 1, other.number, "I had 8, not 7")
        .await
        .expect("dispute");
    assert_eq!(disputed.status, ResultStatus::Disputed);
    assert_eq!(disputed.disputes[0].reason, "I had 8, not 7");
    let again = disputer
        .dispute_result(fx.event.id, 1, other.number, "again")
        .await
        .expect_err("once per version");
    assert_eq!(again.status(), Some(409));
    let mut fixed = sheet2.clone();
    fixed.scores[1].vp = 8;
    let resolved = fx
        .director
        .correct_result(fx.event.id, 1, other.number, &fixed, "\"v1\"")
        .await
        .expect("correction");
    assert_eq!(resolved.status, ResultStatus::Resolved);
    assert_eq!(resolved.disputes[0].resolved_by_version, Some(2));
    let standings = ts
        .anonymous
        .standings(fx.event.id)
        .await
        .expect("standings");
    assert_eq!(
        standings.results_counted, 2,
        "the director's resolution counts"
    );
    let vp = standings
        .rows
        .iter()
        .find(|r| r.player_id == others[1])
        .expect("listed")
        .vp;
    assert_eq!(vp, 8);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn wrong_pins_are_refused_and_lock_the_sign_in() {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(4, Some(1)).await;
    let player = fx.entries[0].player_ids[0];
    let pin = fx.entries[0].pins.as_ref().expect("pins")[0].pin.clone();
    let wrong = if pin == "000000" { "111111" } else { "000000" };
    for _ in 0..4 {
        let err = ts
            .anonymous
            .player_token(fx.event.id, player, wrong)
            .await
            .expect_err("wrong PIN");
        assert_eq!(err.status(), Some(401));
    }
    assert!(
        ts.anonymous
            .player_token(fx.event.id, player, &pin)
            .await
            .is_ok(),
        "the right PIN resets the count"
    );
    for _ in 0..5 {
        let _ = ts.anonymous.player_token(fx.event.id, player, wrong).await;
    }
    let locked = ts
        .anonymous
        .player_token(fx.event.id, player, &pin)
        .await
        .expect_err("locked");
    assert_eq!(locked.status(), Some(429));
    let unknown = ts
        .anonymous
        .player_token(Uuid::new_v4(), player, &pin)
        .await
        .expect_err("another event");
    assert_eq!(unknown.status(), Some(401));
    ts.shutdown().await;
}
