//! Who of a season qualifies: the top of each counting event, then the best of the season table
//! not otherwise qualified.

use std::collections::HashSet;

use super::config::SeasonQualification;
use super::eligibility::EventsCounted;
use super::standings::{EventId, SeasonEvent, SeasonRow};
use super::validate::Scoring;
use crate::PlayerId;

/// How a player qualified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QualifiedVia {
    /// From an event's slots; `place` is the player's own place in it.
    Event { event: EventId, place: u32 },
    /// From the season table, where the player ranks `rank`.
    Season { rank: u32 },
}

/// One qualified player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Qualified {
    pub player: PlayerId,
    pub via: QualifiedVia,
    /// The player whose event slot this was, when it passed down to this one.
    pub passed_down_from: Option<PlayerId>,
}

/// The season's qualified players: first those of the events' slots, event by event in play
/// order, then those of the season slots in table order.
///
/// - The events are those of `events` (in play order) that count for the season
///   ([`Scoring::counts`]) and whose placements are complete (a `table_points` event still being
///   played gives no slots yet).
/// - An event's `event_slots` slots belong to its first K players in the order of their places;
///   players sharing a place (a partner team) in the order the event lists them. A slot's player
///   takes it unless he already qualified (at an earlier event) or is in `declined`. Then, with
///   `pass_down`, the slot goes to the next eligible player below the top K of that event's
///   placements (the slots passing in the order of their places), recording whose slot it was;
///   players who qualified before or declined are skipped. Without `pass_down`, or when the event
///   has no eligible player left, the slot is lost.
/// - Under [`super::Eligibility::FirstQualifierOnly`], an event counts only for the players it
///   is the first counting event of: the others are left out of its placements before the slots
///   are given, so its slots go to its first K players it counts for.
/// - Then `season_slots` go to the rows of `standings` (best first, as [`super::season_standings`]
///   lists them) not qualified and not declined. Players sharing a rank at the cut are taken in
///   the table's order (by player id among equals): the same auditable order the table shows.
pub fn qualify(
    rules: &SeasonQualification,
    scoring: &Scoring,
    events: &[SeasonEvent],
    standings: &[SeasonRow],
    declined: &HashSet<PlayerId>,
) -> Vec<Qualified> {
    let mut qualified: Vec<Qualified> = Vec::new();
    let mut taken: HashSet<PlayerId> = HashSet::new();
    let slots = usize::try_from(rules.event_slots).unwrap_or(usize::MAX);
    let counted = EventsCounted::new(scoring, events);
    for (index, event) in events
        .iter()
        .enumerate()
        .filter(|(_, event)| event.placements_complete && scoring.counts(event))
    {
        let mut order = placement_order(&event.placements);
        // An event that does not count for a player passes him over, as if he had not played.
        order.retain(|&(player, _)| counted.counts_for(player, index));
        let cut = slots.min(order.len());
        let (holders, below) = order.split_at(cut);
        let mut passing: Vec<PlayerId> = Vec::new();
        for &(player, place) in holders {
            if declined.contains(&player) || !taken.insert(player) {
                passing.push(player);
                continue;
            }
            qualified.push(Qualified {
                player,
                via: QualifiedVia::Event {
                    event: event.event,
                    place,
                },
                passed_down_from: None,
            });
        }
        if !rules.pass_down {
            continue;
        }
        let mut next = below
            .iter()
            .filter(|(player, _)| !declined.contains(player));
        for from in passing {
            let Some(&(player, place)) = next.find(|(player, _)| !taken.contains(player)) else {
                break;
            };
            taken.insert(player);
            qualified.push(Qualified {
                player,
                via: QualifiedVia::Event {
                    event: event.event,
                    place,
                },
                passed_down_from: Some(from),
            });
        }
    }
    let season_slots = usize::try_from(rules.season_slots).unwrap_or(usize::MAX);
    let from_season: Vec<Qualified> = standings
        .iter()
        .filter(|row| !declined.contains(&row.player) && !taken.contains(&row.player))
        .take(season_slots)
        .map(|row| Qualified {
            player: row.player,
            via: QualifiedVia::Season { rank: row.rank },
            passed_down_from: None,
        })
        .collect();
    qualified.extend(from_season);
    qualified
}

/// An event's placements by place (a stable sort: shared places keep the listed order), each
/// player once (his first place listed).
fn placement_order(placements: &[(PlayerId, u32)]) -> Vec<(PlayerId, u32)> {
    let mut seen = HashSet::new();
    let mut order: Vec<(PlayerId, u32)> = placements
        .iter()
        .copied()
        .filter(|(player, _)| seen.insert(*player))
        .collect();
    order.sort_by_key(|&(_, place)| place);
    order
}

#[cfg(test)]
mod tests {
    use num_rational::BigRational;
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::season::fixtures::{event_id, finished, int, player, scoring};
    use crate::season::season_standings;

    fn rules(event_slots: u32, pass_down: bool, season_slots: u32) -> SeasonQualification {
        SeasonQualification {
            event_slots,
            pass_down,
            season_slots,
        }
    }

    fn placement() -> Scoring {
        scoring(json!({"mode": "placement", "points": [10, 6, 3, 1]}))
    }

