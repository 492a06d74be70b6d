//! The season's projection against an exhaustive search of its model on seasons of up to 6
//! players and up to 2 remaining events.
//!
//! The search plays every completion of the model: each player of the table, and as many
//! newcomers as there are season slots (more could not take more of them), either skips each
//! remaining event or wins it, each player apart from the others. Winning is the event's most
//! points; a player's season points only grow with an event's points (his best events are the
//! heaviest allowed choice, `choose_counted`), so what lies between the two changes no answer.
//! Each end is scored by the season table itself ([`season_standings`] over the events so far
//! and the ones he played), which also says whose figures the remaining events cannot change.
//! In each completion a player qualifies for sure when, with no slot of a remaining event taken,
//! fewer than the season slots of the players not otherwise qualified end ahead of him or level
//! (level players' order is not known while events remain, unless neither one's figures can
//! change); and he may qualify when a remaining event's slot can be his, or when fewer than the
//! slots end surely ahead of him once as many of them as the remaining slots allow took one.

use std::collections::HashSet;

use num_rational::BigRational;
use num_traits::Zero;
use proptest::collection::{btree_set, vec};
use proptest::prelude::*;
use serde_json::json;

use super::super::*;
use super::{finished, season_scoring};
use crate::PlayerId;
use crate::season::{
    QualifiedVia, Scoring, SeasonEvent, SeasonQualification, SeasonRow, TieBreak, qualify,
    season_standings,
};

/// The figures a season's table ranks by.
fn figures(row: &SeasonRow) -> impl PartialEq + use<> {
    (
        row.points.clone(),
        row.events_played,
        row.wins,
        row.best_place,
        row.vp,
        row.vp_share.clone(),
        row.table_places,
    )
}

/// One search's season: its events so far, the rules, and the fields of the events to come.
#[derive(Debug, Clone)]
struct Season {
    scoring: Scoring,
    qualification: SeasonQualification,
    events: Vec<SeasonEvent>,
    declined: HashSet<PlayerId>,
    to_come: Vec<u32>,
}

/// The outlook of each row of the table by searching every completion of the model.
fn by_search(season: &Season, table: &[SeasonRow]) -> Vec<QualificationOutlook> {
    let rules = &season.qualification;
    let qualified = qualify(
        rules,
        &season.scoring,
        &season.events,
        table,
        &season.declined,
    );
    if season.to_come.is_empty() {
        let holders: HashSet<PlayerId> = qualified.iter().map(|q| q.player).collect();
        return table
            .iter()
            .map(|row| {
                if holders.contains(&row.player) {
                    QualificationOutlook::AlreadyQualified
                } else {
                    QualificationOutlook::CannotQualify
                }
            })
            .collect();
    }
    let holders: HashSet<PlayerId> = qualified
        .iter()
        .filter(|q| matches!(q.via, QualifiedVia::Event { .. }))
        .map(|q| q.player)
        .collect();
    let newcomers = (0..rules.season_slots).map(|k| PlayerId::from_u128(5000 + u128::from(k)));
    let everyone: Vec<PlayerId> = table
        .iter()
        .map(|row| row.player)
        .chain(newcomers)
        .collect();
    let choices = 1usize << season.to_come.len();
    // ends[x][mask]: x's row when he won the remaining events in `mask` and skipped the others.
    let ends: Vec<Vec<Option<SeasonRow>>> = everyone
        .iter()
        .map(|&who| (0..choices).map(|mask| end_of(season, who, mask)).collect())
        .collect();
    let unchanged = |x: usize| {
        ends[x].iter().all(|end| match (end, table.get(x)) {
            (Some(end), Some(now)) => figures(end) == figures(now),
            (None, None) => true,
            _ => false,
        })
    };
    let frozen: Vec<bool> = (0..everyone.len()).map(unchanged).collect();
    let in_race =
        |x: usize| !holders.contains(&everyone[x]) && !season.declined.contains(&everyone[x]);
    let points_first = season.scoring.ranking.first() == Some(&TieBreak::Points);
    let slots = usize::try_from(rules.season_slots).unwrap();
    let remaining_slots = usize::try_from(rules.event_slots).unwrap() * season.to_come.len();

    let mut sure = vec![true; table.len()];
    let mut can = vec![false; table.len()];
    let mut picks = vec![0usize; everyone.len()];
    loop {
        let points: Vec<Option<BigRational>> = (0..everyone.len())
            .map(|x| ends[x][picks[x]].as_ref().map(|row| row.points.clone()))
            .collect();
        for at in 0..table.len() {
            let me = &everyone[at];
            if holders.contains(me) {
                can[at] = true;
                continue;
            }
            if season.declined.contains(me) {
                sure[at] = false;
                continue;
            }
            let mine = points[at].clone().unwrap_or_else(BigRational::zero);
            let rivals =
                (0..everyone.len()).filter(|&x| x != at && in_race(x) && points[x].is_some());
            let may_pass = rivals
                .clone()
                .filter(|&x| {
                    if frozen[x] && frozen[at] {
                        x < at
                    } else {
                        !points_first || points[x].as_ref() >= Some(&mine)
                    }
                })
                .count();
            sure[at] &= may_pass < slots;
            let passes: Vec<usize> = rivals
                .filter(|&x| {
                    if frozen[x] && frozen[at] {
                        x < at
                    } else {
                        points_first && points[x].as_ref() > Some(&mine)
                    }
                })
                .collect();
            // A remaining event's slot can go to whoever the event counts for: whoever's
            // figures it changes.
            let can_take_a_slot = |x: usize| remaining_slots > 0 && !frozen[x];
            let taken_out = passes
                .iter()
                .filter(|&&x| can_take_a_slot(x))
                .count()
                .min(remaining_slots);
            can[at] |= can_take_a_slot(at) || passes.len() - taken_out < slots;
        }
        // The next completion, like an odometer; frozen players have one end.
        let Some(x) = (0..everyone.len()).find(|&x| !frozen[x] && picks[x] + 1 < choices) else {
            break;
        };
        picks[x] += 1;
        picks[..x].fill(0);
    }
    (0..table.len())
        .map(|at| match (sure[at], can[at]) {
            (true, _) => QualificationOutlook::AlreadyQualified,
            (false, true) => QualificationOutlook::CanStillQualify,
            (false, false) => QualificationOutlook::CannotQualify,
        })
        .collect()
}

