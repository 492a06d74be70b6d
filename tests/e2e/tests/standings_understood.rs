//! Standings people understand (issue 35), end to end: a player the projection calls sure of the
//! playoff makes it whatever the remaining sheets say, and one it calls out does not, over 50
//! random playings; each row's explanation names the criterion that really separates it from the
//! row above; the season table says who can still qualify; the pages say it in words.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

use catan_api::{
    CreateEntry, CreateEvent, CutOutlook, EventCriterion, QualificationOutlook, Separation,
    StandingRow, Standings,
};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{EventFixture, TestSuite, seated, spawn_suite_configured};
use num_rational::BigRational;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use uuid::Uuid;

/// A suite whose rate limits let one test play many events.
async fn suite() -> TestSuite {
    spawn_suite_configured(|settings| {
        settings.rate_limit.per_second = 10_000.0;
        settings.rate_limit.burst = 10_000.0;
    })
    .await
}

/// An event of 8 players and 3 qualifying rounds: the top 4 play the final.
async fn small_event(ts: &TestSuite, n: usize) -> EventFixture {
    let body = CreateEvent {
        qualifying_rounds: Some(3),
        practice: Some(true),
        ..CreateEvent::classic(&format!("Projection open {n}"))
    };
    let mut fx = ts.event(&body).await;
    for player in ts.players(&fx, 8).await {
        let entry = CreateEntry::player(player);
        fx.entries
            .push(fx.director.create_entry(fx.event.id, &entry).await.unwrap());
    }
    fx
}

/// Plays round `number`: random legal sheets at every table.
async fn play_round(fx: &EventFixture, rng: &mut ChaCha8Rng) -> catan_api::Round {
    let round = fx.draw().await;
    for table in &round.tables {
        fx.submit_random(&round, table, rng).await;
    }
    round
}

