//! Venue mode's scenario: the federation's event (entered there, joined to a season there), and
//! how the venue plays it to its placements.

use catan_api::{ApiClient, CreateEntry, CreatePlayer, DrawRound, DropEntry, Role, Round, Stage};
use catan_e2e::fixtures::{regional_event, season_body};
use catan_e2e::{TestSuite, new_key, seated, won_by_first};
use catan_suite::demo::random_sheet;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use uuid::Uuid;

/// The name of the player the federation knows and the venue registers again as a late entry.
pub const LATE_NAME: &str = "Núria Puig";

/// The federation's event: 15 of the region's 16 players entered, two qualifying rounds, in the
/// region's season.
pub struct FederationEvent {
    pub region_id: Uuid,
    pub event_id: Uuid,
    pub season_id: Uuid,
    /// The region's player not entered, named [`LATE_NAME`].
    pub not_entered: Uuid,
    /// The event director's key at the federation.
    pub director_key: String,
}

impl FederationEvent {
    pub async fn enter(federation: &TestSuite) -> FederationEvent {
        let admin = &federation.admin;
        let region = admin.create_region("Catalonia").await.unwrap();
        let body = catan_api::CreateEvent {
            qualifying_rounds: Some(2),
            ..regional_event("Barcelona open", region.id)
        };
        let event = admin.create_event(&body).await.unwrap();
        let mut not_entered = Uuid::nil();
        for i in 1..=16 {
            let name = if i == 16 {
                LATE_NAME.to_owned()
            } else {
                format!("Player {i:02}")
            };
            let body = CreatePlayer {
                name,
                region_id: Some(region.id),
            };
            let player = admin.create_player(&body).await.unwrap();
            if i == 16 {
                not_entered = player.id;
            } else {
                admin
                    .create_entry(event.id, &CreateEntry::player(player.id))
                    .await
                    .unwrap();
            }
        }
        let season = admin
            .create_season(&season_body("Catalan league", Some(region.id)))
            .await
            .unwrap();
        admin.join_season(season.id, event.id).await.unwrap();
        let director_key = admin
            .create_api_key(&new_key("director", Role::Director, Some(vec![event.id])))
            .await
            .unwrap()
            .api_key;
        FederationEvent {
            region_id: region.id,
            event_id: event.id,
            season_id: season.id,
            not_entered,
            director_key,
        }
    }
}

/// What the venue's director did: the rounds, the late entry's player, the entry dropped.
pub struct Played {
    pub rounds: Vec<Round>,
    pub late_player: Uuid,
    pub dropped_entry: Uuid,
}

/// The venue plays the event to its placements: round 1 with the 15 pulled entries; then a late
/// entry (a player registered at the venue as [`LATE_NAME`]) and a pulled player's drop; then
/// every round until the event is over, each table's sheet posted; round 2's table 1 corrected
/// by the director.
pub async fn play(venue: &TestSuite, fed: &FederationEvent) -> Played {
    let event_id = fed.event_id;
    let key = venue
        .admin
        .create_api_key(&new_key(
            "venue director",
            Role::Director,
            Some(vec![event_id]),
        ))
        .await
        .unwrap()
        .api_key;
    let director = venue.client_for(&key).await;
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let mut rounds = Vec::new();
    let (mut late_player, mut dropped_entry) = (Uuid::nil(), Uuid::nil());
    loop {
        let Ok(round) = director.draw_round(event_id, &DrawRound::default()).await else {
            break;
        };
        for table in &round.tables {
            let seated = seated(table);
            let corrected = round.number == 2 && table.number == 1;
            let sheet = if corrected {
                won_by_first(&seated, &[10, 7, 5, 4][..seated.len()])
            } else {
                random_sheet(&seated, round.stage, &mut rng)
            };
            director
                .submit_result(event_id, round.number, table.number, &sheet)
                .await
                .unwrap();
            if corrected {
                let (_, etag) = director.result_with_etag(event_id, 2, 1).await.unwrap();
                director
                    .correct_result(
                        event_id,
                        2,
                        1,
                        &won_by_first(&seated, &[10, 8, 5, 4][..seated.len()]),
                        &etag,
                    )
                    .await
                    .unwrap();
            }
        }
        if round.number == 1 {
            late_player = late_entry(&director, fed).await;
            dropped_entry = drop_one(&director, fed).await;
        }
        rounds.push(round);
        assert!(rounds.len() <= 6, "the event ends");
    }
    assert_eq!(rounds.last().unwrap().stage, Stage::Final);
    let seated_in_2: Vec<Uuid> = rounds[1]
        .tables
        .iter()
        .flat_map(|t| t.seats.iter().map(|s| s.entry_id))
        .collect();
    assert_eq!(
        seated_in_2.len(),
        15,
        "the late entry in, the dropped one out"
    );
    assert!(!seated_in_2.contains(&dropped_entry));
    Played {
        rounds,
        late_player,
        dropped_entry,
    }
}

/// The late entry: a player the venue registers (it has not the federation's), entered.
async fn late_entry(director: &ApiClient, fed: &FederationEvent) -> Uuid {
    let body = CreatePlayer {
        name: LATE_NAME.to_owned(),
        region_id: Some(fed.region_id),
    };
    let player = director.create_player(&body).await.unwrap();
    director
        .create_entry(fed.event_id, &CreateEntry::player(player.id))
        .await
        .unwrap();
    player.id
}

/// A pulled player leaves after round 1: the director drops his entry.
async fn drop_one(director: &ApiClient, fed: &FederationEvent) -> Uuid {
    let entries = director.entries(fed.event_id).await.unwrap();
    let leaving = entries
        .iter()
        .find(|e| !e.player_ids.contains(&fed.not_entered))
        .unwrap();
    let drop = DropEntry {
        reason: "Left after round 1".into(),
        exclude: false,
    };
    director
        .drop_entry(fed.event_id, leaving.id, &drop)
        .await
        .unwrap();
    leaving.id
}
