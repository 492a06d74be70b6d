use super::*;
use crate::results::{
    OutcomeKind, RawBreakdown, RawScore, RuleCode, Violation, codes as result_codes,
};
use crate::seating::SeatPosition;
use proptest::prelude::*;
use std::collections::HashSet;

fn team(n: u128) -> TeamId {
    TeamId::from_u128(n)
}

/// Team `n`'s players are `10n + 1` and `10n + 2`.
fn players_of(n: u128) -> [PlayerId; 2] {
    [
        PlayerId::from_u128(10 * n + 1),
        PlayerId::from_u128(10 * n + 2),
    ]
}

fn table(home: u128, away: u128) -> TableTeams {
    TableTeams {
        home: (team(home), players_of(home)),
        away: (team(away), players_of(away)),
    }
}

fn score(player: PlayerId, vp: i64) -> RawScore {
    RawScore {
        player,
        vp,
        breakdown: None,
    }
}

/// A sheet for `table(home, away)` with the players' VP in seat order home 1, home 2, away 1, away 2.
fn sheet(
    home: u128,
    away: u128,
    outcome: OutcomeKind,
    winner: Option<u128>,
    vp: [i64; 4],
) -> RawPartnerSheet {
    let [h1, h2] = players_of(home);
    let [a1, a2] = players_of(away);
    RawPartnerSheet {
        outcome,
        winner_team: winner.map(team),
        scores: vec![
            score(h1, vp[0]),
            score(h2, vp[1]),
            score(a1, vp[2]),
            score(a2, vp[3]),
        ],
    }
}

fn game_with(
    settings: &PartnerSettings,
    home: u128,
    away: u128,
    outcome: OutcomeKind,
    winner: Option<u128>,
    vp: [i64; 4],
) -> PartnerGame {
    let sheet = sheet(home, away, outcome, winner, vp);
    validate_partner_sheet(&sheet, &table(home, away), settings).expect("valid sheet")
}

/// A won game under the default settings.
fn won(home: u128, away: u128, winner: u128, vp: [i64; 4]) -> PartnerGame {
    game_with(
        &PartnerSettings::default(),
        home,
        away,
        OutcomeKind::Won,
        Some(winner),
        vp,
    )
}

/// Asserts that a sheet of `table(1, 2)` is rejected under the default settings with exactly
/// these (field, code) violations, in this order, and answers the violations.
#[track_caller]
fn assert_rejected(sheet: &RawPartnerSheet, expected: &[(&str, RuleCode)]) -> Vec<Violation> {
    let violations = validate_partner_sheet(sheet, &table(1, 2), &PartnerSettings::default())
        .expect_err("the sheet should be rejected");
    let found: Vec<(&str, RuleCode)> = violations
        .iter()
        .map(|v| (v.field.as_str(), v.code))
        .collect();
    assert_eq!(found, expected);
    violations
}

fn row(rows: &[PartnerRow], n: u128) -> &PartnerRow {
    rows.iter()
        .find(|r| r.team == team(n))
        .expect("team listed")
}

// ---- settings ----

#[test]
fn default_settings_are_the_partner_rule_set() {
    let settings = PartnerSettings::default();
    assert_eq!(settings.target_vp, 20);
    assert_eq!(settings.minutes_per_game, 60);
    assert_eq!(settings.thinking_seconds_per_turn, 120);
    assert!(!settings.player_trading);
    assert_eq!(settings.rounds, 4);
    assert_eq!(
        settings.points,
        MatchPoints {
            win: 3,
            draw: 1,
            loss: 0
        }
    );
    assert_eq!(settings.time_limit_rule, TimeLimitRule::MoreVpWins);
    assert_eq!(settings.bye_rule.points, 3);
    assert_eq!(settings.bye_rule.vp, ByeVp::OwnAverage);
    assert_eq!(settings.prize_places, 3);
    assert_eq!(settings.check(), Ok(()));
}