    fn via_event(player: PlayerId, event: u128, place: u32, from: Option<PlayerId>) -> Qualified {
        Qualified {
            player,
            via: QualifiedVia::Event {
                event: event_id(event),
                place,
            },
            passed_down_from: from,
        }
    }

    fn via_season(player: PlayerId, rank: u32) -> Qualified {
        Qualified {
            player,
            via: QualifiedVia::Season { rank },
            passed_down_from: None,
        }
    }

    /// Qualification over `events` with the standings they make.
    fn run(
        rules: SeasonQualification,
        events: &[SeasonEvent],
        declined: &[PlayerId],
    ) -> Vec<Qualified> {
        let scoring = placement();
        let standings = season_standings(&scoring, events);
        let declined = declined.iter().copied().collect();
        qualify(&rules, &scoring, events, &standings, &declined)
    }

    #[test]
    fn each_event_qualifies_its_top_places_in_play_order_then_the_season_table() {
        let [a, b, c, d, e, f, g, h] = [1, 2, 3, 4, 5, 6, 7, 8].map(player);
        let events = [finished(1, 4, &[a, b, c, d]), finished(2, 4, &[e, f, g, h])];
        // Season table: a, e 10; b, f 6; c, g 3; d, h 1 (equal points: by player id).
        assert_eq!(
            run(rules(2, true, 2), &events, &[]),
            [
                via_event(a, 1, 1, None),
                via_event(b, 1, 2, None),
                via_event(e, 2, 1, None),
                via_event(f, 2, 2, None),
                via_season(c, 5),
                via_season(g, 5),
            ]
        );
    }

    #[test]
    fn a_double_qualifier_passes_his_second_slot_down() {
        let [a, b, c, d, e, f, g] = [1, 2, 3, 4, 5, 6, 7].map(player);
        let events = [finished(1, 4, &[a, b, c, d]), finished(2, 4, &[a, e, f, g])];
        assert_eq!(
            run(rules(2, true, 0), &events, &[]),
            [
                via_event(a, 1, 1, None),
                via_event(b, 1, 2, None),
                // a already holds a place: e keeps his own slot, a's goes to f.
                via_event(e, 2, 2, None),
                via_event(f, 2, 3, Some(a)),
            ]
        );
    }

    #[test]
    fn a_decline_in_the_middle_passes_the_slot_to_the_next_eligible_player() {
        let [a, b, c, d, e] = [1, 2, 3, 4, 5].map(player);
        let events = [finished(1, 5, &[a, b, c, d, e])];
        assert_eq!(
            run(rules(3, true, 0), &events, &[b]),
            [
                via_event(a, 1, 1, None),
                via_event(c, 1, 3, None),
                via_event(d, 1, 4, Some(b)),
            ]
        );
    }

    #[test]
    fn pass_down_chains_skip_players_already_qualified_or_declined() {
        let [a, b, e, f, g, h, k] = [1, 2, 5, 6, 7, 8, 11].map(player);
        let events = [
            finished(1, 4, &[a, b, k, player(12)]),
            // e declines, a already qualified; below them b (qualified) and h (declined) are
            // passed over: e's slot goes to f, a's to g, in the order of their places.
            finished(2, 6, &[e, a, b, h, f, g]),
        ];
        assert_eq!(
            run(rules(2, true, 0), &events, &[e, h]),
            [
                via_event(a, 1, 1, None),
                via_event(b, 1, 2, None),
                via_event(f, 2, 5, Some(e)),
                via_event(g, 2, 6, Some(a)),
            ]
        );
        // When the event runs out of eligible players, the slot is lost.
        let short = [finished(1, 3, &[a, b, e])];
        assert_eq!(
            run(rules(2, true, 0), &short, &[a, e]),
            [via_event(b, 1, 2, None)]
        );
    }

    #[test]
    fn without_pass_down_a_held_or_declined_slot_is_lost() {
        let [a, b, c, d, e, f, g] = [1, 2, 3, 4, 5, 6, 7].map(player);
        let events = [finished(1, 4, &[a, b, c, d]), finished(2, 4, &[a, e, f, g])];
        assert_eq!(
            run(rules(2, false, 0), &events, &[b]),
            [via_event(a, 1, 1, None), via_event(e, 2, 2, None)]
        );
    }

    #[test]
    fn season_slots_go_to_the_best_of_the_table_not_otherwise_qualified() {
        let [a, b, c, d, e] = [1, 2, 3, 4, 5].map(player);
        let events = [
            finished(1, 4, &[a, b, c, d]),
            finished(2, 4, &[b, c, a, e]),
            finished(3, 4, &[c, b, d, e]),
        ];
        // Table: b 22, c 19, a 13, d 4, e 2. a and c win events; b declines.
        let qualified = run(rules(1, true, 2), &events, &[b]);
        assert_eq!(
            qualified,
            [
                via_event(a, 1, 1, None),
                // b's first place of event 2 passes down to c, and c's own win of event 3 on to
                // b, who declined, and so to d.
                via_event(c, 2, 2, Some(b)),
                via_event(d, 3, 3, Some(c)),
                via_season(e, 5),
            ]
        );
    }

