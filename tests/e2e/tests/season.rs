//! A season played through the API (issue 8): five regional events of 9 to 13 players (tables of
//! 3 and 4) and one of another region, random legal sheets, a regional season scored by placement
//! with best N and qualification with pass-down, a federation-wide season scored by table points,
//! a late correction, a declined place and a merge of two identities. The season tables and the
//! qualified players are compared with a computation written here from the posted sheets and the
//! events' placements, not with the service's or the domain's season code.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "the test's helpers: a failed step fails the test"
)]

use catan_api::{
    CreateEntry, CreateEvent, CreatePlayer, CreateSeason, EventSearch, OutcomeKind,
    QualifiedPlayer, QualifiedVia, ScoreInput, SeasonStandingRow, SeasonStandings, SmallFieldRule,
    Stage, SubmitResult, TableResult,
};
use catan_domain::ratings::{Model, RatedGame, Rating, Ratings};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{EventFixture, TestSuite, assert_refused, names, problem_of, seated, spawn_suite};
use catan_suite::demo::random_sheet;
use chrono::NaiveDate;
use num_rational::Ratio;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use uuid::Uuid;

type Q = Ratio<i64>;

/// A season table's line as compared: player, rank, exact points, events played and counted,
/// wins, best place, VP, exact VP share (percent), and each event's (id, place, exact points,
/// counted).
type Compared = (
    Uuid,
    u32,
    String,
    u32,
    u32,
    u32,
    Option<u32>,
    u64,
    String,
    Vec<(Uuid, Option<u32>, String, bool)>,
);

fn day(month: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2027, month, day).expect("a day")
}

fn exact(q: &Q) -> String {
    format!("{}/{}", q.numer(), q.denom())
}

// ---------------------------------------------------------------------------------------------
// The season computed here, from the posted sheets and the placements the API reads out.
// ---------------------------------------------------------------------------------------------

/// One event as the test knows it.
struct Played {
    id: Uuid,
    starts_on: NaiveDate,
    field: u32,
    /// The placements as `GET /v1/events/{id}/placements` reads them: (player, place).
    placements: Vec<(Uuid, u32)>,
    /// Every table's current result.
    results: BTreeMap<(u32, u32), TableResult>,
}

enum Mode {
    /// Points by final place.
    Placement(Vec<i64>),
    /// 5-3-2-1 at a table of 4, 5-3-1 at a table of 3, tied players sharing.
    TablePoints,
}

#[derive(Clone, Copy, PartialEq)]
enum By {
    Points,
    Wins,
    Vp,
    VpShare,
    BestPlace,
    FewerEvents,
}

struct Rules {
    mode: Mode,
    best_n: usize,
    ranking: Vec<By>,
}

/// A player's line of the season table, as computed here.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    player: Uuid,
    rank: u32,
    points: Q,
    played: u32,
    counted: u32,
    wins: u32,
    best_place: Option<u32>,
    vp: i64,
    /// The average share of the table's VP, as a fraction of 1.
    vp_share: Q,
    /// (event, place, points, counted), in play order.
    results: Vec<(Uuid, Option<u32>, Q, bool)>,
}

/// What one event gave one player.
#[derive(Default, Clone)]
struct Figures {
    place: Option<u32>,
    points: Q,
    vp: i64,
    share: Q,
    games: i64,
}

/// Table points of one game: the winner first, then more VP; equal players share the points of
/// the places they span.
fn table_points(result: &TableResult, canonical: &impl Fn(Uuid) -> Uuid) -> Vec<(Uuid, Q)> {
    let scale: &[i64] = if result.scores.len() == 4 {
        &[5, 3, 2, 1]
    } else {
        &[5, 3, 1]
    };
    let key = |s: &catan_api::ScoreRecorded| {
        if result.winner_player_id == Some(s.player_id) {
            i64::MIN
        } else {
            -i64::from(s.vp)
        }
    };
    result
        .scores
        .iter()
        .map(|s| {
            let mine = key(s);
            let ahead = result.scores.iter().filter(|o| key(o) < mine).count();
            let tied = result.scores.iter().filter(|o| key(o) == mine).count();
            let sum: i64 = scale[ahead..ahead + tied].iter().sum();
            (
                canonical(s.player_id),
                Q::new(sum, i64::try_from(tied).unwrap()),
            )
        })
        .collect()
}

