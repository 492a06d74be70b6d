//! Why a drawn table was formed: the repeats, keep-apart breaks, table of 3 and repeated
//! positions it had to accept, in figures and in sentences.

use std::collections::HashMap;

use super::round::{RepeatedPair, RepeatedPosition, TableExplanation, ThreePlayerTable};
use super::tally::{EventTally, PositionCounts, ThreePlayerCounts, ordered};
use crate::seating::SEAT_ORDER;

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

pub(super) struct ExplainContext<'a> {
    pub(super) event: &'a EventTally,
    pub(super) counts: &'a ThreePlayerCounts,
    pub(super) dense: &'a HashMap<u32, u32>,
    pub(super) positions: &'a PositionCounts,
    pub(super) tables_of_three: usize,
    pub(super) field: usize,
}

pub(super) fn explain(players: &[u32], context: &ExplainContext) -> TableExplanation {
    let mut explanation = TableExplanation::default();
    let index = |player: u32| context.dense[&player] as usize;
    for (i, &a) in players.iter().enumerate() {
        for &b in &players[i + 1..] {
            let meetings = context.event.meetings(a, b);
            if meetings > 1 {
                explanation.repeated_pairs.push(RepeatedPair {
                    players: (a, b),
                    meetings,
                });
                explanation.notes.push(format!(
                    "Players {a} and {b} meet for the {} time: the search over the remaining \
                     rounds found no draw with fewer repeated meetings.",
                    ordinal(meetings)
                ));
            }
            if context.event.kept_apart.contains(&ordered(a, b)) {
                explanation.keep_apart_broken.push((a, b));
                explanation.notes.push(format!(
                    "Players {a} and {b} are to be kept apart but share this table: every draw \
                     found that separates them repeats more meetings."
                ));
            }
        }
    }
    if explanation.repeated_pairs.is_empty() {
        explanation
            .notes
            .push("No two players at this table have met before.".to_owned());
    }
    if players.len() == 3 {
        let games_before: Vec<(u32, u32)> = players
            .iter()
            .map(|&p| (p, context.counts.effective[index(p)]))
            .collect();
        let fewest_in_field = context.counts.effective.iter().copied().min().unwrap_or(0);
        explanation.notes.push(format!(
            "A table of 3: {} players need {} table(s) of 3. These players had {} 3-player \
             game(s) before this round (the field's fewest: {fewest_in_field}); 3-player games \
             are spread evenly before anything else.",
            context.field,
            context.tables_of_three,
            games_before
                .iter()
                .map(|(_, games)| games.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        ));
        explanation.three_player = Some(ThreePlayerTable {
            tables_of_three: context.tables_of_three,
            games_before,
            fewest_in_field,
        });
    }
    for ((position, &player), place) in players.iter().enumerate().zip(1u32..) {
        let times_before = context.positions.times[index(player)][position];
        if times_before > 0 {
            let seat = SEAT_ORDER[position];
            explanation.repeated_positions.push(RepeatedPosition {
                player,
                position: seat,
                times_before,
            });
            explanation.notes.push(format!(
                "Player {player} plays {} again (seat {seat:?}, {times_before} time(s) before): \
                 no seat order of this table gives everyone a new position.",
                ordinal(place)
            ));
        }
    }
    explanation
}
