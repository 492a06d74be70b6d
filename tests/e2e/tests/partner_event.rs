//! A partner event (teams of two, Swiss rounds) through HTTP, and the board of every table.

use catan_api::{
    CreateEntry, DrawRound, OutcomeKind, PartnerStandings, Round, ScoreInput, SeatPosition, Stage,
    SubmitResult, TableResult,
};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{
    assert_refused, assert_sheet_refused, seat_at, seated_entries, spawn_suite,
    spawn_suite_with_event,
};
use catan_suite::demo::random_partner_sheet;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// A team's record computed here from the posted results and the byes alone.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Record {
    points: u32,
    vp: u32,
    vp_against: u32,
    games: u32,
    byes: u32,
}

/// Half up, as the bye rule rounds a team's average.
fn average(total: u32, games: u32) -> u32 {
    (2 * total + games) / (2 * games)
}

fn independent_records(results: &[TableResult], byes: &[Uuid]) -> HashMap<Uuid, Record> {
    let mut records: HashMap<Uuid, Record> = HashMap::new();
    for r in results {
        let vp_of = |team: usize| -> u32 {
            let players = &r.teams[team].player_ids;
            r.scores
                .iter()
                .filter(|s| players.contains(&s.player_id))
                .map(|s| u32::from(s.vp))
                .sum()
        };
        let (home_vp, away_vp) = (vp_of(0), vp_of(1));
        for (me, mine, theirs) in [(0, home_vp, away_vp), (1, away_vp, home_vp)] {
            let won = match r.outcome {
                OutcomeKind::Won => r.winner_entry_id == Some(r.teams[me].entry_id),
                // At the time limit more VP wins; equal VP is a draw.
                OutcomeKind::TimeLimit => mine > theirs,
            };
            let drawn = r.outcome == OutcomeKind::TimeLimit && mine == theirs;
            let record = records.entry(r.teams[me].entry_id).or_default();
            record.points += if won {
                3
            } else if drawn {
                1
            } else {
                0
            };
            record.vp += mine;
            record.vp_against += theirs;
            record.games += 1;
        }
    }
    for team in byes {
        let record = records.entry(*team).or_default();
        record.byes += 1;
    }
    // A bye: 3 points, and the team's own average VP for and against per game played.
    for record in records.values_mut() {
        let (vp, against, games) = (record.vp, record.vp_against, record.games);
        record.points += 3 * record.byes;
        record.vp += record.byes * average(vp, games);
        record.vp_against += record.byes * average(against, games);
    }
    records
}