/// The season table over `events` (in play order), merged identities as their survivors.
fn expected_table(rules: &Rules, events: &[&Played], survivor: &HashMap<Uuid, Uuid>) -> Vec<Line> {
    let canonical = |p: Uuid| survivor.get(&p).copied().unwrap_or(p);
    let mut per_player: HashMap<Uuid, Vec<(usize, Figures)>> = HashMap::new();
    for (k, event) in events.iter().enumerate() {
        let mut figures: HashMap<Uuid, Figures> = HashMap::new();
        for &(player, place) in &event.placements {
            let f = figures.entry(canonical(player)).or_default();
            f.place = Some(place);
            if let Mode::Placement(table) = &rules.mode {
                f.points = Q::from_integer(
                    usize::try_from(place - 1)
                        .ok()
                        .and_then(|i| table.get(i))
                        .copied()
                        .unwrap_or(0),
                );
            }
        }
        for result in event.results.values() {
            let capped: Vec<i64> = result
                .scores
                .iter()
                .map(|s| i64::from(s.vp.min(10)))
                .collect();
            let total: i64 = capped.iter().sum();
            for (s, &mine) in result.scores.iter().zip(&capped) {
                let f = figures.entry(canonical(s.player_id)).or_default();
                f.vp += mine;
                f.share += Q::new(mine, total);
                f.games += 1;
            }
            if let Mode::TablePoints = rules.mode {
                for (player, points) in table_points(result, &canonical) {
                    figures.entry(player).or_default().points += points;
                }
            }
        }
        for (player, f) in figures {
            per_player.entry(player).or_default().push((k, f));
        }
    }
    let mut lines: Vec<Line> = per_player
        .into_iter()
        .map(|(player, mut played)| {
            played.sort_by_key(|(k, _)| *k);
            // The best N: the most points first, the earlier event first on equal points.
            let mut order: Vec<usize> = (0..played.len()).collect();
            order.sort_by(|&a, &b| played[b].1.points.cmp(&played[a].1.points).then(a.cmp(&b)));
            let counted: HashSet<usize> = order.into_iter().take(rules.best_n).collect();
            let mut line = Line {
                player,
                rank: 0,
                points: Q::from_integer(0),
                played: u32::try_from(played.len()).unwrap(),
                counted: u32::try_from(counted.len()).unwrap(),
                wins: 0,
                best_place: None,
                vp: 0,
                vp_share: Q::from_integer(0),
                results: Vec::new(),
            };
            let (mut shares, mut games) = (Q::from_integer(0), 0);
            for (i, (k, f)) in played.iter().enumerate() {
                let is_counted = counted.contains(&i);
                line.results
                    .push((events[*k].id, f.place, f.points, is_counted));
                if is_counted {
                    line.points += f.points;
                    line.wins += u32::from(f.place == Some(1));
                    line.best_place = match (line.best_place, f.place) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    line.vp += f.vp;
                    shares += f.share;
                    games += f.games;
                }
            }
            if games > 0 {
                line.vp_share = shares / Q::from_integer(games);
            }
            line
        })
        .collect();
    let compare = |a: &Line, b: &Line| {
        rules
            .ranking
            .iter()
            .map(|by| match by {
                By::Points => b.points.cmp(&a.points),
                By::Wins => b.wins.cmp(&a.wins),
                By::Vp => b.vp.cmp(&a.vp),
                By::VpShare => b.vp_share.cmp(&a.vp_share),
                By::BestPlace => match (a.best_place, b.best_place) {
                    (Some(x), Some(y)) => x.cmp(&y),
                    (Some(_), None) => Ordering::Less,
                    (None, Some(_)) => Ordering::Greater,
                    (None, None) => Ordering::Equal,
                },
                By::FewerEvents => a.played.cmp(&b.played),
            })
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    };
    lines.sort_by(|a, b| compare(a, b).then(a.player.cmp(&b.player)));
    for i in 0..lines.len() {
        lines[i].rank = if i > 0 && compare(&lines[i - 1], &lines[i]).is_eq() {
            lines[i - 1].rank
        } else {
            u32::try_from(i + 1).unwrap()
        };
    }
    lines
}

/// Who qualifies, as computed here: each event's winner in play order (a winner who holds a
/// place already, or declined, himself or as a merged duplicate, passes it to the next eligible
/// player of that event), then the best `season_slots` of the table not otherwise qualified or
/// declined.
fn expected_qualified(
    events: &[&Played],
    table: &[Line],
    season_slots: usize,
    declined: &HashSet<Uuid>,
    survivor: &HashMap<Uuid, Uuid>,
) -> Vec<(Uuid, QualifiedVia, Option<Uuid>)> {
    let canonical = |p: Uuid| survivor.get(&p).copied().unwrap_or(p);
    // A merged player's decline is his survivor's: they are one person.
    let declined: &HashSet<Uuid> = &declined.iter().map(|&p| canonical(p)).collect();
    let mut taken: HashSet<Uuid> = HashSet::new();
    let mut qualified = Vec::new();
    for event in events {
        let mut order: Vec<(Uuid, u32)> = event
            .placements
            .iter()
            .map(|&(p, place)| (canonical(p), place))
            .collect();
        order.sort_by_key(|(_, place)| *place);
        let (winner, place) = order[0];
        let via = |place| QualifiedVia::Event {
            event_id: event.id,
            place,
        };
        if declined.contains(&winner) || !taken.insert(winner) {
            if let Some(&(next, place)) = order[1..]
                .iter()
                .find(|(p, _)| !declined.contains(p) && !taken.contains(p))
            {
                taken.insert(next);
                qualified.push((next, via(place), Some(winner)));
            }
        } else {
            qualified.push((winner, via(place), None));
        }
    }
    qualified.extend(
        table
            .iter()
            .filter(|l| !declined.contains(&l.player) && !taken.contains(&l.player))
            .take(season_slots)
            .map(|l| {
                (
                    l.player,
                    QualifiedVia::Season {
                        season_rank: l.rank,
                    },
                    None,
                )
            }),
    );
    qualified
}

/// The service's table, as comparable lines.
fn served_lines(rows: &[SeasonStandingRow]) -> Vec<Compared> {
    rows.iter()
        .map(|r| {
            (
                r.player_id,
                r.rank,
                r.points_exact.clone(),
                r.events_played,
                r.events_counted,
                r.wins,
                r.best_place,
                r.vp,
                r.vp_share_exact.clone(),
                r.results
                    .iter()
                    .map(|e| (e.event_id, e.place, e.points_exact.clone(), e.counted))
                    .collect(),
            )
        })
        .collect()
}

