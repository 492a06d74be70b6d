//! A small league the web app's tests browse: a region, a season whose one event is played, and
//! an event in its first round.

use crate::{EventFixture, TestSuite, eventually, new_player, seated};
use catan_api::{CreateEntry, CreateEvent, Round, SmallFieldRule};
use chrono::NaiveDate;
use reqwest::Method;
use serde_json::json;
use uuid::Uuid;

/// An event of `names` entered, as the admin creates it with `body`.
pub async fn event_of(ts: &TestSuite, body: CreateEvent, names: &[&str]) -> EventFixture {
    let mut fx = ts.event(&body).await;
    for name in names {
        let mut player = new_player(name);
        player.region_id = body.region_id;
        let player = fx.director.create_player(&player).await.expect("player");
        let entry = fx
            .director
            .create_entry(fx.event.id, &CreateEntry::player(player.id))
            .await
            .expect("entry");
        fx.entries.push(entry);
    }
    fx
}

/// The name of the player in `seat` of `round`'s table `table` (0-based).
pub fn name_at(fx: &EventFixture, round: &Round, table: usize, seat: usize) -> String {
    let player = seated(&round.tables[table])[seat];
    fx.entries
        .iter()
        .find(|e| e.player_id == Some(player))
        .expect("entered")
        .name
        .clone()
}

/// A league of one region: a season scored by place whose one event of 4 is played (so its
/// table's order is the sheet's), and an 11-player event in its first round, none posted.
pub struct League {
    pub season: Uuid,
    /// The season's table as it must read: the played event's places 1 to 4.
    pub season_order: Vec<String>,
    pub live: EventFixture,
    pub round: Round,
}

pub async fn league(ts: &TestSuite) -> League {
    let region = ts.admin.create_region("Catalunya").await.expect("region");
    let season = ts
        .http(Method::POST, "/v1/seasons")
        .token(&ts.admin_token)
        .json(&json!({
            "name": "Circuit 2027", "region_id": region.id,
            "starts_on": "2027-01-01", "ends_on": "2027-12-31",
            "scoring": {"mode": "placement", "points": [25, 18, 15, 12], "best_n": 4},
            "qualification": {"event_slots": 1, "pass_down": true, "season_slots": 1}
        }))
        .send()
        .await;
    assert_eq!(season.status, 201, "season: {}", season.text);
    let season: Uuid = season.body()["id"].as_str().unwrap().parse().unwrap();
    let played = event_of(
        ts,
        CreateEvent {
            region_id: Some(region.id),
            starts_on: NaiveDate::from_ymd_opt(2027, 3, 6),
            qualifying_rounds: Some(1),
            small_field_playoff: Some(SmallFieldRule::NoPlayoff),
            ..CreateEvent::classic("Barcelona open")
        },
        &["Ana Ávila", "Bruno Blanco", "Chen Wei", "Dana Díaz"],
    )
    .await;
    eventually(10, "ranking to know the event", async || {
        ts.admin
            .join_season(season, played.event.id)
            .await
            .ok()
            .map(|_| ())
    })
    .await;
    let round = played.draw().await;
    let sheet = crate::won_by_first(&seated(&round.tables[0]), &[10, 7, 5, 3]);
    played.submit(1, 1, &sheet).await;
    let season_order = (0..4).map(|s| name_at(&played, &round, 0, s)).collect();
    let names: Vec<String> = (0..11).map(|i| format!("Live player {i:02}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let live = event_of(
        ts,
        CreateEvent {
            region_id: Some(region.id),
            starts_on: NaiveDate::from_ymd_opt(2027, 4, 10),
            qualifying_rounds: Some(2),
            venue: Some("Casal de Gràcia".into()),
            ..CreateEvent::classic("Girona cup")
        },
        &names,
    )
    .await;
    let round = live.draw().await;
    ts.settled().await;
    eventually(10, "the season's table", async || {
        let table = ts
            .anonymous
            .season_standings_summary(season, 10, 0)
            .await
            .ok()?;
        (table.rows.len() == 4).then_some(())
    })
    .await;
    League {
        season,
        season_order,
        live,
        round,
    }
}
