//! Events with their keys and entries, rounds drawn and results posted, through the typed client.

use crate::TestSuite;
use catan_api::{
    ApiClient, CreateApiKey, CreatePlayer, DrawRound, Role, Round, Seat, SeatPosition, Standings,
    SubmitResult, Table, TableResult,
};
use catan_suite::demo::random_sheet;
use std::collections::HashSet;
use uuid::Uuid;

/// An event with its director's and scorer's clients and its entries.
pub struct EventFixture {
    pub event: catan_api::Event,
    /// The director's API key (its secret).
    pub director_key: String,
    pub director: ApiClient,
    pub scorer: ApiClient,
    pub entries: Vec<catan_api::Entry>,
}

impl TestSuite {
    /// A classic event with `players` new players entered, and keys for its director and scorer.
    pub async fn classic_event(
        &self,
        players: usize,
        qualifying_rounds: Option<i64>,
    ) -> EventFixture {
        let name = format!("Test open {}", Uuid::new_v4().simple());
        let body = catan_api::CreateEvent {
            qualifying_rounds,
            ..catan_api::CreateEvent::classic(&name)
        };
        self.classic_event_as(&body, players).await
    }

    /// The classic event `body` describes with `players` new players entered, and keys for its
    /// director and scorer.
    pub async fn classic_event_as(
        &self,
        body: &catan_api::CreateEvent,
        players: usize,
    ) -> EventFixture {
        let mut fx = self.event(body).await;
        for player in self.players(&fx, players).await {
            let entry = catan_api::CreateEntry::player(player);
            fx.entries.push(
                fx.director
                    .create_entry(fx.event.id, &entry)
                    .await
                    .expect("entry"),
            );
        }
        fx
    }

    /// A partner event with `teams` new teams of two entered.
    pub async fn partner_event(&self, teams: usize) -> EventFixture {
        let name = format!("Test partner cup {}", Uuid::new_v4().simple());
        let mut fx = self.event(&catan_api::CreateEvent::partner(&name)).await;
        self.enter_teams(&mut fx, teams).await;
        fx
    }

    /// `teams` new teams of two, entered in the event by its director.
    pub async fn enter_teams(&self, fx: &mut EventFixture, teams: usize) {
        let players = self.players(fx, teams * 2).await;
        for (i, pair) in players.chunks(2).enumerate() {
            let team = catan_api::CreateEntry::team(&format!("Team {i:02}"), [pair[0], pair[1]]);
            fx.entries.push(
                fx.director
                    .create_entry(fx.event.id, &team)
                    .await
                    .expect("team entry"),
            );
        }
    }

    /// `count` new players, registered by the event's director.
    pub async fn players(&self, fx: &EventFixture, count: usize) -> Vec<Uuid> {
        let mut players = Vec::with_capacity(count);
        for i in 0..count {
            let body = new_player(&format!("Player {i:03}"));
            players.push(fx.director.create_player(&body).await.expect("player").id);
        }
        players
    }

    /// The event `body` describes, with keys for its director and scorer, and no entries yet.
    pub async fn event(&self, body: &catan_api::CreateEvent) -> EventFixture {
        let event = self.admin.create_event(body).await.expect("event");
        let key = |role: Role| {
            new_key(
                &format!("{} key", role.as_str()),
                role,
                Some(vec![event.id]),
            )
        };
        let director_key = self
            .admin
            .create_api_key(&key(Role::Director))
            .await
            .expect("director key");
        let scorer_key = self
            .admin
            .create_api_key(&key(Role::Scorer))
            .await
            .expect("scorer key");
        EventFixture {
            director: self.client_for(&director_key.api_key).await,
            director_key: director_key.api_key,
            scorer: self.client_for(&scorer_key.api_key).await,
            event,
            entries: Vec::new(),
        }
    }
}