/// The table computed here, in the service's terms.
fn expected_lines(lines: &[Line]) -> Vec<Compared> {
    lines
        .iter()
        .map(|l| {
            (
                l.player,
                l.rank,
                exact(&l.points),
                l.played,
                l.counted,
                l.wins,
                l.best_place,
                u64::try_from(l.vp).unwrap(),
                exact(&(l.vp_share * Q::from_integer(100))),
                l.results
                    .iter()
                    .map(|(e, place, points, counted)| (*e, *place, exact(points), *counted))
                    .collect(),
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Playing the events.
// ---------------------------------------------------------------------------------------------

/// A legal sheet: `star` wins every table he sits at; any other table is random (it may stop at
/// the time limit).
fn sheet(players: &[Uuid], stage: Stage, star: Uuid, rng: &mut ChaCha8Rng) -> SubmitResult {
    if !players.contains(&star) {
        return random_sheet(players, stage, rng);
    }
    SubmitResult {
        early_reason: None,
        checked: None,
        outcome: OutcomeKind::Won,
        winner_player_id: Some(star),
        winner_entry_id: None,
        scores: players
            .iter()
            .map(|&player_id| ScoreInput {
                player_id,
                vp: if player_id == star {
                    rng.random_range(10..=12)
                } else {
                    rng.random_range(2..=9)
                },
                breakdown: None,
            })
            .collect(),
    }
}

/// Plays every round of an event, returning each table's result.
async fn play(
    fx: &EventFixture,
    star: Uuid,
    rng: &mut ChaCha8Rng,
) -> BTreeMap<(u32, u32), TableResult> {
    let rounds = match fx.event.small_field_playoff {
        SmallFieldRule::NoPlayoff => 2,
        SmallFieldRule::FinalOfTop4 => 3,
    };
    let mut results = BTreeMap::new();
    for _ in 0..rounds {
        let round = fx.draw().await;
        if round.stage == Stage::Final {
            let finalists = seated(&round.tables[0]);
            assert!(
                !fx.entries.iter().any(|e| e.player_ids[0] == star) || finalists.contains(&star),
                "the star, two wins in two rounds, is in the final"
            );
        }
        for table in &round.tables {
            let s = sheet(&seated(table), round.stage, star, rng);
            results.insert(
                (round.number, table.number),
                fx.submit(round.number, table.number, &s).await,
            );
        }
    }
    results
}

/// Where a game falls in the order of play: first day, event, round, table.
type PlayOrder = (NaiveDate, Uuid, u32, u32);

/// Every player's rating from the posted sheets: each game in order of play (first day, event,
/// round, table), its players placed here (the winner first, then more VP; equal VP share a
/// place), rated by the openskill model (checked against the PyPI package in
/// `ratings_openskill.rs`); a merged identity's games are his survivor's.
fn expected_ratings(played: &[Played], survivor: &HashMap<Uuid, Uuid>) -> BTreeMap<Uuid, Rating> {
    let canonical = |p: Uuid| survivor.get(&p).copied().unwrap_or(p);
    let mut games: Vec<(PlayOrder, &TableResult)> = played
        .iter()
        .flat_map(|e| {
            e.results
                .iter()
                .map(move |(&(round, table), r)| ((e.starts_on, e.id, round, table), r))
        })
        .collect();
    games.sort_by_key(|(key, _)| *key);
    let mut ratings = Ratings::new(Model::default());
    let mut players = BTreeSet::new();
    for (_, result) in games {
        let finish: Vec<(bool, std::cmp::Reverse<u8>)> = result
            .scores
            .iter()
            .map(|s| {
                (
                    result.winner_player_id != Some(s.player_id),
                    std::cmp::Reverse(s.vp),
                )
            })
            .collect();
        let places = finish
            .iter()
            .map(|mine| 1 + u32::try_from(finish.iter().filter(|f| *f < mine).count()).unwrap())
            .collect();
        let teams: Vec<Vec<Uuid>> = result
            .scores
            .iter()
            .map(|s| vec![canonical(s.player_id)])
            .collect();
        players.extend(teams.iter().flatten().copied());
        ratings.play(&RatedGame { teams, places });
    }
    players.into_iter().map(|p| (p, ratings.of(p))).collect()
}

/// Every player's served rating is the one computed from the sheets.
async fn assert_ratings(
    ts: &TestSuite,
    played: &[Played],
    survivor: &HashMap<Uuid, Uuid>,
    stage: &str,
) {
    for (player, expected) in expected_ratings(played, survivor) {
        let served = ts.anonymous.player_ratings(player).await.expect("ratings");
        assert!(
            (served.mu - expected.mu).abs() < 1e-9 && (served.sigma - expected.sigma).abs() < 1e-9,
            "{player}'s rating {stage}: served {} {}, from the sheets {} {}",
            served.mu,
            served.sigma,
            expected.mu,
            expected.sigma
        );
    }
}

/// Every row of a season's table, read page by page.
async fn season_table(ts: &TestSuite, season: Uuid) -> Vec<SeasonStandingRow> {
    let mut rows = Vec::new();
    loop {
        let page = ts
            .anonymous
            .season_standings(season, None, 7, u32::try_from(rows.len()).unwrap())
            .await
            .expect("season standings");
        let full = page.rows.len() == 7;
        rows.extend(page.rows);
        if !full {
            return rows;
        }
    }
}

fn qualified_lines(list: &[QualifiedPlayer]) -> Vec<(Uuid, QualifiedVia, Option<Uuid>)> {
    list.iter()
        .map(|q| (q.player_id, q.via, q.passed_down_from))
        .collect()
}

/// An event of `region` on `starts_on` (through `ends_on`), two qualifying rounds, with or
/// without a final, and `players` entered.
async fn event(
    ts: &TestSuite,
    name: &str,
    region: Uuid,
    (starts_on, ends_on): (NaiveDate, NaiveDate),
    rule: SmallFieldRule,
    players: &[Uuid],
    pins: &mut HashMap<(Uuid, Uuid), String>,
) -> EventFixture {
    let mut fx = ts
        .event(&CreateEvent {
            region_id: Some(region),
            starts_on: Some(starts_on),
            ends_on: Some(ends_on),
            qualifying_rounds: Some(2),
            small_field_playoff: Some(rule),
            ..CreateEvent::classic(name)
        })
        .await;
    for &player in players {
        let entry = fx
            .director
            .create_entry(fx.event.id, &CreateEntry::player(player))
            .await
            .expect("entry");
        for pin in entry.pins.iter().flatten() {
            pins.insert((fx.event.id, pin.player_id), pin.pin.clone());
        }
        fx.entries.push(entry);
    }
    fx
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_season_is_scored_qualified_corrected_declined_and_merged_as_computed_from_the_sheets() {
    let ts = spawn_suite().await;
    let mut rng = ChaCha8Rng::seed_from_u64(2027);
    let north = ts.admin.create_region("North").await.expect("region").id;
    let south = ts.admin.create_region("South").await.expect("region").id;
    let player = |name: String, region| CreatePlayer {
        name,
        region_id: Some(region),
    };
    let mut p = Vec::new();
    for i in 0..16 {
        let made = ts
            .admin
            .create_player(&player(format!("North {i:02}"), north))
            .await
            .expect("player");
        p.push(made.id);
    }
    let mut s = Vec::new();
    for i in 0..6 {
        let made = ts
            .admin
            .create_player(&player(format!("South {i:02}"), south))
            .await
            .expect("player");
        s.push(made.id);
    }
    // A second identity of p[1], who plays the fourth event under it.
    let dup = ts
        .admin
        .create_player(&player("North 01 (again)".into(), north))
        .await
        .expect("player")
        .id;
    let star = p[0];

    // Seasons: refused with every broken rule, then made.
    let refused = ts
        .admin
        .create_season(
            &serde_json::from_value(json!({
                "name": "", "starts_on": "2027-06-30", "ends_on": "2027-03-01",
                "scoring": {"mode": "placement", "points": [10, 12], "best_n": 0,
                            "tie_breaks": ["points", "luck"]},
                "qualification": {"event_slots": 0, "season_slots": 0}
            }))
            .unwrap(),
        )
        .await;
    let problem = problem_of(assert_refused(refused, 422, "a season breaking rules"));
    for (field, code) in [
        ("name", "invalid_name"),
        ("ends_on", "ends_before_start"),
        ("scoring.points[1]", "rising_table"),
        ("scoring.best_n", "below_one"),
        ("scoring.tie_breaks[1]", "unknown_tie_break"),
        ("qualification", "no_slots"),
    ] {
        assert!(
            names(&problem, Some(field), code),
            "{field} {code}: {problem:?}"
        );
    }
    assert_eq!(problem.errors.len(), 6);
    assert!(
        ts.anonymous
            .seasons(None)
            .await
            .expect("seasons")
            .is_empty()
    );

    let regional_body: CreateSeason = serde_json::from_value(json!({
        "name": "North circuit", "region_id": north,
        "starts_on": "2027-03-01", "ends_on": "2027-06-30",
        "scoring": {"mode": "placement", "points": [12, 9, 7, 5, 4, 3, 2, 1], "best_n": 3,
                    "min_players": 9, "min_rounds": 2},
        "qualification": {"event_slots": 1, "pass_down": true, "season_slots": 2}
    }))
    .unwrap();
    let national_body: CreateSeason = serde_json::from_value(json!({
        "name": "National ranking list", "starts_on": "2027-01-01", "ends_on": "2027-12-31",
        "scoring": {"mode": "table_points", "best_n": 4, "tie_breaks": ["vp", "fewer_events"]}
    }))
    .unwrap();
    let anonymous = ts.anonymous.create_season(&regional_body).await;
    assert_refused(anonymous, 401, "no token");
    let regional = ts
        .admin
        .create_season(&regional_body)
        .await
        .expect("regional season");
    let national = ts
        .admin
        .create_season(&national_body)
        .await
        .expect("national season");
    assert_eq!(
        ts.anonymous.season(regional.id).await.expect("season").name,
        "North circuit"
    );
    let listed = ts.anonymous.seasons(Some(north)).await.expect("seasons");
    assert_eq!(
        listed.iter().map(|s| s.id).collect::<Vec<_>>(),
        [regional.id]
    );

    // The events: five of the North with fields of 9, 10, 12, 13 and 11 (tables of 3 and 4), one
    // of the South, and one of the North after the regional season.
    let mut pins = HashMap::new();
    let one = |d| (d, d);
    let fields = [
        (
            "North 1",
            one(day(3, 6)),
            SmallFieldRule::NoPlayoff,
            p[0..9].to_vec(),
        ),
        (
            "North 2",
            one(day(3, 20)),
            SmallFieldRule::FinalOfTop4,
            [&p[0..1], &p[3..12]].concat(),
        ),
        (
            "North 3",
            one(day(4, 10)),
            SmallFieldRule::FinalOfTop4,
            p[0..12].to_vec(),
        ),
        (
            "North 4",
            (day(5, 1), day(5, 2)),
            SmallFieldRule::NoPlayoff,
            [&p[0..1], &p[2..13], &[dup]].concat(),
        ),
        (
            "North 5",
            one(day(6, 5)),
            SmallFieldRule::FinalOfTop4,
            [&p[0..5], &p[10..16]].concat(),
        ),
    ];
    let mut events = Vec::new();
    for (name, days, rule, players) in fields {
        events.push(event(&ts, name, north, days, rule, &players, &mut pins).await);
    }
    let south_players = [&s[..], &p[13..16]].concat();
    let south_event = event(
        &ts,
        "South open",
        south,
        one(day(4, 17)),
        SmallFieldRule::NoPlayoff,
        &south_players,
        &mut pins,
    )
    .await;
    let late = ts
        .admin
        .create_event(&CreateEvent {
            region_id: Some(north),
            starts_on: Some(day(6, 30)),
            ends_on: Some(day(7, 1)),
            ..CreateEvent::classic("North summer")
        })
        .await
        .expect("late event");
    let sizes: Vec<usize> = events.iter().map(|e| e.entries.len()).collect();
    assert_eq!(sizes, [9, 10, 12, 13, 11]);
    ts.settled().await;

    // Joining: refused for another region's event, for one outside the season's days, for an
    // event ranking does not know and for anyone but the admin; idempotent.
    let other = ts
        .admin
        .join_season(regional.id, south_event.event.id)
        .await;
    let problem = problem_of(assert_refused(other, 422, "another region's event"));
    assert!(names(&problem, Some("event_id"), "other_region"));
    let outside = ts.admin.join_season(regional.id, late.id).await;
    let problem = problem_of(assert_refused(outside, 422, "an event after the season"));
    assert!(names(&problem, Some("event_id"), "outside_season"));
    let unknown = ts.admin.join_season(regional.id, Uuid::new_v4()).await;
    assert_refused(unknown, 404, "an event ranking does not know");
    let by_director = events[0]
        .director
        .join_season(regional.id, events[0].event.id)
        .await;
    assert_refused(by_director, 403, "a director");
    // In reverse order: the season lists its events in play order whatever the joining order.
    for fx in events.iter().rev() {
        ts.admin
            .join_season(regional.id, fx.event.id)
            .await
            .expect("join regional");
        ts.admin
            .join_season(national.id, fx.event.id)
            .await
            .expect("join national");
    }
    let again = ts
        .admin
        .join_season(regional.id, events[0].event.id)
        .await
        .expect("join again");
    let in_order: Vec<Uuid> = events.iter().map(|e| e.event.id).collect();
    assert_eq!(again.event_ids, in_order, "idempotent, in play order");
    ts.admin
        .join_season(national.id, late.id)
        .await
        .expect("a national season holds any event of its days");
    let left = ts
        .admin
        .leave_season(national.id, late.id)
        .await
        .expect("leave");
    assert!(!left.event_ids.contains(&late.id));
    let national = ts
        .admin
        .join_season(national.id, south_event.event.id)
        .await
        .expect("the South's event counts nationally");
    assert_eq!(national.event_ids.len(), 6);
    // Registration finds a season's events, by first day; an unknown season is a 404.
    let in_season = |season_id| EventSearch {
        season_id: Some(season_id),
        ..EventSearch::default()
    };
    let listed = ts
        .anonymous
        .events(&in_season(national.id), 100, 0)
        .await
        .expect("the national season's events");
    let mut by_day: Vec<_> = national
        .event_ids
        .iter()
        .map(|id| listed.iter().find(|e| e.id == *id).expect("listed"))
        .map(|e| (e.starts_on, e.name.clone(), e.id))
        .collect();
    by_day.sort();
    assert_eq!(
        listed.iter().map(|e| e.id).collect::<Vec<_>>(),
        by_day.iter().map(|(_, _, id)| *id).collect::<Vec<_>>()
    );
    assert_refused(
        ts.anonymous
            .events(&in_season(Uuid::new_v4()), 100, 0)
            .await,
        404,
        "an unknown season",
    );

    // Play.
    let mut played: Vec<Played> = Vec::new();
    for fx in events.iter().chain([&south_event]) {
        let results = play(fx, star, &mut rng).await;
        played.push(Played {
            id: fx.event.id,
            starts_on: fx.event.starts_on,
            field: u32::try_from(fx.entries.len()).unwrap(),
            placements: Vec::new(),
            results,
        });
    }
    ts.settled().await;
    for event in &mut played {
        let placements = ts.anonymous.placements(event.id).await.expect("placements");
        assert!(placements.complete);
        event.placements = placements
            .rows
            .iter()
            .map(|r| (r.player_id.expect("classic"), r.place))
            .collect();
        assert_eq!(
            event.placements.len(),
            usize::try_from(event.field).unwrap()
        );
    }

    let regional_rules = Rules {
        mode: Mode::Placement(vec![12, 9, 7, 5, 4, 3, 2, 1]),
        best_n: 3,
        ranking: vec![By::Points, By::Wins, By::VpShare, By::BestPlace],
    };
    let national_rules = Rules {
        mode: Mode::TablePoints,
        best_n: 4,
        ranking: vec![By::Points, By::Vp, By::FewerEvents],
    };
    // National play order: by first day (the South's event is on 17 April, before North 4).
    let national_order = [0, 1, 2, 5, 3, 4];
    let no_merge = HashMap::new();
    let check = async |played: &[Played],
                       survivor: &HashMap<Uuid, Uuid>,
                       declined: &HashSet<Uuid>,
                       stage: &str|
           -> (Vec<SeasonStandingRow>, Vec<QualifiedPlayer>) {
        let north: Vec<&Played> = played[..5].iter().collect();
        let table = expected_table(&regional_rules, &north, survivor);
        let served = season_table(&ts, regional.id).await;
        assert_eq!(
            served_lines(&served),
            expected_lines(&table),
            "the regional table, {stage}"
        );
        let all: Vec<&Played> = national_order.iter().map(|&i| &played[i]).collect();
        let national_table = expected_table(&national_rules, &all, survivor);
        let served_national = season_table(&ts, national.id).await;
        assert_eq!(
            served_lines(&served_national),
            expected_lines(&national_table),
            "the national table, {stage}"
        );
        let qualified = ts
            .anonymous
            .season_qualified(regional.id)
            .await
            .expect("qualified");
        assert_eq!(
            qualified_lines(&qualified),
            expected_qualified(&north, &table, 2, declined, survivor),
            "the qualified players, {stage}"
        );
        let holders: HashSet<Uuid> = qualified.iter().map(|q| q.player_id).collect();
        assert!(
            served
                .iter()
                .all(|r| r.qualified == holders.contains(&r.player_id))
        );
        assert!(
            served_national.iter().all(|r| !r.qualified),
            "no qualification"
        );
        (served, qualified)
    };

    let (before, qualified) = check(&played, &no_merge, &HashSet::new(), "as played").await;
    // Players level on points were ranked by the tie-breaks (wins, VP share, best place).
    assert!(
        before
            .windows(2)
            .any(|w| w[0].points_exact == w[1].points_exact && w[0].rank < w[1].rank),
        "the tie-breaks decide some places"
    );
    assert!(
        before.iter().any(|r| r.events_counted < r.events_played),
        "best 3 leaves some events out"
    );
    // The star won the finals of North 2, 3 and 5 (and perhaps more): he holds one place, and
    // the slot of every other event he won passed down.
    let star_won = played[..5]
        .iter()
        .filter(|e| e.placements.contains(&(star, 1)))
        .count();
    assert!(star_won >= 3);
    let passed = qualified
        .iter()
        .filter(|q| q.passed_down_from == Some(star))
        .count();
    assert_eq!(passed, star_won - 1, "{qualified:?}");
    assert_eq!(qualified.iter().filter(|q| q.player_id == star).count(), 1);
    let national_before = season_table(&ts, national.id).await;
    // The qualified list is a bare array: the last change it includes, its table's, is a header.
    let listed = ts
        .http(
            Method::GET,
            &format!("/v1/seasons/{}/qualified", regional.id),
        )
        .send()
        .await;
    let page = ts
        .anonymous
        .season_standings(regional.id, None, 1, 0)
        .await
        .expect("a page");
    let listed_as_of: chrono::DateTime<chrono::Utc> = listed
        .header("as-of")
        .expect("As-Of")
        .parse()
        .expect("RFC 3339");
    assert_eq!(listed_as_of, page.as_of);

    // Conditional reads: the same page answers 304 to its ETag; the region filter keeps the
    // season-wide rank; CSV has a header and a line a player.
    let path = format!("/v1/seasons/{}/standings", national.id);
    let read = ts.http(Method::GET, &path).send().await;
    assert_eq!(read.status, StatusCode::OK);
    let etag = read.header("etag").expect("etag").to_owned();
    let again = ts
        .http(Method::GET, &path)
        .header("If-None-Match", &etag)
        .send()
        .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    // Gzipped to a client that accepts it: the very same page.
    let zipped = ts
        .http(Method::GET, &path)
        .header("Accept-Encoding", "gzip")
        .response()
        .await;
    assert_eq!(
        zipped
            .headers()
            .get("content-encoding")
            .and_then(|v| v.to_str().ok()),
        Some("gzip")
    );
    let mut unzipped = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(&zipped.bytes().await.expect("body")[..]),
        &mut unzipped,
    )
    .expect("gzip");
    assert_eq!(unzipped, read.text);
    let south_only = ts
        .anonymous
        .season_standings(national.id, Some(south), 1000, 0)
        .await
        .expect("filtered");
    let expected_south: Vec<(Uuid, u32)> = national_before
        .iter()
        .filter(|r| r.region_id == Some(south))
        .map(|r| (r.player_id, r.rank))
        .collect();
    assert_eq!(expected_south.len(), 6);
    assert_eq!(
        south_only
            .rows
            .iter()
            .map(|r| (r.player_id, r.rank))
            .collect::<Vec<_>>(),
        expected_south
    );
    let csv = ts
        .http(Method::GET, &path)
        .header("Accept", "text/csv")
        .send()
        .await;
    assert!(
        csv.header("content-type")
            .expect("type")
            .starts_with("text/csv")
    );
    let lines: Vec<&str> = csv.text.lines().collect();
    assert_eq!(
        lines[0],
        "rank,player_id,name,region_id,points,points_exact,events_played,events_counted,wins,best_place,vp,vp_share,qualified"
    );
    assert_eq!(lines.len(), national_before.len() + 1);
    let first = &national_before[0];
    assert_eq!(
        lines[1],
        format!(
            "{},{},\"{}\",{},{},{},{},{},{},{},{},{},{}",
            first.rank,
            first.player_id,
            first.name,
            first.region_id.map(|r| r.to_string()).unwrap_or_default(),
            first.points,
            first.points_exact,
            first.events_played,
            first.events_counted,
            first.wins,
            first.best_place.map(|p| p.to_string()).unwrap_or_default(),
            first.vp,
            first.vp_share,
            first.qualified
        )
    );
    let summary = ts
        .anonymous
        .season_standings_summary(national.id, 1000, 0)
        .await
        .expect("summary");
    assert_eq!(
        summary.rows,
        national_before
            .iter()
            .map(|r| SeasonStandingRow {
                results: Vec::new(),
                ..r.clone()
            })
            .collect::<Vec<_>>(),
        "by default the same rows without their results (results=true adds them)"
    );
    let paged = ts
        .http(Method::GET, &format!("{path}?limit=2"))
        .send()
        .await;
    assert!(
        paged
            .header("link")
            .expect("a next page")
            .contains("offset=2")
    );
    let middle: SeasonStandings = ts
        .http(Method::GET, &format!("{path}?limit=2&offset=2"))
        .send()
        .await
        .json();
    assert_eq!(
        middle.rows,
        summary.rows[2..4],
        "a page from the middle is the table's rows there, with their ranks"
    );

    // A late correction: North 1's first table of round 1, after every event was played, now
    // won by the player who had the fewest VP at it (not its winner, not the star).
    let table = &played[0].results[&(1, 1)];
    let corrected_players: Vec<Uuid> = table.scores.iter().map(|s| s.player_id).collect();
    let new_winner = table
        .scores
        .iter()
        .filter(|s| Some(s.player_id) != table.winner_player_id && s.player_id != star)
        .min_by_key(|s| s.vp)
        .expect("a loser")
        .player_id;
    let placements_before = played[0].placements.clone();
    let ratings_before = ts
        .anonymous
        .player_ratings(new_winner)
        .await
        .expect("ratings");
    let correction = SubmitResult {
        early_reason: None,
        checked: None,
        outcome: OutcomeKind::Won,
        winner_player_id: Some(new_winner),
        winner_entry_id: None,
        scores: corrected_players
            .iter()
            .map(|&player_id| ScoreInput {
                player_id,
                vp: if player_id == new_winner { 12 } else { 2 },
                breakdown: None,
            })
            .collect(),
    };
    let corrected = events[0]
        .director
        .correct_result(
            events[0].event.id,
            1,
            1,
            &correction,
            &format!("\"v{}\"", table.version),
        )
        .await
        .expect("correction");
    played[0].results.insert((1, 1), corrected);
    ts.settled().await;
    let placements = ts
        .anonymous
        .placements(played[0].id)
        .await
        .expect("placements");
    played[0].placements = placements
        .rows
        .iter()
        .map(|r| (r.player_id.expect("classic"), r.place))
        .collect();
    let (after, _) = check(&played, &no_merge, &HashSet::new(), "after the correction").await;
    assert_ne!(
        served_lines(&after),
        served_lines(&before),
        "the correction changes the season table"
    );
    assert_ne!(
        played[0].placements, placements_before,
        "North 1's places changed"
    );
    let ratings_after = ts
        .anonymous
        .player_ratings(new_winner)
        .await
        .expect("ratings");
    assert_eq!(ratings_before.games.len(), ratings_after.games.len());
    assert!(
        ratings_after.games[0].mu_after > ratings_before.games[0].mu_after,
        "the corrected game is now a win: {ratings_before:?} {ratings_after:?}"
    );
    assert_ne!(ratings_after.mu, ratings_before.mu);
    // Replayed from the corrected game on: the players of North 1 carry the change into their
    // later events.
    assert_ratings(&ts, &played, &no_merge, "after the correction").await;

    // A decline: the qualifier of North 4 gives up his place with his own token; someone else's
    // token, or a director's key, cannot.
    let qualified = ts
        .anonymous
        .season_qualified(regional.id)
        .await
        .expect("qualified");
    let north4 = events[3].event.id;
    let decliner = qualified
        .iter()
        .find(|q| matches!(q.via, QualifiedVia::Event { event_id, .. } if event_id == north4))
        .expect("North 4 gives a place")
        .player_id;
    let bystander = events[3]
        .entries
        .iter()
        .map(|e| e.player_ids[0])
        .find(|&x| x != decliner && x != dup)
        .expect("another player");
    let someone_else = ts
        .player_client(north4, bystander, &pins[&(north4, bystander)])
        .await;
    assert_refused(
        someone_else.decline_place(regional.id, decliner).await,
        403,
        "another player's token",
    );
    assert_refused(
        events[3]
            .director
            .decline_place(regional.id, decliner)
            .await,
        403,
        "a director",
    );
    let own = ts
        .player_client(north4, decliner, &pins[&(north4, decliner)])
        .await;
    let declined = own
        .decline_place(regional.id, decliner)
        .await
        .expect("decline");
    assert_eq!(declined.player_id, decliner);
    let twice = own
        .decline_place(regional.id, decliner)
        .await
        .expect("again");
    assert_eq!(twice.declined_at, declined.declined_at, "idempotent");
    ts.settled().await;
    let declined_set = HashSet::from([decliner]);
    let (_, qualified) = check(&played, &no_merge, &declined_set, "after the decline").await;
    assert!(!qualified.iter().any(|q| q.player_id == decliner));
    assert!(
        qualified
            .iter()
            .any(|q| matches!(q.via, QualifiedVia::Event { event_id, .. } if event_id == north4)),
        "North 4's slot passed down to another of its players"
    );

    // A merge: the duplicate's North 4 becomes p[1]'s, in every season.
    ts.admin.merge_player(dup, p[1]).await.expect("merge");
    ts.settled().await;
    let survivor = HashMap::from([(dup, p[1])]);
    let (merged, _) = check(&played, &survivor, &declined_set, "after the merge").await;
    assert_ratings(&ts, &played, &survivor, "after the merge").await;
    assert!(!merged.iter().any(|r| r.player_id == dup));
    let survivor_row = merged.iter().find(|r| r.player_id == p[1]).expect("listed");
    assert!(survivor_row.results.iter().any(|e| e.event_id == north4));

    // Player pages: the star's, and the duplicate's, which is the survivor's.
    let page = ts.anonymous.player_profile(star).await.expect("profile");
    let star_events: Vec<Uuid> = page.events.iter().map(|e| e.event_id).collect();
    let mut expected_events: Vec<Uuid> = events.iter().map(|e| e.event.id).collect();
    expected_events.reverse();
    assert_eq!(star_events, expected_events, "latest first");
    for e in &page.events {
        let event = played.iter().find(|x| x.id == e.event_id).expect("played");
        let place = event
            .placements
            .iter()
            .find(|(x, _)| *x == star)
            .map(|(_, place)| *place);
        assert_eq!(e.place, place);
        assert_eq!(e.field_size, event.field);
        let games: Vec<&TableResult> = event
            .results
            .values()
            .filter(|r| r.scores.iter().any(|s| s.player_id == star))
            .collect();
        assert_eq!(usize::try_from(e.games).unwrap(), games.len());
        let vp: u32 = games
            .iter()
            .flat_map(|r| r.scores.iter().filter(|s| s.player_id == star))
            .map(|s| u32::from(s.vp))
            .sum();
        assert_eq!(e.vp, vp);
        assert_eq!(e.season_points.len(), 2, "both seasons count it");
    }
    let regional_row = merged.iter().find(|r| r.player_id == star).expect("listed");
    let in_regional = page
        .seasons
        .iter()
        .find(|s| s.season_id == regional.id)
        .expect("the regional season");
    assert_eq!(
        (in_regional.rank, &in_regional.points),
        (regional_row.rank, &regional_row.points)
    );
    assert_eq!(page.qualifications.len(), 1);
    assert_eq!(page.qualifications[0].season_id, regional.id);
    let history = ts.anonymous.player_ratings(star).await.expect("ratings");
    assert_eq!(page.rating.mu, history.mu);
    assert_eq!(
        usize::try_from(page.rating.games).unwrap(),
        history.games.len()
    );
    let back = &history.games[history.games.len() - 5];
    let expected_trend = history.rating - (back.mu_before - 3.0 * back.sigma_before);
    assert!((page.rating.trend - expected_trend).abs() < 1e-9);
    assert_eq!(page.rating.trend_games, 5);
    // Each read says how fresh it is: the page includes the ratings, which include every sheet.
    let latest_sheet = played
        .iter()
        .flat_map(|e| e.results.values())
        .map(|r| r.recorded_at)
        .max()
        .expect("sheets");
    assert!(
        history.as_of >= latest_sheet,
        "{} {latest_sheet}",
        history.as_of
    );
    assert!(page.as_of >= history.as_of);
    // Head to head with the star's most frequent opponent (not the merged pair), from the sheets:
    // the winner finishes first, then more VP; equal VP finish level.
    let shared: Vec<&TableResult> = played
        .iter()
        .flat_map(|e| e.results.values())
        .filter(|r| r.scores.iter().any(|s| s.player_id == star))
        .collect();
    let mut met: BTreeMap<Uuid, usize> = BTreeMap::new();
    for r in &shared {
        for s in &r.scores {
            if ![star, dup, p[1]].contains(&s.player_id) {
                *met.entry(s.player_id).or_default() += 1;
            }
        }
    }
    let rival = met
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(x, _)| *x)
        .expect("an opponent");
    let finish = |r: &TableResult, x: Uuid| {
        let vp = r.scores.iter().find(|s| s.player_id == x).map(|s| s.vp);
        vp.map(|vp| (r.winner_player_id == Some(x), vp))
    };
    let (mut ahead, mut behind, mut level) = (0, 0, 0);
    for r in &shared {
        if let (Some(mine), Some(theirs)) = (finish(r, star), finish(r, rival)) {
            match mine.cmp(&theirs) {
                Ordering::Greater => ahead += 1,
                Ordering::Less => behind += 1,
                Ordering::Equal => level += 1,
            }
        }
    }
    let h2h = ts
        .anonymous
        .head_to_head(star, rival)
        .await
        .expect("head to head");
    assert_eq!((h2h.ahead, h2h.behind, h2h.level), (ahead, behind, level));
    assert_eq!(h2h.games.len(), met[&rival]);
    let last_shared = shared
        .iter()
        .filter(|r| finish(r, rival).is_some())
        .map(|r| r.recorded_at)
        .max()
        .expect("a shared game");
    assert!(
        h2h.as_of >= last_shared,
        "it includes the last game they shared"
    );
    let as_dup = ts.anonymous.player_profile(dup).await.expect("profile");
    let as_survivor = ts.anonymous.player_profile(p[1]).await.expect("profile");
    assert_eq!(as_dup, as_survivor);
    assert_eq!(as_dup.player_id, p[1]);
    assert!(as_dup.events.iter().any(|e| e.event_id == north4));
    ts.shutdown().await;
}