/// `who`'s row of the season table when he won the remaining events in `mask` (alone placed in
/// them) and skipped the others; none when he has no row.
fn end_of(season: &Season, who: PlayerId, mask: usize) -> Option<SeasonRow> {
    let mut events = season.events.clone();
    for (k, &field) in season.to_come.iter().enumerate() {
        if mask & (1 << k) != 0 {
            events.push(finished(100 + k as u128, field, &[who]));
        }
    }
    season_standings(&season.scoring, &events)
        .into_iter()
        .find(|row| row.player == who)
}

/// Seasons of up to 6 players over up to 6 finished events, with up to 2 events to come.
fn small_season() -> impl Strategy<Value = Season> {
    let event = (
        Just((1u128..=6).collect::<Vec<u128>>()).prop_shuffle(),
        2usize..=6,
    );
    (
        vec(event, 0..=6),
        // By place, or by place and field size (a remaining field of 3 gives half a full one).
        prop_oneof![
            1 => Just(json!({"points": [10, 6, 3]})),
            1 => Just(json!({"points": [5, 3]})),
            1 => Just(json!({"points": [4, 4, 1]})),
            1 => Just(json!({"points": [2]})),
            4 => Just(json!({"scaled": {"top": 12, "full_field": 6}})),
        ],
        proptest::option::of(1u32..=2),
        any::<bool>(),
        any::<bool>(),
        prop_oneof![4 => Just(json!([])), 1 => Just(json!(["wins", "points"]))],
        (
            prop_oneof![2 => Just(0u32), 1 => Just(1)],
            0u32..=2,
            any::<bool>(),
        ),
        btree_set(1u128..=7, 0..=2),
        vec(prop_oneof![3 => Just(3u32), 1 => Just(6u32)], 0..=2),
    )
        .prop_map(
            |(played, points, best_n, tier, first_only, tie_breaks, slots, declined, to_come)| {
                let (event_slots, season_slots, pass_down) = slots;
                let tiers = if tier {
                    json!([{"name": "small", "min_players": 0, "max_players": 3, "max_counted": 1}])
                } else {
                    json!([])
                };
                let eligibility = if first_only {
                    "first_qualifier_only"
                } else {
                    "every_event"
                };
                let mut scoring = json!({
                    "mode": "placement", "best_n": best_n, "tiers": tiers,
                    "eligibility": eligibility, "tie_breaks": tie_breaks,
                });
                if let (Some(scoring), Some(points)) = (scoring.as_object_mut(), points.as_object())
                {
                    scoring.extend(points.clone());
                }
                let scoring = season_scoring(scoring);
                let events = played
                    .iter()
                    .zip(1u128..)
                    .map(|((ids, size), id)| {
                        let players: Vec<PlayerId> = ids[..*size]
                            .iter()
                            .map(|&n| PlayerId::from_u128(n))
                            .collect();
                        finished(id, u32::try_from(players.len()).unwrap(), &players)
                    })
                    .collect();
                Season {
                    scoring,
                    qualification: SeasonQualification {
                        event_slots,
                        pass_down,
                        season_slots: season_slots.max(1 - event_slots),
                    },
                    events,
                    declined: declined.into_iter().map(PlayerId::from_u128).collect(),
                    to_come,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_projection_is_the_exhaustive_search_of_the_model(season in small_season()) {
        let table = season_standings(&season.scoring, &season.events);
        let qualified = qualify(
            &season.qualification,
            &season.scoring,
            &season.events,
            &table,
            &season.declined,
        );
        let remaining: Vec<RemainingEvent> = season
            .to_come
            .iter()
            .filter_map(|&field| RemainingEvent::under(&season.scoring, Some(field), 3))
            .collect();
        let projected = project_season(
            &season.scoring,
            &season.qualification,
            &table,
            &qualified,
            &season.declined,
            &remaining,
        );
        let outlooks: Vec<QualificationOutlook> =
            projected.players.iter().map(|p| p.outlook).collect();
        prop_assert_eq!(outlooks, by_search(&season, &table));
    }
}
