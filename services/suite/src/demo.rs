//! `catan-suite demo`: a whole event played through the API with random but legal results.

use catan_api::{
    ApiClient, ClientError, CreateApiKey, CreateEntry, CreateEvent, CreatePlayer, DrawRound, Event,
    OutcomeKind, PartnerSettings, PartnerStandings, Placements, Position, Role, Round, ScoreInput,
    SeatPosition, Stage, Standings, SubmitResult, Table,
};
use rand::Rng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use uuid::Uuid;

/// A legal classic results sheet for players seated at one table: at a final, or four games in
/// five, a winner with 10 to 12 VP and the others 2 to 9; otherwise the game ends at the time limit.
pub fn random_sheet(seated: &[Uuid], stage: Stage, rng: &mut impl Rng) -> SubmitResult {
    let finished = stage == Stage::Final || rng.random_bool(0.8);
    let winner = if finished {
        seated.choose(rng).copied()
    } else {
        None
    };
    SubmitResult {
        early_reason: None,
        checked: None,
        outcome: if finished {
            OutcomeKind::Won
        } else {
            OutcomeKind::TimeLimit
        },
        winner_player_id: winner,
        winner_entry_id: None,
        scores: seated
            .iter()
            .map(|&player_id| ScoreInput {
                player_id,
                vp: if Some(player_id) == winner {
                    rng.random_range(10..=12)
                } else {
                    rng.random_range(2..=9)
                },
                breakdown: None,
            })
            .collect(),
    }
}

/// A legal partner results sheet for a table: two games in three won by a team whose players
/// together reach the target; otherwise stopped at the time limit with both teams below it.
#[expect(
    clippy::expect_used,
    reason = "the demo plays only tables the pairing service drew, which seat all four positions"
)]
pub fn random_partner_sheet(
    table: &Table,
    rules: &PartnerSettings,
    rng: &mut impl Rng,
) -> SubmitResult {
    let seat = |p: SeatPosition| {
        table
            .seats
            .iter()
            .find(|s| s.position == p)
            .expect("a full partner table")
    };
    let teams = [
        [seat(SeatPosition::N), seat(SeatPosition::S)],
        [seat(SeatPosition::E), seat(SeatPosition::W)],
    ];
    let finished = rng.random_bool(2.0 / 3.0);
    let winner = finished.then(|| rng.random_range(0..2usize));
    let target = i64::from(rules.target_vp);
    let mut scores = Vec::new();
    for (i, team) in teams.iter().enumerate() {
        let (first, second) = if Some(i) == winner {
            let first = rng.random_range((target - 12).max(2)..=12.min(target - 2));
            (
                first,
                (target - first + rng.random_range(0..=1)).clamp(2, 12),
            )
        } else {
            // Below the target: a team that reached it would have won.
            let first = rng.random_range(2..=((target - 4) / 2).max(2));
            (
                first,
                rng.random_range(2..=(target - 1 - first).clamp(2, 12)),
            )
        };
        for (seat, vp) in team.iter().zip([first, second]) {
            scores.push(ScoreInput {
                player_id: seat.player_id,
                vp,
                breakdown: None,
            });
        }
    }
    SubmitResult {
        early_reason: None,
        checked: None,
        outcome: if finished {
            OutcomeKind::Won
        } else {
            OutcomeKind::TimeLimit
        },
        winner_player_id: None,
        winner_entry_id: winner.map(|i| teams[i][0].entry_id),
        scores,
    }
}

/// An event with clients for its director and its table app.
pub struct DemoEvent {
    pub event: Event,
    pub director: ApiClient,
    pub scorer: ApiClient,
    pub public: ApiClient,
}

