//! The German championship's options (issue 35): the tie-breaks `vp_capped_at_winning_total`
//! and `table_places`, and the eligibility `first_qualifier_only`.

use std::collections::HashSet;

use serde_json::json;

use super::fixtures::{classic, event_id, finished, int, player, scoring};
use super::*;
use crate::PlayerId;

fn order(rows: &[SeasonRow]) -> Vec<(u32, PlayerId)> {
    rows.iter().map(|row| (row.rank, row.player)).collect()
}

fn row_of(rows: &[SeasonRow], who: PlayerId) -> &SeasonRow {
    rows.iter().find(|row| row.player == who).unwrap()
}

/// An event of `field` players still being played in mode `table_points`: its games so far.
fn playing(id: u128, field: u32, games: Vec<SeasonGame>) -> SeasonEvent {
    SeasonEvent {
        placements_complete: false,
        placements: Vec::new(),
        games,
        ..finished(id, field, &[])
    }
}

#[test]
fn the_german_tie_breaks_are_known_names_listed_once() {
    let read: SeasonScoring = serde_json::from_value(json!({
        "mode": "table_points",
        "tie_breaks": ["points", "vp_capped_at_winning_total", "vp_share", "table_places"],
    }))
    .unwrap();
    let valid = validate_scoring(&read).unwrap();
    assert_eq!(
        valid.ranking,
        [
            TieBreak::Points,
            TieBreak::VpCappedAtWinningTotal,
            TieBreak::VpShare,
            TieBreak::TablePlaces
        ]
    );
    let twice: SeasonScoring = serde_json::from_value(json!({
        "mode": "table_points",
        "tie_breaks": ["table_places", "table_place", "table_places"],
    }))
    .unwrap();
    let broken: Vec<(String, &str)> = validate_scoring(&twice)
        .unwrap_err()
        .into_iter()
        .map(|v| (v.field, v.rule.code()))
        .collect();
    assert_eq!(
        broken,
        [
            ("scoring.tie_breaks[1]".to_owned(), "unknown_tie_break"),
            ("scoring.tie_breaks[2]".to_owned(), "repeated_tie_break"),
        ]
    );
    for tie_break in [TieBreak::VpCappedAtWinningTotal, TieBreak::TablePlaces] {
        assert_eq!(TieBreak::from_name(tie_break.name()), Some(tie_break));
        assert_eq!(
            serde_json::to_value(tie_break).unwrap(),
            json!(tie_break.name())
        );
    }
}

#[test]
fn vp_capped_at_the_winning_total_counts_a_win_of_twelve_as_ten() {
    let [a, b, c, d, e, f] = [1, 2, 3, 4, 5, 6].map(player);
    // a wins with 12 and makes 4; b wins with 10 and makes 5: 5 + 1 points each in table points.
    let games = vec![
        classic(&[(a, 12), (c, 9), (d, 8), (e, 3)], Some(a)),
        classic(&[(b, 10), (c, 9), (d, 8), (f, 3)], Some(b)),
        classic(&[(a, 4), (c, 10), (d, 8), (e, 7)], Some(c)),
        classic(&[(b, 5), (c, 10), (d, 8), (f, 7)], Some(c)),
    ];
    let german = scoring(json!({
        "mode": "table_points",
        "tie_breaks": ["points", "vp_capped_at_winning_total"],
    }));
    let rows = season_standings(&german, &[playing(1, 6, games)]);
    let (row_a, row_b) = (row_of(&rows, a), row_of(&rows, b));
    assert_eq!(
        (row_a.points.clone(), row_b.points.clone()),
        (int(6), int(6))
    );
    // 12 counts 10: a has 14 against b's 15, and ranks below him.
    assert_eq!((row_a.vp, row_b.vp), (14, 15));
    assert!(row_b.rank < row_a.rank);
}