/// A classic results sheet the first of `players` won: each player's VP in seat order.
pub fn won_by_first(players: &[Uuid], vps: &[i64]) -> catan_api::SubmitResult {
    catan_api::SubmitResult {
        early_reason: None,
        checked: None,
        outcome: catan_api::OutcomeKind::Won,
        winner_player_id: players.first().copied(),
        winner_entry_id: None,
        scores: players
            .iter()
            .zip(vps)
            .map(|(&player_id, &vp)| catan_api::ScoreInput {
                player_id,
                vp,
                breakdown: None,
            })
            .collect(),
    }
}

/// A player named `name`, of no region, to register.
pub fn new_player(name: &str) -> CreatePlayer {
    CreatePlayer {
        name: name.to_string(),
        region_id: None,
    }
}

/// An API key named `name` to create for `role`, limited to `event_ids` when given.
pub fn new_key(name: &str, role: Role, event_ids: Option<Vec<Uuid>>) -> CreateApiKey {
    CreateApiKey {
        name: name.to_string(),
        role,
        event_ids,
        region_ids: None,
    }
}

/// An organiser key named `name` for `region_ids` (only the admin issues them).
pub fn new_organiser_key(name: &str, region_ids: Vec<Uuid>) -> CreateApiKey {
    CreateApiKey {
        name: name.to_string(),
        role: Role::Organiser,
        event_ids: None,
        region_ids: Some(region_ids),
    }
}

/// The entries seated at any table of `round`.
pub fn seated_entries(round: &Round) -> HashSet<Uuid> {
    round
        .tables
        .iter()
        .flat_map(|t| t.seats.iter().map(|s| s.entry_id))
        .collect()
}

/// Where `player_id` stands in `standings`: the index of its row.
pub fn place_of(standings: &Standings, player_id: Uuid) -> usize {
    standings
        .rows
        .iter()
        .position(|r| r.player_id == player_id)
        .expect("listed")
}

/// The players seated at `table`, in play order.
pub fn seated(table: &Table) -> Vec<Uuid> {
    table.seats.iter().map(|s| s.player_id).collect()
}

/// The seat at `position` of `table`.
pub fn seat_at(table: &Table, position: SeatPosition) -> &Seat {
    table
        .seats
        .iter()
        .find(|s| s.position == position)
        .expect("seat")
}

impl EventFixture {
    /// The next round, drawn by the director with no seed given.
    pub async fn draw(&self) -> Round {
        self.director
            .draw_round(self.event.id, &DrawRound::default())
            .await
            .expect("draw")
    }

    /// Draws the next round, and returns a sheet for its first table that the first player seated
    /// won, with `vps` in seat order (see [`won_by_first`]).
    pub async fn draw_and_sheet(&self, vps: &[i64]) -> SubmitResult {
        let round = self.draw().await;
        won_by_first(&seated(&round.tables[0]), vps)
    }

    /// `sheet` posted by the scorer for table `table` of round `round`.
    pub async fn submit(&self, round: u32, table: u32, sheet: &SubmitResult) -> TableResult {
        self.scorer
            .submit_result(self.event.id, round, table, sheet)
            .await
            .expect("result")
    }

    /// A random but legal classic sheet posted by the scorer for `table` of `round`.
    pub async fn submit_random(
        &self,
        round: &Round,
        table: &Table,
        rng: &mut impl rand::Rng,
    ) -> TableResult {
        let sheet = random_sheet(&seated(table), round.stage, rng);
        self.submit(round.number, table.number, &sheet).await
    }
}

/// A one-round classic event of `region`.
pub fn regional_event(name: &str, region: Uuid) -> catan_api::CreateEvent {
    catan_api::CreateEvent {
        region_id: Some(region),
        qualifying_rounds: Some(1),
        ..catan_api::CreateEvent::classic(name)
    }
}

/// A season placement-scored (25, 18, 15, 12; best 4) over 2020 to 2040, of `region` or of all.
pub fn season_body(name: &str, region: Option<Uuid>) -> catan_api::CreateSeason {
    serde_json::from_value(serde_json::json!({
        "name": name, "region_id": region, "starts_on": "2020-01-01", "ends_on": "2040-12-31",
        "scoring": {"mode": "placement", "points": [25, 18, 15, 12], "best_n": 4},
    }))
    .expect("a season")
}