fn teams_at(round: &Round) -> Vec<(Uuid, Uuid)> {
    round
        .tables
        .iter()
        .map(|t| {
            let team = |p: SeatPosition| seat_at(t, p).entry_id;
            (team(SeatPosition::N), team(SeatPosition::E))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_13_team_partner_event_plays_4_swiss_rounds_with_a_bye_each_round() {
    let ts = spawn_suite().await;
    let fx = ts.partner_event(13).await;
    let event_id = fx.event.id;
    let rules = fx
        .event
        .partner_rules
        .expect("partner rules travel with the event");
    assert_eq!(
        (
            rules.target_vp,
            rules.rounds,
            rules.minutes_per_game,
            rules.player_trading
        ),
        (20, 4, 60, false)
    );
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut posted: Vec<TableResult> = Vec::new();
    let mut byes: Vec<Uuid> = Vec::new();
    let mut met: HashSet<(Uuid, Uuid)> = HashSet::new();
    let mut time_limited = 0;
    let early = ts.placements(event_id).await;
    assert!(!early.complete && early.rows.is_empty());

    for number in 1..=4u32 {
        let before: PartnerStandings = ts.partner_standings(event_id).await;
        let round = fx.draw().await;
        assert_eq!((round.number, round.stage), (number, Stage::Swiss));
        assert_eq!(
            round.partner_rules.map(|r| r.thinking_seconds_per_turn),
            Some(120)
        );
        assert_eq!(round.tables.len(), 6);
        // One bye, to the lowest-ranked team that has had none.
        assert_eq!(round.byes.len(), 1);
        let bye = round.byes[0];
        assert!(
            !byes.contains(&bye),
            "nobody gets a second bye while others had none"
        );
        let lowest_without = before
            .rows
            .iter()
            .rev()
            .find(|r| !byes.contains(&r.entry_id))
            .expect("a team")
            .entry_id;
        if number > 1 {
            assert_eq!(bye, lowest_without, "round {number}");
        }
        byes.push(bye);
        // Every other team seated once, partners opposite, no rematch.
        let seated: Vec<Uuid> = round
            .tables
            .iter()
            .flat_map(|t| t.seats.iter().map(|s| s.entry_id))
            .collect();
        assert_eq!(seated.len(), 24);
        assert_eq!(seated.iter().collect::<HashSet<_>>().len(), 12);
        assert!(!seated.contains(&bye));
        for table in &round.tables {
            let team = |p: SeatPosition| seat_at(table, p).entry_id;
            assert_eq!(team(SeatPosition::N), team(SeatPosition::S));
            assert_eq!(team(SeatPosition::E), team(SeatPosition::W));
            assert_ne!(team(SeatPosition::N), team(SeatPosition::E));
        }
        for (a, b) in teams_at(&round) {
            assert!(
                met.insert((a.min(b), a.max(b))),
                "round {number}: a rematch"
            );
        }
        for table in &round.tables {
            let sheet = random_partner_sheet(table, &rules, &mut rng);
            time_limited += usize::from(sheet.outcome == OutcomeKind::TimeLimit);
            posted.push(fx.submit(number, table.number, &sheet).await);
        }
    }
    assert!(time_limited > 0, "some games stopped on time");
    let extra = fx
        .director
        .draw_round(event_id, &DrawRound::default())
        .await;
    assert_refused(extra, 409, "4 rounds only");

    let standings = ts.partner_standings(event_id).await;
    assert_eq!(standings.after_round, 4);
    let expected = independent_records(&posted, &byes);
    assert_eq!(standings.rows.len(), 13);
    for row in &standings.rows {
        let got = Record {
            points: row.points,
            vp: row.vp,
            vp_against: row.vp_against,
            games: row.games,
            byes: row.byes,
        };
        assert_eq!(got, expected[&row.entry_id], "{}", row.team_name);
    }
    // Points first, then fewer VP against.
    for pair in standings.rows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(
            a.points > b.points || (a.points == b.points && a.vp_against <= b.vp_against),
            "{a:?} before {b:?}"
        );
    }
    // Once every round is in, the placements are the final standings.
    let placements = ts.placements(event_id).await;
    assert!(placements.complete);
    let placed: Vec<Uuid> = placements.rows.iter().map(|r| r.entry_id).collect();
    let ranked: Vec<Uuid> = standings.rows.iter().map(|r| r.entry_id).collect();
    assert_eq!(placed, ranked);
    assert!(
        placements
            .rows
            .iter()
            .all(|r| r.player_ids.len() == 2 && r.player_id.is_none())
    );
    let prizes: Vec<Option<u8>> = standings.rows.iter().map(|r| r.prize).collect();
    assert!(
        prizes[..3].iter().all(Option::is_some),
        "the top three win prizes: {prizes:?}"
    );
    assert!(
        prizes[3..]
            .iter()
            .all(|p| p.is_none() || standings.rows[2].rank == standings.rows[3].rank)
    );
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bad_partner_input_is_refused_and_changes_nothing() {
    let ts = spawn_suite().await;
    let fx = ts.partner_event(4).await;
    // A player in two teams.
    let taken = fx.entries[0].player_ids[0];
    let newcomer = ts.players(&fx, 1).await[0];
    let enter = async |entry: CreateEntry| fx.director.create_entry(fx.event.id, &entry).await;
    let twice = enter(CreateEntry::team("Copycats", [taken, newcomer])).await;
    assert_refused(twice, 409, "a player in two teams");
    let alone = enter(CreateEntry::team("Solo", [newcomer, newcomer])).await;
    assert_refused(alone, 422, "a team of one");
    let classic_entry = enter(CreateEntry::player(newcomer)).await;
    assert_refused(classic_entry, 422, "a lone player in a partner event");
    let entries = ts.anonymous.entries(fx.event.id).await.expect("entries");
    assert_eq!(entries.len(), 4);

    let round = fx.draw().await;
    let table = &round.tables[0];
    let seat = |p: SeatPosition| seat_at(table, p);
    let (home, away) = (
        seat(SeatPosition::N).entry_id,
        seat(SeatPosition::E).entry_id,
    );
    let sheet = |winner: Option<Uuid>, vps: [i64; 4]| SubmitResult {
        early_reason: None,
        checked: None,
        outcome: if winner.is_some() {
            OutcomeKind::Won
        } else {
            OutcomeKind::TimeLimit
        },
        winner_player_id: None,
        winner_entry_id: winner,
        scores: [
            SeatPosition::N,
            SeatPosition::S,
            SeatPosition::E,
            SeatPosition::W,
        ]
        .iter()
        .zip(vps)
        .map(|(p, vp)| ScoreInput {
            player_id: seat(*p).player_id,
            vp,
            breakdown: None,
        })
        .collect(),
    };
    let refused = async |sheet: &SubmitResult, code: &str| {
        assert_sheet_refused(&ts, &fx, (1, table.number), sheet, None, code).await;
    };
    // A winner team below 20.
    refused(&sheet(Some(home), [10, 9, 8, 8]), "winner_below_target").await;
    // A winner named on a time-limit result.
    let mut timed = sheet(None, [9, 9, 8, 8]);
    timed.winner_entry_id = Some(home);
    refused(&timed, "winner_at_time_limit").await;
    // A team at the wrong table: the other table's players on this sheet.
    let other = &round.tables[1];
    let mut wrong = sheet(Some(away), [5, 5, 10, 10]);
    wrong.scores[0].player_id = other.seats[0].player_id;
    wrong.scores[1].player_id = other.seats[2].player_id;
    refused(&wrong, "unknown_player").await;
    // A classic-style winner on a partner sheet.
    let mut by_player = sheet(None, [10, 10, 5, 5]);
    by_player.outcome = OutcomeKind::Won;
    by_player.winner_player_id = Some(seat(SeatPosition::N).player_id);
    refused(&by_player, "not_for_format").await;

    let ok = fx
        .submit(1, table.number, &sheet(Some(away), [5, 5, 10, 10]))
        .await;
    let winners = ok
        .teams
        .iter()
        .find(|t| t.entry_id == away)
        .expect("away team");
    assert_eq!((winners.vp, winners.points), (20, 3));
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_table_has_a_board_as_json_and_as_an_svg_picture() {
    let (ts, fx) = spawn_suite_with_event(11, Some(1)).await;
    let round = fx.draw().await;
    let mut boards = Vec::new();
    for table in &round.tables {
        let board = ts
            .anonymous
            .board(fx.event.id, 1, table.number)
            .await
            .expect("board");
        let hexes = board["hexes"].as_array().expect("hexes");
        assert_eq!(hexes.len(), 19);
        let deserts = hexes.iter().filter(|h| h["terrain"] == "desert").count();
        let tokens = hexes.iter().filter(|h| !h["token"].is_null()).count();
        assert_eq!((deserts, tokens), (1, 18));
        assert_eq!(
            ts.anonymous
                .board(fx.event.id, 1, table.number)
                .await
                .expect("again"),
            board,
            "reproducible"
        );
        boards.push(board);

        let board = format!(
            "/v1/events/{}/rounds/1/tables/{}/board",
            fx.event.id, table.number
        );
        let resp = ts
            .http(Method::GET, &board)
            .header("accept", "image/svg+xml");
        let resp = resp.send().await;
        assert_eq!(resp.status, StatusCode::OK);
        assert_eq!(resp.headers["content-type"], "image/svg+xml");
        let svg = resp.text;
        let tree = resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default())
            .expect("a valid SVG");
        let size = tree.size().to_int_size();
        let mut pixmap =
            resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("a picture");
        resvg::render(
            &tree,
            resvg::tiny_skia::Transform::default(),
            &mut pixmap.as_mut(),
        );
        let painted = pixmap.pixels().iter().filter(|p| p.alpha() > 0).count();
        assert!(
            painted > pixmap.pixels().len() / 4,
            "the picture shows the board"
        );
    }
    // Each table its own board unless the event asks for duplicate play.
    assert!(boards.windows(2).any(|w| w[0] != w[1]));
    let missing = ts.anonymous.board(fx.event.id, 1, 99).await;
    assert_refused(missing, 404, "no table 99");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn duplicate_play_gives_every_table_of_a_round_the_same_board() {
    let ts = spawn_suite().await;
    let body = catan_api::CreateEvent {
        board_mode: Some(catan_api::BoardMode::SameForRound),
        ..catan_api::CreateEvent::partner("Duplicate cup")
    };
    let mut fx = ts.event(&body).await;
    ts.enter_teams(&mut fx, 6).await;
    let round = fx.draw().await;
    assert_eq!(round.board_mode, catan_api::BoardMode::SameForRound);
    let first = ts.anonymous.board(fx.event.id, 1, 1).await.expect("board");
    for table in &round.tables[1..] {
        assert_eq!(
            ts.anonymous
                .board(fx.event.id, 1, table.number)
                .await
                .expect("board"),
            first
        );
    }
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_team_that_drops_keeps_its_games_is_not_paired_again_and_wins_no_prize() {
    let ts = spawn_suite().await;
    let fx = ts.partner_event(6).await;
    let rules = fx.event.partner_rules.expect("rules");
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let round1 = fx.draw().await;
    for table in &round1.tables {
        let sheet = random_partner_sheet(table, &rules, &mut rng);
        fx.submit(1, table.number, &sheet).await;
    }
    // The best team after round 1 leaves.
    let leader = ts.partner_standings(fx.event.id).await.rows[0].entry_id;
    let drop = catan_api::DropEntry {
        reason: "flight home".into(),
        exclude: false,
    };
    fx.director
        .drop_entry(fx.event.id, leader, &drop)
        .await
        .expect("drop");
    let round2 = fx.draw().await;
    let seated = seated_entries(&round2);
    assert!(
        !seated.contains(&leader) && !round2.byes.contains(&leader),
        "a dropped team is not paired"
    );
    assert_eq!(seated.len() + round2.byes.len(), 5);
    let standings = ts.partner_standings(fx.event.id).await;
    let row = standings
        .rows
        .iter()
        .find(|r| r.entry_id == leader)
        .expect("still listed");
    assert_eq!(
        (row.games, row.status, row.prize),
        (1, catan_api::EntryStatus::Dropped, None)
    );
    let winners: Vec<_> = standings
        .rows
        .iter()
        .filter(|r| r.prize.is_some())
        .collect();
    assert!(
        winners.len() >= 3,
        "three prizes (more when a place is shared)"
    );
    assert!(
        winners
            .iter()
            .all(|r| r.status == catan_api::EntryStatus::Active),
        "the prizes go to teams still in"
    );
    ts.shutdown().await;
}
