//! Ranking as the federation's read model: conditional reads, how fresh a read is, reads that
//! keep answering while a producer is down, and ratings replayed after a correction.

use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{
    EventFixture, TestSuite, eventually, seated, spawn_suite_with_event, won_by_first,
};
use catan_suite::Owner;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Draws the event's first round and waits until its standings include the play registration
/// records from the draw's delivery (a change of the event): from then on the results are the
/// only changes, so each new version is a result's.
async fn draw_first_round(ts: &TestSuite, fx: &EventFixture) -> catan_api::Round {
    let unplayed = ts.standings(fx.event.id).await.as_of;
    let round = fx.draw().await;
    eventually(10, "the event's play in its standings", async || {
        (ts.standings(fx.event.id).await.as_of > unplayed).then_some(())
    })
    .await;
    round
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn standings_carry_an_etag_answer_304_while_unchanged_and_say_how_fresh_they_are() {
    let (ts, fx) = spawn_suite_with_event(8, Some(2)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let round = draw_first_round(&ts, &fx).await;
    let first = fx.submit_random(&round, &round.tables[0], &mut rng).await;
    ts.settled().await;
    let path = format!("/v1/events/{}/standings", fx.event.id);
    let read = ts.http(Method::GET, &path).send().await;
    assert_eq!(read.status, StatusCode::OK);
    let etag = read.headers["etag"].to_str().expect("etag").to_string();
    let standings: catan_api::Standings = serde_json::from_str(&read.text).expect("standings");
    assert_eq!(
        standings.as_of, first.recorded_at,
        "as_of is the last change included"
    );

    let again = ts
        .http(Method::GET, &path)
        .header("If-None-Match", &etag)
        .send()
        .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert!(again.text.is_empty());

    let second = fx.submit_random(&round, &round.tables[1], &mut rng).await;
    ts.settled().await;
    let changed = ts
        .http(Method::GET, &path)
        .header("If-None-Match", &etag)
        .send()
        .await;
    assert_eq!(
        changed.status,
        StatusCode::OK,
        "a new result is a new version"
    );
    assert_ne!(changed.headers["etag"].to_str().expect("etag"), etag);
    let standings: catan_api::Standings = serde_json::from_str(&changed.text).expect("standings");
    assert_eq!(
        (standings.results_counted, standings.as_of),
        (2, second.recorded_at)
    );

    let placements = format!("/v1/events/{}/placements", fx.event.id);
    let read = ts.http(Method::GET, &placements).send().await;
    let etag = read.headers["etag"].to_str().expect("etag").to_string();
    let again = ts
        .http(Method::GET, &placements)
        .header("If-None-Match", &etag)
        .send()
        .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_client_that_accepts_gzip_gets_the_same_standings_gzipped_through_the_gateway() {
    use std::io::Read;
    let (ts, fx) = spawn_suite_with_event(12, Some(3)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let round = draw_first_round(&ts, &fx).await;
    fx.submit_random(&round, &round.tables[0], &mut rng).await;
    ts.settled().await;
    let path = format!("/v1/events/{}/standings", fx.event.id);
    let plain = ts.http(Method::GET, &path).send().await;
    assert_eq!(plain.status, StatusCode::OK);
    assert_eq!(plain.header("content-encoding"), None);
    let etag = plain.header("etag").expect("etag").to_owned();

    let gzipped = |holding: Option<&str>| {
        let mut request = ts
            .http(Method::GET, &path)
            .header("Accept-Encoding", "gzip, deflate");
        if let Some(etag) = holding {
            request = request.header("If-None-Match", etag);
        }
        request.response()
    };
    let zipped = gzipped(None).await;
    assert_eq!(zipped.status(), StatusCode::OK);
    let header = |name: &str| {
        zipped
            .headers()
            .get(name)
            .map(|v| v.to_str().expect("header").to_owned())
    };
    assert_eq!(header("content-encoding").as_deref(), Some("gzip"));
    // Caches keep one copy per encoding, and per origin (the answer names the origin it lets
    // read it).
    let vary = header("vary").expect("vary");
    assert!(
        vary.contains("Accept-Encoding") && vary.contains("Origin"),
        "{vary}"
    );
    let weak = header("etag").expect("etag");
    assert_eq!(weak, format!("W/{etag}"), "the same version, weakly");
    let sent = zipped.bytes().await.expect("body");
    assert!(
        sent.len() < plain.text.len(),
        "{} of {}",
        sent.len(),
        plain.text.len()
    );
    let mut unzipped = String::new();
    flate2::read::GzDecoder::new(&sent[..])
        .read_to_string(&mut unzipped)
        .expect("gzip");
    assert_eq!(unzipped, plain.text, "the very same standings");

    assert_eq!(
        gzipped(Some(&weak)).await.status(),
        StatusCode::NOT_MODIFIED
    );
    let second = fx.submit_random(&round, &round.tables[1], &mut rng).await;
    ts.settled().await;
    let changed = gzipped(Some(&weak)).await;
    assert_eq!(
        changed.status(),
        StatusCode::OK,
        "a new result is a new version"
    );
    let mut unzipped = String::new();
    flate2::read::GzDecoder::new(&changed.bytes().await.expect("body")[..])
        .read_to_string(&mut unzipped)
        .expect("gzip");
    let standings: catan_api::Standings = serde_json::from_str(&unzipped).expect("standings");
    assert_eq!(
        (standings.results_counted, standings.as_of),
        (2, second.recorded_at)
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn while_a_producer_is_down_reads_serve_the_last_state_and_say_so() {
    let (mut ts, fx) = spawn_suite_with_event(8, Some(2)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let round = draw_first_round(&ts, &fx).await;
    fx.submit_random(&round, &round.tables[0], &mut rng).await;
    let before = ts.standings(fx.event.id).await;

    ts.suite.stop_service(Owner::Results).await;
    // The follower notices on its next read.
    ts.failing_feed_noticed("results").await;
    let path = format!("/v1/events/{}/standings", fx.event.id);
    let read = ts.http(Method::GET, &path).send().await;
    assert_eq!(
        read.status,
        StatusCode::OK,
        "no error: the last state is served"
    );
    assert!(
        read.headers["warning"]
            .to_str()
            .expect("warning")
            .contains("out of date"),
        "and it says it may be behind"
    );
    let served: catan_api::Standings = serde_json::from_str(&read.text).expect("standings");
    assert_eq!(served.results_counted, before.results_counted);
    // So do the ratings, a player's page and a head-to-head.
    let [a, b, ..] = seated(&round.tables[0])[..] else {
        panic!("a table of players")
    };
    for path in [
        "/v1/ratings".to_owned(),
        format!("/v1/players/{a}/ratings"),
        format!("/v1/players/{a}/profile"),
        format!("/v1/players/{a}/head-to-head/{b}"),
    ] {
        let read = ts.http(Method::GET, &path).send().await;
        assert_eq!(read.status, StatusCode::OK, "{path}");
        assert!(read.headers.contains_key("warning"), "{path} says so");
    }

    ts.suite
        .restart_service(Owner::Results)
        .await
        .expect("results restarts");
    fx.submit_random(&round, &round.tables[1], &mut rng).await;
    let after = ts.standings(fx.event.id).await;
    assert_eq!(after.results_counted, 2);
    let read = ts.http(Method::GET, &path).send().await;
    assert!(!read.headers.contains_key("warning"), "caught up again");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_correction_replays_the_ratings_from_the_game_it_changes() {
    let (ts, fx) = spawn_suite_with_event(8, Some(3)).await;
    // Round 1: table 1's first seat wins; round 2 is played on top of it.
    let round1 = draw_first_round(&ts, &fx).await;
    let players1: Vec<_> = round1.tables.iter().map(seated).collect();
    let first = fx
        .submit(1, 1, &won_by_first(&players1[0], &[10, 5, 4, 3]))
        .await;
    fx.submit(1, 2, &won_by_first(&players1[1], &[10, 6, 5, 2]))
        .await;
    let round2 = fx.draw().await;
    for table in &round2.tables {
        fx.submit(
            2,
            table.number,
            &won_by_first(&seated(table), &[10, 7, 6, 5]),
        )
        .await;
    }
    ts.settled().await;
    let winner = players1[0][0];
    let loser = players1[0][3];
    let before = ts.anonymous.player_ratings(winner).await.expect("ratings");
    assert_eq!(before.games.len(), 2, "a game a round");
    assert!(
        before.games[0].mu_after > before.games[0].mu_before,
        "a win raises μ"
    );

    // The director corrects round 1's table 1: the last seat won it.
    let mut corrected = won_by_first(&players1[0], &[3, 5, 4, 10]);
    corrected.winner_player_id = Some(loser);
    let etag = format!("\"v{}\"", first.version);
    let correction = fx
        .director
        .correct_result(fx.event.id, 1, 1, &corrected, &etag)
        .await
        .expect("correction");
    ts.settled().await;
    let after = ts.anonymous.player_ratings(winner).await.expect("ratings");
    assert!(after.as_of > before.as_of, "the ratings say they moved on");
    assert!(
        (after.as_of - correction.recorded_at).num_microseconds() == Some(0),
        "the correction is the last change they include: {} against {}",
        after.as_of,
        correction.recorded_at
    );
    assert_eq!(after.games.len(), 2);
    assert!(
        after.games[0].mu_after < after.games[0].mu_before,
        "the first game is now a loss"
    );
    assert!(
        after.mu < before.mu,
        "and every later game was replayed on it"
    );
    assert_eq!(after.games[1].mu_before, after.games[0].mu_after);

    let board = ts
        .anonymous
        .ratings_leaderboard(None, Some(3))
        .await
        .expect("leaderboard");
    assert_eq!(board.as_of, after.as_of, "one ratings, one as_of");
    let board = board.rows;
    assert_eq!(board.len(), 8);
    assert!(board.windows(2).all(|w| w[0].rating >= w[1].rating));
    assert!(board.iter().all(|r| r.provisional && r.games == 2));
    let listed = board
        .iter()
        .find(|r| r.player_id == winner)
        .expect("listed");
    assert_eq!((listed.mu, listed.sigma), (after.mu, after.sigma));
    ts.shutdown().await;
}