#[test]
fn settings_are_json_for_the_table_apps_and_missing_fields_take_defaults() {
    let settings: PartnerSettings = serde_json::from_str(
        r#"{"target_vp": 15, "time_limit_rule": "draw", "bye_rule": {"vp": {"kind": "fixed", "vp": 12, "vp_against": 14}}}"#,
    )
    .unwrap();
    assert_eq!(settings.target_vp, 15);
    assert_eq!(settings.time_limit_rule, TimeLimitRule::Draw);
    assert_eq!(
        settings.bye_rule.vp,
        ByeVp::Fixed {
            vp: 12,
            vp_against: 14
        }
    );
    assert_eq!(settings.bye_rule.points, 3);
    assert_eq!(settings.minutes_per_game, 60);
    assert!(!settings.player_trading);

    let json = serde_json::to_value(PartnerSettings::default()).unwrap();
    assert_eq!(json["player_trading"], false);
    assert_eq!(json["time_limit_rule"], "more_vp_wins");
    let back: PartnerSettings = serde_json::from_value(json).unwrap();
    assert_eq!(back, PartnerSettings::default());
}

#[test]
fn settings_that_cannot_be_played_are_refused() {
    let with = |change: fn(&mut PartnerSettings)| {
        let mut settings = PartnerSettings::default();
        change(&mut settings);
        settings.check()
    };
    assert!(matches!(
        with(|s| s.target_vp = 4),
        Err(PartnerSettingsError::TargetOutOfReach { .. })
    ));
    assert!(matches!(
        with(|s| s.target_vp = 45),
        Err(PartnerSettingsError::TargetOutOfReach { .. })
    ));
    assert_eq!(with(|s| s.target_vp = 5), Ok(()));
    assert_eq!(with(|s| s.target_vp = 44), Ok(()));
    assert_eq!(with(|s| s.rounds = 0), Err(PartnerSettingsError::NoRounds));
    assert_eq!(
        with(|s| s.minutes_per_game = 0),
        Err(PartnerSettingsError::NoTime)
    );
    assert_eq!(
        with(|s| s.points.draw = 3),
        Err(PartnerSettingsError::PointsOutOfOrder)
    );
}

// ---- seating ----

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn partners_sit_opposite_and_turns_alternate_between_teams(seed in any::<u64>()) {
        let (a, b) = ((team(1), players_of(1)), (team(2), players_of(2)));
        let seats = seat_partner_table(a, b, seed);
        let positions: Vec<SeatPosition> = seats.iter().map(|s| s.0).collect();
        prop_assert_eq!(positions, vec![SeatPosition::N, SeatPosition::E, SeatPosition::S, SeatPosition::W]);
        // N and S are one team, E and W the other: in play order the teams alternate.
        prop_assert_eq!(seats[0].2, seats[2].2);
        prop_assert_eq!(seats[1].2, seats[3].2);
        prop_assert_ne!(seats[0].2, seats[1].2);
        let seated: HashSet<PlayerId> = seats.iter().map(|s| s.1).collect();
        let expected: HashSet<PlayerId> = players_of(1).into_iter().chain(players_of(2)).collect();
        prop_assert_eq!(seated, expected);
        for (_, player, team_id) in &seats {
            let own = if *team_id == team(1) { players_of(1) } else { players_of(2) };
            prop_assert!(own.contains(player));
        }
        prop_assert_eq!(&seats, &seat_partner_table(a, b, seed));
    }
}

#[test]
fn the_seed_draws_which_team_and_which_player_moves_first() {
    let (a, b) = ((team(1), players_of(1)), (team(2), players_of(2)));
    let starters: HashSet<PlayerId> = (0..64)
        .map(|seed| seat_partner_table(a, b, seed)[0].1)
        .collect();
    assert_eq!(starters.len(), 4, "any of the four players can sit N");
}

// ---- results sheet ----

#[test]
fn a_won_game_gives_the_winners_3_points_and_the_losers_0() {
    let game = won(1, 2, 2, [6, 7, 12, 9]);
    assert_eq!(game.winner, Some(team(2)));
    assert_eq!((game.home.vp, game.away.vp), (13, 21));
    assert_eq!((game.home.points, game.away.points), (0, 3));
    assert_eq!(game.home.result, GameResult::Loss);
    assert_eq!(game.away.result, GameResult::Win);
    assert_eq!(game.opponent_of(team(1)).unwrap().team, team(2));
    assert_eq!(game.home.players[1].vp, 7);
}