/// The players the outlook of `standings` puts in `outlook`.
fn players_in(standings: &Standings, outlook: CutOutlook) -> HashSet<Uuid> {
    standings
        .rows
        .iter()
        .filter(|row| row.playoff == Some(outlook))
        .map(|row| row.player_id)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_projection_holds_whatever_the_remaining_sheets_say_over_50_playings() {
    let ts = suite().await;
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    let (mut sure_seen, mut out_seen) = (0, 0);
    for n in 0..50 {
        let fx = small_event(&ts, n).await;
        let mut sure = HashSet::new();
        let mut out = HashSet::new();
        for _ in 0..3 {
            play_round(&fx, &mut rng).await;
            // The director's client holds the position of every sheet: the read counts them.
            let standings = fx.director.standings(fx.event.id).await.unwrap();
            let cut = standings.playoff.expect("a playoff to make");
            assert_eq!(cut.cut, 4);
            assert_explanations_name_what_separates(&standings.rows);
            // Once sure (or out), always: the projection never takes it back.
            let now_sure = players_in(&standings, CutOutlook::AlreadySure);
            let now_out = players_in(&standings, CutOutlook::CannotMakeIt);
            assert!(
                sure.is_subset(&now_sure),
                "playing {n}: a sure player is sure no more"
            );
            assert!(
                out.is_subset(&now_out),
                "playing {n}: an out player is back in"
            );
            sure = now_sure;
            out = now_out;
            if cut.remaining_rounds == 0 {
                assert_eq!(sure.len(), 4, "with no round left the cut is known");
            }
        }
        let final_round = fx.draw().await;
        let finalists: HashSet<Uuid> = seated(&final_round.tables[0]).into_iter().collect();
        assert!(
            sure.is_subset(&finalists),
            "playing {n}: a sure player is not in the final"
        );
        assert!(
            finalists.is_disjoint(&out),
            "playing {n}: an out player is in the final"
        );
        sure_seen += sure.len();
        out_seen += out.len();
    }
    assert!(
        sure_seen > 0 && out_seen > 0,
        "the playings put players on both sides"
    );
    ts.shutdown().await;
}

/// Each row's explanation names the first criterion of the order (VP, then the exact VP share,
/// then wins) on which the row above is ahead, after the ones they are level on; rows level on
/// everything say so and share the rank.
fn assert_explanations_name_what_separates(rows: &[StandingRow]) {
    assert!(rows.first().is_none_or(|row| row.behind.is_none()));
    for pair in rows.windows(2) {
        let (above, below) = (&pair[0], &pair[1]);
        let behind: &Separation<EventCriterion> = below.behind.as_ref().expect("an explanation");
        let exact = |row: &StandingRow| row.vp_share_exact.parse::<BigRational>().unwrap();
        let figures = |row: &StandingRow| {
            [
                (EventCriterion::Vp, BigRational::from_integer(row.vp.into())),
                (EventCriterion::VpShare, exact(row)),
                (
                    EventCriterion::Wins,
                    BigRational::from_integer(row.wins.into()),
                ),
            ]
        };
        let differ = figures(above)
            .into_iter()
            .zip(figures(below))
            .position(|((_, a), (_, b))| a != b);
        let levels = behind.level_on.clone();
        match differ {
            Some(first) => {
                let ahead = behind.ahead_on.expect("a criterion they differ on");
                assert_eq!(ahead, figures(above)[first].0, "{above:?} / {below:?}");
                assert_eq!(
                    levels,
                    figures(above)[..first]
                        .iter()
                        .map(|f| f.0)
                        .collect::<Vec<_>>()
                );
            }
            None => {
                assert!(behind.ahead_on.is_none(), "level on everything: {behind:?}");
                assert_eq!(above.rank, below.rank, "level rows share their rank");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_pages_say_why_a_row_is_below_and_the_season_says_who_can_still_qualify() {
    let ts = suite().await;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let season: catan_api::CreateSeason = serde_json::from_value(serde_json::json!({
        "name": "Projection circuit", "starts_on": "2020-01-01", "ends_on": "2099-12-31",
        "scoring": {"mode": "placement", "points": [10, 6, 4, 3, 2, 1], "best_n": 2,
                    "tie_breaks": ["points", "table_places", "vp_capped_at_winning_total"]},
        "qualification": {"event_slots": 1, "season_slots": 1}
    }))
    .unwrap();
    let season = ts.admin.create_season(&season).await.unwrap();
    let played = small_event(&ts, 100).await;
    let to_come = small_event(&ts, 101).await;
    for fx in [&played, &to_come] {
        ts.admin.join_season(season.id, fx.event.id).await.unwrap();
    }
    for _ in 0..3 {
        play_round(&played, &mut rng).await;
    }
    let final_round = played.draw().await;
    played
        .submit_random(&final_round, &final_round.tables[0], &mut rng)
        .await;
    let reader = catan_api::ApiClient::new(ts.anonymous.base_url())
        .with_position(played.scorer.position().merge(ts.admin.position()));
    let table = reader
        .season_standings(season.id, None, 100, 0)
        .await
        .unwrap();
    let outlooks: Vec<Option<QualificationOutlook>> =
        table.rows.iter().map(|row| row.qualification).collect();
    // The final's winner holds the event's slot: qualified whatever the event to come gives.
    assert_eq!(
        outlooks[0],
        Some(QualificationOutlook::AlreadyQualified),
        "{outlooks:?}"
    );
    assert!(
        outlooks.contains(&Some(QualificationOutlook::CanStillQualify)),
        "with an event to come, the season slot is open: {outlooks:?}"
    );
    let second = table.rows[1].behind.as_ref().expect("an explanation");
    assert_eq!(
        second.ahead_on,
        Some(catan_api::TieBreak::Points),
        "places give different points"
    );

    let event_page = ts
        .http(Method::GET, &format!("/events/{}", played.event.id))
        .header("accept-language", "en")
        .send()
        .await;
    assert_eq!(event_page.status, StatusCode::OK);
    assert!(
        event_page.text.contains("class=\"muted why\""),
        "explanations shown"
    );
    assert!(event_page.text.contains("Playoff"), "the playoff column");
    let season_page = ts
        .http(Method::GET, &format!("/seasons/{}", season.id))
        .header("accept-language", "es")
        .send()
        .await;
    assert!(
        season_page.text.contains("Aún puede clasificarse"),
        "said in Spanish"
    );
    assert!(
        season_page.text.contains("por delante en Puntos"),
        "{}",
        season_page.text
    );
    ts.shutdown().await;
}