/// Creates the event described by `body` and keys for its director and table app.
pub async fn create_event(
    base_url: &str,
    admin_key: &str,
    body: &CreateEvent,
) -> Result<DemoEvent, ClientError> {
    let public = ApiClient::new(base_url);
    let admin = public.with_token(public.token(admin_key).await?.access_token);
    let event = admin.create_event(body).await?;
    let key_for = |role: Role, name: &str| CreateApiKey {
        name: name.to_string(),
        role,
        event_ids: Some(vec![event.id]),
        region_ids: None,
    };
    let director_key = admin
        .create_api_key(&key_for(Role::Director, "demo director"))
        .await?;
    let scorer_key = admin
        .create_api_key(&key_for(Role::Scorer, "demo table app"))
        .await?;
    Ok(DemoEvent {
        director: public.with_token(public.token(&director_key.api_key).await?.access_token),
        scorer: public.with_token(public.token(&scorer_key.api_key).await?.access_token),
        event,
        public,
    })
}

/// Draws rounds and posts a result for every table until the event has no round left to draw,
/// saying each step.
async fn play_rounds(
    demo: &DemoEvent,
    rng: &mut ChaCha8Rng,
    say: &dyn Fn(String),
) -> Result<Vec<Round>, ClientError> {
    let event = &demo.event;
    let mut rounds = Vec::new();
    loop {
        let round = match demo
            .director
            .draw_round(
                event.id,
                &DrawRound {
                    seed: Some(rng.random_range(0..1 << 53)),
                },
            )
            .await
        {
            Ok(round) => round,
            // 409 once the last round is drawn and played.
            Err(ClientError::Problem { problem })
                if problem.status == 409 && !rounds.is_empty() =>
            {
                break;
            }
            Err(e) => return Err(e),
        };
        let tables = round.tables.len();
        say(format!(
            "Round {} ({}) drawn: {tables} table{}",
            round.number,
            stage_name(round.stage),
            if tables == 1 { "" } else { "s" }
        ));
        for table in &round.tables {
            let sheet = match &round.partner_rules {
                Some(rules) => random_partner_sheet(table, rules, rng),
                None => {
                    let seated: Vec<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
                    random_sheet(&seated, round.stage, rng)
                }
            };
            demo.scorer
                .submit_result(event.id, round.number, table.number, &sheet)
                .await?;
        }
        say(format!(
            "Round {}: {tables} result{} posted",
            round.number,
            if tables == 1 { "" } else { "s" }
        ));
        let last = round.stage == Stage::Final;
        rounds.push(round);
        if last {
            break;
        }
    }
    Ok(rounds)
}

async fn register_players(demo: &DemoEvent, count: usize) -> Result<Vec<Uuid>, ClientError> {
    let mut players = Vec::with_capacity(count);
    for i in 1..=count {
        let player = demo
            .director
            .create_player(&CreatePlayer {
                name: format!("Player {i:02}"),
                region_id: demo.event.region_id,
            })
            .await?;
        players.push(player.id);
    }
    Ok(players)
}

/// What a played classic event leaves.
pub struct PlayedEvent {
    pub event_id: Uuid,
    /// The position of every write the demo made.
    pub position: Position,
    pub rounds: Vec<Round>,
    pub standings: Standings,
    pub placements: Placements,
}

/// How a stage is said in the demo's report.
fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Qualifying => "qualifying",
        Stage::Swiss => "Swiss",
        Stage::Semifinal => "semi-finals",
        Stage::Final => "final",
    }
}

/// Where the demo plays: the API's base URL, its admin key, the seed of its random choices, and
/// where it says each step it takes.
pub struct DemoTarget<'a> {
    pub base_url: &'a str,
    pub admin_key: &'a str,
    pub seed: u64,
    pub say: &'a dyn Fn(String),
}

impl DemoTarget<'_> {
    /// The event `body` describes, with its keys, and the demo's random choices.
    async fn start(&self, body: CreateEvent) -> Result<(DemoEvent, ChaCha8Rng), ClientError> {
        // A practice event: its draws take the demo's seeds, so a demo replays from its own.
        let body = CreateEvent {
            practice: Some(true),
            ..body
        };
        let demo = create_event(self.base_url, self.admin_key, &body).await?;
        (self.say)(format!(
            "Event \"{}\" created ({}), with keys for its director and its table app",
            demo.event.name, demo.event.id
        ));
        Ok((demo, ChaCha8Rng::seed_from_u64(self.seed)))
    }
}