#[test]
fn the_winning_team_needs_the_target_together() {
    let below = sheet(1, 2, OutcomeKind::Won, Some(1), [10, 9, 8, 8]);
    assert_rejected(&below, &[("winner_entry_id", codes::WINNER_BELOW_TARGET)]);

    // Exactly the target wins, however it is split between the partners.
    let exact = sheet(1, 2, OutcomeKind::Won, Some(1), [18, 2, 8, 8]);
    assert!(validate_partner_sheet(&exact, &table(1, 2), &PartnerSettings::default()).is_ok());

    // The target is the event's to set.
    let short_event = PartnerSettings {
        target_vp: 15,
        ..PartnerSettings::default()
    };
    let game = validate_partner_sheet(&below, &table(1, 2), &short_event).unwrap();
    assert_eq!(game.winner, Some(team(1)));
}

#[test]
fn the_winner_must_be_named_and_be_one_of_the_two_teams() {
    for (winner, code) in [
        (None, result_codes::WINNER_MISSING),
        (Some(3), result_codes::WINNER_NOT_SEATED),
    ] {
        assert_rejected(
            &sheet(1, 2, OutcomeKind::Won, winner, [10, 10, 8, 8]),
            &[("winner_entry_id", code)],
        );
    }
}

#[test]
fn a_time_limit_sheet_names_no_winner() {
    let named = sheet(1, 2, OutcomeKind::TimeLimit, Some(1), [9, 9, 8, 8]);
    assert_rejected(
        &named,
        &[("winner_entry_id", result_codes::WINNER_AT_TIME_LIMIT)],
    );
}

#[test]
fn the_sheet_lists_the_four_seated_players_once_each_and_every_fault_is_reported() {
    let [h1, _h2] = players_of(1);
    let [a1, a2] = players_of(2);
    let stranger = PlayerId::from_u128(999);
    let bad = RawPartnerSheet {
        outcome: OutcomeKind::TimeLimit,
        winner_team: None,
        scores: vec![
            score(h1, 9),
            score(h1, 9),
            score(a1, 23),
            score(stranger, 5),
            score(a2, 1),
        ],
    };
    let violations = assert_rejected(
        &bad,
        &[
            ("scores[1].player_id", result_codes::DUPLICATE_PLAYER),
            ("scores[2].vp", result_codes::OUT_OF_RANGE),
            ("scores[3].player_id", result_codes::UNKNOWN_PLAYER),
            ("scores[4].vp", result_codes::OUT_OF_RANGE),
            ("scores", result_codes::MISSING_PLAYER),
        ],
    );
    assert!(
        violations[4]
            .message
            .contains(&players_of(1)[1].to_string())
    );
}

#[test]
fn breakdowns_are_checked_per_player_and_across_the_table() {
    let breakdown = |settlements, cities, vp_cards, longest_road| RawBreakdown {
        settlements,
        cities,
        vp_cards,
        longest_road,
        largest_army: false,
    };
    let mut bad = sheet(1, 2, OutcomeKind::TimeLimit, None, [9, 9, 9, 9]);
    // 3 + 2*2 + 2 = 9 with the road; two players claim the road; 6 VP cards on the table.
    bad.scores[0].breakdown = Some(breakdown(3, 2, 0, true));
    bad.scores[1].breakdown = Some(breakdown(1, 2, 2, true));
    bad.scores[2].breakdown = Some(breakdown(1, 2, 4, false));
    bad.scores[3].breakdown = Some(breakdown(2, 2, 0, false));
    assert_rejected(
        &bad,
        &[
            ("scores[3].breakdown", result_codes::BREAKDOWN_SUM_MISMATCH),
            ("scores", result_codes::TOO_MANY_VP_CARDS),
            ("scores", result_codes::MULTIPLE_LONGEST_ROAD_HOLDERS),
        ],
    );

    let mut good = sheet(1, 2, OutcomeKind::TimeLimit, None, [9, 9, 9, 6]);
    good.scores[0].breakdown = Some(breakdown(3, 2, 0, true));
    good.scores[3].breakdown = Some(breakdown(2, 2, 0, false));
    let game = validate_partner_sheet(&good, &table(1, 2), &PartnerSettings::default()).unwrap();
    assert_eq!(game.home.players[0].breakdown.unwrap().cities, 2);
}

