//! The setup of `venue-publish`, not timed: the federation's event entered, the venue's pull of
//! it, and the venue playing the event.

use crate::harness::{self, Bench, SEEDING};
use anyhow::{Context, bail};
use catan_api::{
    CreateEvent, CreatePlayer, CreateSeason, DrawRound, Round, SubmitResults, Table, TableSheet,
};
use catan_suite::demo::random_sheet;
use catan_suite::venue::pull::{PullOrder, Pulled, VenueSuite, pull};
use futures_util::{StreamExt, TryStreamExt, stream};
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use uuid::Uuid;

/// The venue's name, as the federation's checkout names it.
pub const VENUE: &str = "Bench venue";

/// Sheets a batch request carries when the venue posts a round.
const BATCH: usize = 100;

/// The federation's event: `players` of its region entered, in the region's season.
pub struct FederationEvent {
    pub region_id: Uuid,
    pub event_id: Uuid,
    pub season_id: Uuid,
}

/// A season of `region`, placement-scored, as the end-to-end tests make it.
pub fn season_body(region_id: Uuid) -> anyhow::Result<CreateSeason> {
    serde_json::from_value(serde_json::json!({
        "name": "Bench league", "region_id": region_id,
        "starts_on": "2020-01-01", "ends_on": "2040-12-31",
        "scoring": {"mode": "placement", "points": [25, 18, 15, 12], "best_n": 4},
    }))
    .context("a season's body")
}

/// A region, `players` players of it, a classic event of the region with `rounds` qualifying
/// rounds with every player entered, and the region's season the event counts in.
pub async fn enter_at_federation(
    federation: &Bench,
    players: usize,
    rounds: u32,
) -> anyhow::Result<FederationEvent> {
    let admin = &federation.admin;
    let region = admin.create_region("Bench region").await?;
    let region_id = Some(region.id);
    let player_ids: Vec<Uuid> = stream::iter(0..players)
        .map(|i| async move {
            let body = CreatePlayer {
                name: format!("Bench player {i:05}"),
                region_id,
            };
            admin.create_player(&body).await.map(|p| p.id)
        })
        .buffered(SEEDING)
        .try_collect()
        .await?;
    let body = CreateEvent {
        region_id,
        qualifying_rounds: Some(i64::from(rounds)),
        ..CreateEvent::classic(&format!("Bench venue open ({players} players)"))
    };
    let event = admin.create_event(&body).await?;
    federation.enter(&event, &player_ids).await?;
    let season = admin.create_season(&season_body(region.id)?).await?;
    admin.join_season(season.id, event.id).await?;
    Ok(FederationEvent {
        region_id: region.id,
        event_id: event.id,
        season_id: season.id,
    })
}

/// The venue's side: its own database (its name and URL), its suite's admin key and the folder
/// where it keeps the checkout's key.
pub struct VenueSide {
    server_url: String,
    pub database: String,
    pub database_url: String,
    pub admin_key: String,
    pub dir: PathBuf,
}

impl VenueSide {
    /// A fresh database for the venue, and the federation's event pulled into it with the
    /// federation's admin key (the library function behind `catan-suite venue pull`).
    pub async fn pull(
        server_url: &str,
        federation: &Bench,
        event_id: Uuid,
    ) -> anyhow::Result<(VenueSide, Pulled)> {
        let (database, database_url) = harness::fresh_database(server_url).await?;
        let venue = VenueSide {
            server_url: server_url.to_owned(),
            database,
            database_url,
            admin_key: harness::new_admin_key(),
            dir: std::env::temp_dir().join(format!("catan-bench-venue-{}", Uuid::new_v4())),
        };
        let url = federation.suite.url();
        let order = PullOrder {
            federation: &url,
            federation_key: &federation.admin_key,
            event_id,
            venue: VENUE,
            region_players: false,
        };
        match pull(&order, venue.suite(), &say).await {
            Ok(pulled) => Ok((venue, pulled)),
            Err(e) => {
                venue.remove().await;
                Err(e.context("the venue's pull"))
            }
        }
    }