/// Plays a classic event of `players` players through the API.
pub async fn play_classic_event(
    at: DemoTarget<'_>,
    players: usize,
) -> Result<PlayedEvent, ClientError> {
    let name = format!("Demo open ({players} players)");
    let (demo, mut rng) = at.start(CreateEvent::classic(&name)).await?;
    for player in register_players(&demo, players).await? {
        demo.director
            .create_entry(demo.event.id, &CreateEntry::player(player))
            .await?;
    }
    (at.say)(format!("{players} players registered and entered"));
    let rounds = play_rounds(&demo, &mut rng, at.say).await?;
    // The public client shares the position of every write the demo made: the reads include
    // the final.
    let standings = demo.public.standings(demo.event.id).await?;
    let placements = demo.public.placements(demo.event.id).await?;
    (at.say)(format!(
        "Standings and placements read: {} players placed",
        placements.rows.len()
    ));
    Ok(PlayedEvent {
        event_id: demo.event.id,
        position: demo.public.position(),
        rounds,
        standings,
        placements,
    })
}

/// What a played partner event leaves.
pub struct PlayedPartnerEvent {
    pub event_id: Uuid,
    /// The position of every write the demo made.
    pub position: Position,
    pub rounds: Vec<Round>,
    pub standings: PartnerStandings,
}

/// Plays a partner event of `teams` teams of two through the API.
pub async fn play_partner_event(
    at: DemoTarget<'_>,
    teams: usize,
) -> Result<PlayedPartnerEvent, ClientError> {
    let (demo, mut rng) = at
        .start(CreateEvent::partner(&format!(
            "Demo partner cup ({teams} teams)"
        )))
        .await?;
    let players = register_players(&demo, teams * 2).await?;
    (at.say)(format!("{} players registered", players.len()));
    for (i, pair) in players.chunks(2).enumerate() {
        demo.director
            .create_entry(
                demo.event.id,
                &CreateEntry::team(&format!("Team {:02}", i + 1), [pair[0], pair[1]]),
            )
            .await?;
    }
    (at.say)(format!("{teams} teams entered"));
    let rounds = play_rounds(&demo, &mut rng, at.say).await?;
    let standings = demo.public.partner_standings(demo.event.id).await?;
    (at.say)("Standings read".to_owned());
    Ok(PlayedPartnerEvent {
        event_id: standings.event_id,
        position: demo.public.position(),
        rounds,
        standings,
    })
}

/// The standings and placements as text.
pub fn report(played: &PlayedEvent) -> String {
    let standings = played.standings.rows.iter().map(|r| {
        format!(
            "{:>4}  {:<10} {:>4}  {:>8}  {:>5}  {:>2}\n",
            r.rank, r.name, r.vp, r.vp_share, r.games, r.three_player_games
        )
    });
    let placements = played
        .placements
        .rows
        .iter()
        .map(|p| format!("{:>5}  {:<10}  {:?}\n", p.place, p.name, p.stage));
    format!(
        "Event {}\n\nQualifying standings after round {}\nrank  name         VP  VP share  games  3p\n{}\nFinal placements\nplace  name        reached\n{}",
        played.event_id,
        played.standings.after_round,
        standings.collect::<String>(),
        placements.collect::<String>()
    )
}

/// A partner event's standings as text.
pub fn partner_report(played: &PlayedPartnerEvent) -> String {
    let header = "rank  team      points   VP  VP against  games  byes  prize";
    let mut out = format!(
        "Event {}\n\nStandings after round {}\n{header}\n",
        played.event_id, played.standings.after_round
    );
    for r in &played.standings.rows {
        let prize = r.prize.map(|p| p.to_string()).unwrap_or_default();
        out += &format!(
            "{:>4}  {:<8}  {:>6}  {:>3}  {:>10}  {:>5}  {:>4}  {prize}\n",
            r.rank, r.team_name, r.points, r.vp, r.vp_against, r.games, r.byes
        );
    }
    out
}