// ---- time limit ----

#[test]
fn at_the_time_limit_more_team_vp_wins_and_equal_vp_is_a_draw_by_default() {
    let settings = PartnerSettings::default();
    let ahead = game_with(&settings, 1, 2, OutcomeKind::TimeLimit, None, [9, 8, 10, 6]);
    assert_eq!(ahead.winner, Some(team(1)));
    assert_eq!((ahead.home.points, ahead.away.points), (3, 0));

    let level = game_with(&settings, 1, 2, OutcomeKind::TimeLimit, None, [9, 7, 10, 6]);
    assert_eq!(level.winner, None);
    assert!(level.is_draw());
    assert_eq!((level.home.points, level.away.points), (1, 1));
}

#[test]
fn the_time_limit_rule_can_make_every_stopped_game_a_draw_or_a_loss_for_both() {
    let draw = PartnerSettings {
        time_limit_rule: TimeLimitRule::Draw,
        ..PartnerSettings::default()
    };
    let game = game_with(&draw, 1, 2, OutcomeKind::TimeLimit, None, [12, 6, 3, 3]);
    assert_eq!(
        (game.winner, game.home.points, game.away.points),
        (None, 1, 1)
    );

    let no_winner = PartnerSettings {
        time_limit_rule: TimeLimitRule::NoWinner,
        ..PartnerSettings::default()
    };
    let game = game_with(
        &no_winner,
        1,
        2,
        OutcomeKind::TimeLimit,
        None,
        [12, 6, 3, 3],
    );
    assert_eq!(
        (game.winner, game.home.points, game.away.points),
        (None, 0, 0)
    );
    assert!(!game.is_draw());
    assert_eq!(game.home.result, GameResult::Loss);
}

// ---- standings ----

#[test]
fn standings_rank_points_first_then_fewer_vp_against() {
    let games = [
        won(1, 2, 1, [10, 10, 9, 9]),  // 1 concedes 18, 2 concedes 20
        won(3, 4, 3, [11, 9, 5, 5]),   // 3 concedes 10, 4 concedes 20
        won(1, 3, 1, [12, 10, 11, 8]), // 1 concedes 19, 3 concedes 22
        won(2, 4, 2, [10, 10, 4, 4]),  // 2 concedes 8, 4 concedes 20
    ];
    let teams = [team(4), team(3), team(2), team(1)];
    let rows = partner_standings(&teams, &games, &[], &PartnerSettings::default());
    let listed: Vec<(TeamId, u32, u32)> = rows
        .iter()
        .map(|r| (r.team, r.points, r.vp_against))
        .collect();
    assert_eq!(
        listed,
        vec![
            (team(1), 6, 37), // most points, although it conceded the most of the winners
            (team(2), 3, 28), // equal points with 3: conceded less
            (team(3), 3, 32),
            (team(4), 0, 40),
        ]
    );
    let ranks: Vec<u32> = rows.iter().map(|r| r.rank).collect();
    assert_eq!(ranks, vec![1, 2, 3, 4]);
    assert!(rows.iter().all(|r| r.games == 2 && r.byes == 0));
    assert_eq!(row(&rows, 2).vp, 18 + 20);
}