#[test]
fn table_places_rank_more_firsts_then_more_seconds_then_more_thirds() {
    let [a, b, c, x, y, z] = [1, 2, 3, 7, 8, 9].map(player);
    // With 4-3-2-1, every one of a, b and c scores 5: a 1st and 4th, b 2nd and 3rd, c 3rd, 3rd
    // and 4th. b's 2nd comes from a place he shares with x (both level behind the winner).
    let games = vec![
        classic(&[(a, 10), (x, 8), (y, 6), (z, 5)], Some(a)),
        classic(&[(a, 3), (x, 10), (y, 8), (z, 6)], Some(x)),
        classic(&[(b, 7), (x, 7), (y, 10), (z, 2)], Some(y)),
        classic(&[(b, 6), (x, 10), (y, 9), (z, 2)], Some(x)),
        classic(&[(c, 6), (x, 10), (y, 9), (z, 2)], Some(x)),
        classic(&[(c, 6), (x, 10), (y, 9), (z, 2)], Some(x)),
        classic(&[(c, 3), (x, 10), (y, 9), (z, 8)], Some(x)),
    ];
    let german = scoring(json!({
        "mode": "table_points", "four": [4, 3, 2, 1], "tie_breaks": ["points", "table_places"],
    }));
    let rows = season_standings(&german, &[playing(1, 6, games)]);
    let places = |who| row_of(&rows, who).table_places;
    assert_eq!(places(a), [1, 0, 0]);
    assert_eq!(places(b), [0, 1, 1]);
    assert_eq!(places(c), [0, 0, 2]);
    let among: Vec<(u32, PlayerId)> = order(&rows)
        .into_iter()
        .filter(|(_, who)| [a, b, c].contains(who))
        .collect();
    // b's share of 2nd place (3 + 2) / 2 and a 3rd's 2 make 4.5; the others 5.
    assert_eq!(row_of(&rows, b).points, super::fixtures::ratio(9, 2));
    assert_eq!(
        among.iter().map(|&(_, who)| who).collect::<Vec<_>>(),
        [a, c, b]
    );
    // a and c are level on points: a's first place ranks him above c's two thirds.
    assert!(row_of(&rows, a).rank < row_of(&rows, c).rank);
}

#[test]
fn eligibility_reads_from_json_defaults_to_every_event_and_refuses_other_names() {
    let default: SeasonScoring = serde_json::from_value(json!({"mode": "table_points"})).unwrap();
    assert_eq!(default.eligibility, Eligibility::EveryEvent);
    // A season that does not use it stores and serves exactly what it did before.
    assert!(
        serde_json::to_value(&default)
            .unwrap()
            .get("eligibility")
            .is_none()
    );
    let german: SeasonScoring = serde_json::from_value(
        json!({"mode": "table_points", "eligibility": "first_qualifier_only"}),
    )
    .unwrap();
    assert_eq!(
        validate_scoring(&german).unwrap().eligibility,
        Eligibility::FirstQualifierOnly
    );
    assert_eq!(
        serde_json::to_value(&german).unwrap()["eligibility"],
        "first_qualifier_only"
    );
    let refused = serde_json::from_value::<SeasonScoring>(
        json!({"mode": "table_points", "eligibility": "first_event"}),
    )
    .unwrap_err()
    .to_string();
    assert!(refused.contains("every_event") && refused.contains("first_qualifier_only"));
}

#[test]
fn first_qualifier_only_counts_a_players_first_counting_event_and_nothing_after() {
    let [a, b, c] = [1, 2, 3].map(player);
    let rules = |eligibility: &str| {
        scoring(json!({
            "mode": "placement", "points": [10, 6, 3], "min_players": 3,
            "eligibility": eligibility,
        }))
    };
    let events = [
        // Too small to count: not a qualifier, so not a's first.
        finished(1, 2, &[a, b]),
        finished(2, 3, &[b, a, c]),
        finished(3, 3, &[a, c, b]),
    ];
    let every = season_standings(&rules("every_event"), &events);
    assert_eq!(row_of(&every, a).points, int(16));
    let first = season_standings(&rules("first_qualifier_only"), &events);
    let row_a = row_of(&first, a);
    assert_eq!(row_a.points, int(6));
    assert_eq!((row_a.events_played, row_a.wins), (1, 0));
    let events_of_a: Vec<EventId> = row_a.results.iter().map(|r| r.event).collect();
    assert_eq!(events_of_a, [event_id(2)]);
    assert_eq!(row_of(&first, c).points, int(3));
}

#[test]
fn at_a_later_qualifier_a_player_is_passed_over_and_its_slots_go_to_the_next() {
    let [a, b, c, d, e] = [1, 2, 3, 4, 5].map(player);
    let events = [finished(1, 3, &[a, b, c]), finished(2, 3, &[a, d, e])];
    let rules = SeasonQualification {
        event_slots: 1,
        pass_down: false,
        season_slots: 0,
    };
    let qualified = |eligibility: &str| -> Vec<(PlayerId, Option<PlayerId>)> {
        let scoring = scoring(json!({
            "mode": "placement", "points": [10, 6, 3], "eligibility": eligibility,
        }));
        let table = season_standings(&scoring, &events);
        qualify(&rules, &scoring, &events, &table, &HashSet::new())
            .into_iter()
            .map(|q| (q.player, q.passed_down_from))
            .collect()
    };
    // Every event counting: a's second slot is lost without pass-down.
    assert_eq!(qualified("every_event"), [(a, None)]);
    // Only his first qualifier counts for a: event 2's first player it counts for is d, whose
    // own slot it is (nothing passed down).
    assert_eq!(qualified("first_qualifier_only"), [(a, None), (d, None)]);
}
