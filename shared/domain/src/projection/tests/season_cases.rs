//! Worked cases of the season's projection.

use std::collections::HashSet;

use num_bigint::BigInt;
use num_rational::BigRational;
use serde_json::json;

use super::super::*;
use super::{finished, player, season_scoring};
use crate::PlayerId;
use crate::season::{
    Scoring, SeasonEvent, SeasonQualification, SeasonRow, qualify, season_standings,
};

fn int(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

fn rules(event_slots: u32, season_slots: u32) -> SeasonQualification {
    SeasonQualification {
        event_slots,
        pass_down: true,
        season_slots,
    }
}

/// A past event where each listed player alone scored his points: placed `place` in a table
/// that gives place k the points `points[k - 1]`.
fn placed(id: u128, places: &[(PlayerId, u32)]) -> SeasonEvent {
    SeasonEvent {
        placements: places.to_vec(),
        ..finished(id, 20, &[])
    }
}

/// The outlook of each row of the table, with `remaining` events of `most` points each.
fn project(
    scoring: &Scoring,
    qualification: SeasonQualification,
    events: &[SeasonEvent],
    declined: &[PlayerId],
    remaining: &[i64],
) -> (Vec<SeasonRow>, SeasonProjection) {
    let declined: HashSet<PlayerId> = declined.iter().copied().collect();
    let table = season_standings(scoring, events);
    let qualified = qualify(&qualification, scoring, events, &table, &declined);
    let remaining: Vec<RemainingEvent> = remaining
        .iter()
        .map(|&most| RemainingEvent {
            most_points: int(most),
            tier: None,
        })
        .collect();
    let projection = project_season(
        scoring,
        &qualification,
        &table,
        &qualified,
        &declined,
        &remaining,
    );
    (table, projection)
}

fn outlook_of(
    (table, projection): &(Vec<SeasonRow>, SeasonProjection),
    who: PlayerId,
) -> QualificationOutlook {
    let at = table.iter().position(|row| row.player == who).unwrap();
    assert_eq!(projection.players[at].player, who);
    projection.players[at].outlook
}

/// Points 1st 10, 2nd 9, ..., 10th 1: place p scores 11 - p.
fn ten_places(extra: serde_json::Value) -> Scoring {
    let mut value = json!({"mode": "placement", "points": [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]});
    if let (Some(value), Some(extra)) = (value.as_object_mut(), extra.as_object()) {
        value.extend(extra.clone());
    }
    season_scoring(value)
}

use QualificationOutlook::{AlreadyQualified, CanStillQualify, CannotQualify};

#[test]
fn a_lead_no_rival_can_close_is_a_qualification_and_a_gap_none_can_close_is_out() {
    let [a, b, c, d] = [1, 2, 3, 4].map(player);
    // a 28, b 24, c 13, d 7 after three events; one event of 10 points to come, 2 season slots.
    let events = [
        placed(1, &[(a, 1), (b, 2), (c, 5), (d, 9)]),
        placed(2, &[(a, 2), (b, 3), (c, 7), (d, 8)]),
        placed(3, &[(a, 2), (b, 4), (c, 8), (d, 9)]),
    ];
    let scoring = ten_places(json!({}));
    let projected = project(&scoring, rules(0, 2), &events, &[], &[10]);
    assert_eq!(projected.0[0].points, int(28));
    // b can reach 34 past a's 28, but c only 23, short of b's 24: one rival may pass a, none b,
    // and newcomers reach only 10. c cannot pass a nor b.
    assert_eq!(outlook_of(&projected, a), AlreadyQualified);
    assert_eq!(outlook_of(&projected, b), AlreadyQualified);
    assert_eq!(outlook_of(&projected, c), CannotQualify);
    assert_eq!(outlook_of(&projected, d), CannotQualify);
    assert_eq!(projected.1.remaining_events, 1);
    // Two events to come: c can reach 33, past b.
    let projected = project(&scoring, rules(0, 2), &events, &[], &[10, 10]);
    assert_eq!(outlook_of(&projected, b), CanStillQualify);
    assert_eq!(outlook_of(&projected, c), CanStillQualify);
}

#[test]
fn ending_level_on_points_with_events_to_come_may_go_either_way() {
    let [a, b, c] = [1, 2, 3].map(player);
    // a 20, b 15, c 4; one event of 5 points to come, one season slot.
    let events = [
        placed(1, &[(b, 1), (a, 2), (c, 10)]),
        placed(2, &[(a, 1), (b, 6), (c, 10)]),
        placed(3, &[(a, 10), (c, 9)]),
    ];
    let scoring = ten_places(json!({}));
    let projected = project(&scoring, rules(0, 1), &events, &[], &[5]);
    assert_eq!(projected.0[0].player, a);
    // b's 20 at the most would be level with a's 20: the tie-breaks the event changes decide,
    // so neither is sure, and b is not out.
    assert_eq!(outlook_of(&projected, a), CanStillQualify);
    assert_eq!(outlook_of(&projected, b), CanStillQualify);
    assert_eq!(outlook_of(&projected, c), CannotQualify);
}

#[test]
fn a_remaining_event_only_replaces_a_players_worst_counted_result() {
    let [a, b] = [1, 2].map(player);
    // Best 2 count: a 10 + 7 = 17; b four times 6th (5 points): 10 at most, 15 after a win.
    let events = [
        placed(1, &[(a, 1), (b, 6)]),
        placed(2, &[(a, 4), (b, 6)]),
        placed(3, &[(b, 6)]),
        placed(4, &[(b, 6)]),
    ];
    let best_two = ten_places(json!({"best_n": 2}));
    let projected = project(&best_two, rules(0, 1), &events, &[], &[10]);
    assert_eq!(outlook_of(&projected, a), AlreadyQualified);
    assert_eq!(outlook_of(&projected, b), CannotQualify);
    // Every event counting, b has 20 already and a is no longer sure.
    let every = ten_places(json!({}));
    let projected = project(&every, rules(0, 1), &events, &[], &[10]);
    assert_eq!(projected.0[0].player, b);
    assert_eq!(outlook_of(&projected, a), CanStillQualify);
}

#[test]
fn newcomers_may_pass_a_player_while_the_remaining_events_can_give_them_as_much() {
    let a = player(1);
    let scoring = ten_places(json!({}));
    let projected = project(&scoring, rules(0, 1), &[placed(1, &[(a, 3)])], &[], &[10]);
    // a's 8 is less than the 10 a newcomer can win.
    assert_eq!(outlook_of(&projected, a), CanStillQualify);
    let projected = project(
        &scoring,
        rules(0, 1),
        &[placed(1, &[(a, 3)]), placed(2, &[(a, 3)])],
        &[],
        &[10],
    );
    assert_eq!(outlook_of(&projected, a), AlreadyQualified);
}

#[test]
fn an_event_slot_to_come_keeps_everyone_in_unless_only_his_first_qualifier_counts() {
    let [a, b, c] = [1, 2, 3].map(player);
    let events = [placed(1, &[(a, 1), (b, 2), (c, 10)])];
    let every = ten_places(json!({}));
    // a holds event 1's slot; c is far behind b for the one season slot, but may win event 2.
    let projected = project(&every, rules(1, 1), &events, &[], &[10]);
    assert_eq!(outlook_of(&projected, a), AlreadyQualified);
    assert_eq!(outlook_of(&projected, c), CanStillQualify);
    // With no event left the qualification is the final one.
    let done = project(&every, rules(1, 1), &events, &[], &[]);
    let final_outlooks: Vec<QualificationOutlook> =
        done.1.players.iter().map(|p| p.outlook).collect();
    assert_eq!(
        final_outlooks,
        [AlreadyQualified, AlreadyQualified, CannotQualify]
    );
    // When only a player's first qualifier counts, c's was event 1: nothing to come is his, and
    // b, whose figures cannot change either, stays ahead of him.
    let german = ten_places(json!({"eligibility": "first_qualifier_only"}));
    let projected = project(&german, rules(1, 1), &events, &[], &[10]);
    assert_eq!(outlook_of(&projected, c), CannotQualify);
    // b can still lose the season slot to a newcomer winning 10 (b has 9).
    assert_eq!(outlook_of(&projected, b), CanStillQualify);
}

#[test]
fn when_only_the_first_qualifier_counts_players_level_on_points_keep_the_tables_order() {
    let [a, b, c] = [1, 2, 3].map(player);
    // a and b are level on everything; the table lists a first (the lower id). No newcomer can
    // reach their 10 with events of 9.
    let events = [
        placed(1, &[(a, 1)]),
        placed(2, &[(b, 1)]),
        placed(3, &[(c, 4)]),
    ];
    let german = ten_places(json!({"eligibility": "first_qualifier_only"}));
    let projected = project(&german, rules(0, 1), &events, &[], &[9, 9]);
    assert_eq!(outlook_of(&projected, a), AlreadyQualified);
    assert_eq!(outlook_of(&projected, b), CannotQualify);
    assert_eq!(outlook_of(&projected, c), CannotQualify);
}

#[test]
fn a_player_who_declined_cannot_qualify_and_takes_no_place() {
    let [a, b] = [1, 2].map(player);
    let events = [placed(1, &[(a, 1), (b, 5)]), placed(2, &[(a, 1), (b, 5)])];
    let scoring = ten_places(json!({}));
    let projected = project(&scoring, rules(0, 1), &events, &[a], &[4]);
    assert_eq!(outlook_of(&projected, a), CannotQualify);
    // a is out of the race: b (12) is sure of the slot against newcomers' 4.
    assert_eq!(outlook_of(&projected, b), AlreadyQualified);
}

#[test]
fn a_season_ranked_first_by_something_else_than_points_may_end_in_any_order() {
    let [a, b] = [1, 2].map(player);
    let events = [placed(1, &[(a, 1), (b, 10)]), placed(2, &[(a, 1), (b, 10)])];
    let wins_first = ten_places(json!({"tie_breaks": ["wins", "points"]}));
    let projected = project(&wins_first, rules(0, 1), &events, &[], &[1]);
    assert_eq!(outlook_of(&projected, a), CanStillQualify);
    assert_eq!(outlook_of(&projected, b), CanStillQualify);
}

#[test]
fn a_remaining_event_gives_at_most_first_places_points_in_its_tier() {
    let table = season_scoring(json!({
        "mode": "placement", "points": [25, 18], "min_players": 8,
        "tiers": [{"name": "major", "min_players": 30, "max_counted": 1}],
    }));
    let major = RemainingEvent::under(&table, Some(40), 5).unwrap();
    assert_eq!((major.most_points, major.tier), (int(25), Some(0)));
    assert_eq!(RemainingEvent::under(&table, None, 5).unwrap().tier, None);
    assert_eq!(RemainingEvent::under(&table, Some(6), 5), None);
    let scaled =
        season_scoring(json!({"mode": "placement", "scaled": {"top": 100, "full_field": 50}}));
    assert_eq!(
        RemainingEvent::under(&scaled, Some(25), 5)
            .unwrap()
            .most_points,
        int(50)
    );
    assert_eq!(
        RemainingEvent::under(&scaled, None, 5).unwrap().most_points,
        int(100)
    );
    let table_points = season_scoring(json!({"mode": "table_points", "three": [6, 3, 1]}));
    assert_eq!(
        RemainingEvent::under(&table_points, Some(20), 5)
            .unwrap()
            .most_points,
        int(30)
    );
}

#[test]
fn the_projection_is_written_as_the_api_names_it() {
    let a = player(1);
    let scoring = ten_places(json!({}));
    let (_, projection) = project(&scoring, rules(0, 1), &[placed(1, &[(a, 1)])], &[], &[10]);
    assert_eq!(
        serde_json::to_value(&projection).unwrap(),
        json!({
            "remaining_events": 1,
            "players": [{"player_id": a, "outlook": "can_still_qualify"}],
        })
    );
}