#[test]
fn equal_points_and_vp_against_rank_by_more_vp_then_share_the_rank_by_team_id() {
    // Teams 5 and 6 concede 16 each and win; 5 scored more.
    let games = [
        won(5, 7, 5, [12, 10, 8, 8]),
        won(6, 8, 6, [11, 9, 8, 8]),
        won(9, 10, 9, [11, 9, 8, 8]),
    ];
    let teams = [team(10), team(9), team(8), team(7), team(6), team(5)];
    let rows = partner_standings(&teams, &games, &[], &PartnerSettings::default());
    let listed: Vec<(u32, TeamId)> = rows.iter().map(|r| (r.rank, r.team)).collect();
    assert_eq!(
        listed,
        vec![
            (1, team(5)),
            (2, team(6)), // 6 and 9 are equal on everything: shared rank, by team id
            (2, team(9)),
            (4, team(8)), // 8 and 10 lost 16 to 20
            (4, team(10)),
            (6, team(7)), // 7 lost 16 to 22
        ]
    );
}

#[test]
fn the_top_three_win_prizes_and_a_shared_place_shares_its_prize() {
    let games = [
        won(1, 2, 1, [12, 10, 8, 8]),
        won(3, 4, 3, [11, 9, 8, 8]),
        won(5, 6, 5, [11, 9, 8, 8]),
        won(7, 8, 7, [11, 9, 5, 5]),
    ];
    let teams: Vec<TeamId> = (1..=8).map(team).collect();
    let rows = partner_standings(&teams, &games, &[], &PartnerSettings::default());
    let prizes: Vec<(TeamId, Option<u8>)> = rows.iter().map(|r| (r.team, r.prize)).collect();
    assert_eq!(
        &prizes[..5],
        &[
            (team(7), Some(1)),
            (team(1), Some(2)),
            (team(3), Some(3)),
            (team(5), Some(3)),
            (team(4), None),
        ]
    );
    assert!(rows[4..].iter().all(|r| r.prize.is_none()));
}

#[test]
fn a_bye_is_worth_3_points_and_the_teams_own_average_vp() {
    let games = [
        won(1, 2, 1, [12, 10, 8, 8]), // 1: 22 for, 16 against
        won(1, 3, 3, [8, 7, 10, 10]), // 1: 15 for, 20 against
    ];
    let teams = [team(1), team(2), team(3)];
    let rows = partner_standings(&teams, &games, &[team(1)], &PartnerSettings::default());
    let one = row(&rows, 1);
    assert_eq!((one.points, one.games, one.byes), (6, 2, 1));
    // Averages 18.5 for (rounded up to 19) and 18 against.
    assert_eq!((one.vp, one.vp_against), (22 + 15 + 19, 16 + 20 + 18));
}

#[test]
fn a_bye_before_any_game_counts_the_event_average_and_fixed_byes_count_as_set() {
    let games = [won(1, 2, 1, [12, 10, 8, 8])]; // 22 + 16 over two teams: 19 a team
    let teams = [team(1), team(2), team(3)];
    let rows = partner_standings(&teams, &games, &[team(3)], &PartnerSettings::default());
    let three = row(&rows, 3);
    assert_eq!(
        (three.points, three.vp, three.vp_against, three.games),
        (3, 19, 19, 0)
    );

    let fixed = PartnerSettings {
        bye_rule: ByeRule {
            points: 2,
            vp: ByeVp::Fixed {
                vp: 10,
                vp_against: 20,
            },
        },
        ..PartnerSettings::default()
    };
    let rows = partner_standings(&teams, &games, &[team(3), team(3)], &fixed);
    let three = row(&rows, 3);
    assert_eq!(
        (three.points, three.vp, three.vp_against, three.byes),
        (4, 20, 40, 2)
    );
}