    fn row(who: PlayerId, rank: u32, points: i64) -> SeasonRow {
        SeasonRow {
            rank,
            player: who,
            points: int(points),
            events_played: 1,
            events_counted: 1,
            wins: 0,
            best_place: None,
            vp: 0,
            vp_share: BigRational::from_integer(0.into()),
            table_places: [0; 3],
            results: Vec::new(),
        }
    }

    #[test]
    fn players_sharing_a_rank_at_the_season_cut_go_in_the_tables_order() {
        let [a, b, c, d] = [1, 2, 3, 4].map(player);
        let table = [row(a, 1, 30), row(c, 2, 20), row(b, 2, 20), row(d, 4, 10)];
        let qualified = qualify(
            &rules(0, false, 2),
            &placement(),
            &[],
            &table,
            &HashSet::new(),
        );
        assert_eq!(qualified, [via_season(a, 1), via_season(c, 2)]);
    }

    #[test]
    fn only_complete_counting_events_give_slots() {
        let [a, b, c] = [1, 2, 3].map(player);
        let rules = rules(1, true, 0);
        let table_points = scoring(json!({"mode": "table_points", "min_players": 4}));
        let running = SeasonEvent {
            placements_complete: false,
            ..finished(1, 4, &[a])
        };
        let small = finished(2, 3, &[b]);
        let done = finished(3, 4, &[c]);
        let events = [running, small, done];
        let qualified = qualify(&rules, &table_points, &events, &[], &HashSet::new());
        assert_eq!(qualified, [via_event(c, 3, 1, None)]);
    }

    #[test]
    fn partner_teammates_share_a_place_and_each_takes_a_slot() {
        let [a, b, c, d, e, f] = [1, 2, 3, 4, 5, 6].map(player);
        let event = SeasonEvent {
            placements: vec![(a, 1), (b, 1), (c, 2), (d, 2), (e, 3), (f, 3)],
            ..finished(1, 6, &[])
        };
        let events = [event];
        assert_eq!(
            run(rules(2, true, 0), &events, &[]),
            [via_event(a, 1, 1, None), via_event(b, 1, 1, None)]
        );
        // The slot a declines goes to the next player listed, c.
        assert_eq!(
            run(rules(2, true, 0), &events, &[a]),
            [via_event(b, 1, 1, None), via_event(c, 1, 2, Some(a))]
        );
    }

    proptest! {
        #[test]
        fn nobody_qualifies_twice_or_after_declining_and_slots_are_never_exceeded(
            fields in prop::collection::vec(
                Just((1u128..=10).collect::<Vec<u128>>()).prop_shuffle().prop_flat_map(|ids| {
                    (3usize..=10).prop_map(move |n| ids[..n].to_vec())
                }),
                0..6,
            ),
            declined in prop::collection::hash_set(1u128..=10, 0..4),
            event_slots in 0u32..4,
            pass_down in any::<bool>(),
            season_slots in 0u32..4,
        ) {
            let events: Vec<SeasonEvent> = fields
                .iter()
                .zip(1u128..)
                .map(|(ids, id)| {
                    let players: Vec<PlayerId> = ids.iter().map(|&n| player(n)).collect();
                    finished(id, u32::try_from(players.len()).unwrap(), &players)
                })
                .collect();
            let declined: Vec<PlayerId> = declined.into_iter().map(player).collect();
            let qualified = run(rules(event_slots, pass_down, season_slots), &events, &declined);
            let unique: HashSet<PlayerId> = qualified.iter().map(|q| q.player).collect();
            prop_assert_eq!(unique.len(), qualified.len());
            prop_assert!(qualified.iter().all(|q| !declined.contains(&q.player)));
            for (i, (event, ids)) in events.iter().zip(&fields).enumerate() {
                let from: Vec<&Qualified> = qualified
                    .iter()
                    .filter(|q| matches!(q.via, QualifiedVia::Event { event: e, .. } if e == event.event))
                    .collect();
                prop_assert!(from.len() <= usize::try_from(event_slots).unwrap());
                if !pass_down {
                    prop_assert!(from.iter().all(|q| q.passed_down_from.is_none()));
                }
                // With pass-down, an event fills its slots while it has eligible players.
                if pass_down {
                    let slots = usize::try_from(event_slots).unwrap().min(ids.len());
                    let before: HashSet<EventId> = events[..i].iter().map(|e| e.event).collect();
                    let earlier: HashSet<PlayerId> = qualified
                        .iter()
                        .filter(|q| matches!(q.via, QualifiedVia::Event { event: e, .. } if before.contains(&e)))
                        .map(|q| q.player)
                        .collect();
                    let eligible = ids
                        .iter()
                        .map(|&n| player(n))
                        .filter(|p| !declined.contains(p) && !earlier.contains(p))
                        .count();
                    prop_assert_eq!(from.len(), slots.min(eligible));
                }
            }
            let from_season = qualified.iter().filter(|q| matches!(q.via, QualifiedVia::Season { .. })).count();
            prop_assert!(from_season <= usize::try_from(season_slots).unwrap());
        }
    }
}