    /// The venue's suite as `venue pull` and `venue publish` start it.
    pub fn suite(&self) -> VenueSuite {
        VenueSuite {
            settings: harness::settings(&self.database_url, &self.admin_key),
            admin_key: self.admin_key.clone(),
            dir: self.dir.clone(),
        }
    }

    /// The venue's suite served over its database, with its admin's client.
    pub async fn serve(&self) -> anyhow::Result<Bench> {
        Bench::over(
            &self.server_url,
            self.database.clone(),
            self.database_url.clone(),
            self.admin_key.clone(),
        )
        .await
    }

    /// Drops the venue's database and removes its folder.
    pub async fn remove(self) {
        harness::drop_database(&self.server_url, &self.database).await;
        if let Err(e) = std::fs::remove_dir_all(&self.dir)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            eprintln!("catan-bench: could not remove {}: {e}", self.dir.display());
        }
    }
}

/// What publish says, on stderr.
pub fn say(line: String) {
    eprintln!("venue-publish: {line}");
}

/// What the venue played.
pub struct Played {
    pub tables: usize,
    pub corrections: usize,
    pub playoff_rounds: u32,
}

/// The venue plays `rounds` qualifying rounds of the event (and with `playoff` every round of
/// its playoff, until the event is over): each drawn, every table's sheet posted (`BATCH` a
/// request), and one table in `correct_every` of each round corrected by the director, so that
/// the results carry a history.
pub async fn play(
    venue: &Bench,
    event_id: Uuid,
    rounds: u32,
    playoff: bool,
    correct_every: usize,
    rng: &mut ChaCha8Rng,
) -> anyhow::Result<Played> {
    let admin = &venue.admin;
    let mut played = Played {
        tables: 0,
        corrections: 0,
        playoff_rounds: 0,
    };
    for _ in 0..rounds {
        let round = admin.draw_round(event_id, &DrawRound::default()).await?;
        play_round(venue, &round, correct_every, rng, &mut played).await?;
    }
    // A draw after the final is refused: the event is over.
    while playoff && let Ok(round) = admin.draw_round(event_id, &DrawRound::default()).await {
        play_round(venue, &round, correct_every, rng, &mut played).await?;
        played.playoff_rounds += 1;
        if played.playoff_rounds > 3 {
            bail!("the playoff did not end after 3 rounds");
        }
    }
    Ok(played)
}

/// Posts every table's sheet of `round` and corrects one table in `correct_every`.
async fn play_round(
    venue: &Bench,
    round: &Round,
    correct_every: usize,
    rng: &mut ChaCha8Rng,
    played: &mut Played,
) -> anyhow::Result<()> {
    let (admin, event_id) = (&venue.admin, round.event_id);
    let seated = |t: &Table| t.seats.iter().map(|s| s.player_id).collect::<Vec<_>>();
    let sheets: Vec<TableSheet> = round
        .tables
        .iter()
        .map(|table| TableSheet {
            table: table.number,
            sheet: random_sheet(&seated(table), round.stage, rng),
        })
        .collect();
    let bodies: Vec<SubmitResults> = sheets
        .chunks(BATCH)
        .map(|chunk| SubmitResults {
            sheets: chunk.to_vec(),
        })
        .collect();
    let outcomes: Vec<_> = stream::iter(&bodies)
        .map(|body| admin.submit_results(event_id, round.number, body))
        .buffer_unordered(SEEDING)
        .try_collect()
        .await?;
    let refused: Vec<_> = outcomes
        .iter()
        .flat_map(|o| &o.results)
        .filter(|r| r.status != 201)
        .collect();
    if !refused.is_empty() {
        bail!("round {}: sheets refused: {refused:?}", round.number);
    }
    played.tables += sheets.len();
    for table in round.tables.iter().step_by(correct_every.max(1)) {
        let (_, etag) = admin
            .result_with_etag(event_id, round.number, table.number)
            .await?;
        let sheet = random_sheet(&seated(table), round.stage, rng);
        admin
            .correct_result(event_id, round.number, table.number, &sheet, &etag)
            .await?;
        played.corrections += 1;
    }
    Ok(())
}