#[test]
fn a_dropped_team_keeps_its_games_its_opponents_keep_theirs_and_it_wins_no_prize() {
    let games = [
        won(1, 2, 1, [12, 10, 8, 8]),
        won(3, 4, 3, [11, 9, 8, 8]),
        won(1, 3, 1, [11, 9, 8, 8]),
        won(2, 4, 2, [11, 9, 8, 8]),
    ];
    let teams: Vec<TeamId> = (1..=4).map(team).collect();
    let settings = PartnerSettings::default();
    let before = partner_standings(&teams, &games, &[], &settings);
    let after = partner_standings_with_drops(&teams, &games, &[], &[team(1)], &settings);

    let one = row(&after, 1);
    assert!(one.dropped);
    assert_eq!(
        (one.rank, one.points, one.games, one.prize),
        (1, 6, 2, None)
    );
    for n in 2..=4 {
        let (was, now) = (row(&before, n), row(&after, n));
        assert_eq!(
            (was.points, was.vp, was.vp_against, was.rank),
            (now.points, now.vp, now.vp_against, now.rank)
        );
    }
    // The prizes pass to the best three teams still in the event.
    assert_eq!(row(&before, 1).prize, Some(1));
    assert_eq!(row(&after, 3).prize, Some(1));
    assert_eq!(row(&after, 2).prize, Some(2));
    assert_eq!(row(&after, 4).prize, Some(3));

    let pairing = pair_partner_round(&after, &met(&games), 1);
    assert_eq!(
        pairing.bye,
        Some(team(4)),
        "three teams left: the last one sits out"
    );
    assert!(
        pairing
            .tables
            .iter()
            .all(|(a, b)| *a != team(1) && *b != team(1))
    );
}

// ---- Swiss pairing ----

/// The pairs of teams that have met in `games`.
fn met(games: &[PartnerGame]) -> Vec<(TeamId, TeamId)> {
    games.iter().map(|g| (g.home.team, g.away.team)).collect()
}

#[test]
fn the_bye_goes_to_the_lowest_ranked_team_that_has_not_had_one() {
    // Round 1: 5 sits out; round 2: 4 sits out.
    let games = [
        won(1, 2, 1, [12, 10, 8, 8]),
        won(3, 4, 3, [11, 9, 5, 5]),
        won(1, 5, 1, [12, 10, 4, 4]),
        won(2, 3, 2, [10, 10, 5, 5]),
    ];
    let teams: Vec<TeamId> = (1..=5).map(team).collect();
    let byes = [team(5), team(4)];
    let rows = partner_standings(&teams, &games, &byes, &PartnerSettings::default());
    let bottom: Vec<(TeamId, u32)> = rows[2..].iter().map(|r| (r.team, r.byes)).collect();
    assert_eq!(bottom, vec![(team(2), 0), (team(4), 1), (team(5), 1)]);
    let pairing = pair_partner_round(&rows, &met(&games), 7);
    assert_eq!(pairing.bye, Some(team(2)));
    assert_eq!(pairing.tables.len(), 2);

    // Once everyone has had a bye, the lowest-ranked team takes a second one.
    let byes: Vec<TeamId> = teams.clone();
    let rows = partner_standings(&teams, &games, &byes, &PartnerSettings::default());
    let pairing = pair_partner_round(&rows, &met(&games), 7);
    assert_eq!(pairing.bye, Some(rows.last().unwrap().team));
}

#[test]
fn swiss_pairs_neighbours_in_the_standings_and_avoids_rematches() {
    let settings = PartnerSettings::default();
    let games = [
        won(1, 2, 1, [12, 10, 8, 8]),
        won(3, 4, 3, [11, 9, 8, 8]),
        won(5, 6, 5, [10, 10, 9, 9]),
        won(7, 8, 7, [10, 10, 9, 9]),
    ];
    let teams: Vec<TeamId> = (1..=8).map(team).collect();
    let rows = partner_standings(&teams, &games, &[], &settings);
    let pairing = pair_partner_round(&rows, &met(&games), 3);
    assert_eq!(pairing.bye, None);
    assert_eq!(pairing.tables.len(), 4);
    // Winners meet winners, losers meet losers.
    for (a, b) in &pairing.tables {
        assert_eq!(
            row(&rows, a.as_u128()).points,
            row(&rows, b.as_u128()).points
        );
    }
    let met: HashSet<(TeamId, TeamId)> = games.iter().map(|g| (g.home.team, g.away.team)).collect();
    for (a, b) in &pairing.tables {
        assert!(!met.contains(&(*a, *b)) && !met.contains(&(*b, *a)));
    }
}

#[test]
fn a_rematch_is_paired_only_when_nothing_else_is_possible() {
    let games = [won(1, 2, 1, [12, 10, 8, 8])];
    let rows = partner_standings(
        &[team(1), team(2)],
        &games,
        &[],
        &PartnerSettings::default(),
    );
    let pairing = pair_partner_round(&rows, &met(&games), 0);
    assert_eq!(pairing.tables, vec![(team(1), team(2))]);
}

#[test]
fn round_one_is_drawn_from_the_seed() {
    let teams: Vec<TeamId> = (1..=8).map(team).collect();
    let rows = partner_standings(&teams, &[], &[], &PartnerSettings::default());
    let draws: HashSet<Vec<(TeamId, TeamId)>> = (0..20)
        .map(|seed| pair_partner_round(&rows, &[], seed).tables)
        .collect();
    assert!(
        draws.len() > 1,
        "different seeds give different first rounds"
    );
    assert_eq!(
        pair_partner_round(&rows, &[], 5),
        pair_partner_round(&rows, &[], 5)
    );
    for tables in &draws {
        let paired: HashSet<TeamId> = tables.iter().flat_map(|(a, b)| [*a, *b]).collect();
        assert_eq!(paired.len(), 8);
    }
}

// ---- standings order, for any event ----

fn arbitrary_event() -> impl Strategy<Value = (usize, Vec<PartnerGame>, Vec<TeamId>)> {
    (2usize..=9).prop_flat_map(|count| {
        let game = (
            0..count as u128,
            1..count as u128,
            proptest::array::uniform4(2i64..=12),
            any::<bool>(),
        );
        (
            Just(count),
            proptest::collection::vec(game, 0..16),
            proptest::collection::vec(0..count as u128, 0..4),
        )
            .prop_map(|(count, games, byes)| {
                let settings = PartnerSettings::default();
                let games = games
                    .into_iter()
                    .map(|(home, offset, vp, finished)| {
                        let away = (home + offset) % count as u128;
                        let home_vp = vp[0] + vp[1];
                        let away_vp = vp[2] + vp[3];
                        if finished {
                            // The winner builds on to the target.
                            let mut vp = vp;
                            let winner_first = home_vp >= away_vp;
                            let slot = if winner_first { 0 } else { 2 };
                            let total = vp[slot] + vp[slot + 1];
                            vp[slot] += (20 - total).max(0);
                            let winner = if winner_first { home } else { away };
                            game_with(&settings, home, away, OutcomeKind::Won, Some(winner), vp)
                        } else {
                            game_with(&settings, home, away, OutcomeKind::TimeLimit, None, vp)
                        }
                    })
                    .collect();
                (count, games, byes.into_iter().map(team).collect())
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn standings_are_sorted_by_points_then_vp_against_then_vp_then_team(
        (count, games, byes) in arbitrary_event()
    ) {
        let teams: Vec<TeamId> = (0..count as u128).map(team).collect();
        let rows = partner_standings(&teams, &games, &byes, &PartnerSettings::default());
        prop_assert_eq!(rows.len(), count);
        prop_assert_eq!(rows[0].rank, 1);
        for pair in rows.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let key = |r: &PartnerRow| (std::cmp::Reverse(r.points), r.vp_against, std::cmp::Reverse(r.vp));
            prop_assert!(key(a) <= key(b));
            if key(a) == key(b) {
                prop_assert!(a.team < b.team);
                prop_assert_eq!(a.rank, b.rank);
            } else {
                prop_assert!(a.rank < b.rank);
            }
        }
        for (index, r) in rows.iter().enumerate() {
            // Competition ranking: a rank is one more than the number of teams above.
            let above = rows.iter().filter(|o| (o.points, std::cmp::Reverse(o.vp_against), o.vp) > (r.points, std::cmp::Reverse(r.vp_against), r.vp)).count();
            prop_assert_eq!(r.rank as usize, above + 1, "row {}", index);
            prop_assert_eq!(r.prize.is_some(), r.rank <= 3);
            let expected_points: u32 = games.iter().filter_map(|g| g.result_of(r.team)).map(|t| t.points).sum::<u32>() + 3 * r.byes;
            prop_assert_eq!(r.points, expected_points);
        }
    }
}
