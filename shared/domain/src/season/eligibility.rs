//! Which of a season's events count for which player: every event he plays, or (the German
//! championship's rule) only the first counting event he played.

use std::collections::HashMap;

use super::config::Eligibility;
use super::standings::SeasonEvent;
use super::validate::Scoring;
use crate::PlayerId;

/// For each player, the events of a season (by their index in play order) that count for him.
pub(super) struct EventsCounted {
    /// Under [`Eligibility::FirstQualifierOnly`], each player's first counting event; none when
    /// every event counts.
    first: Option<HashMap<PlayerId, usize>>,
}

impl EventsCounted {
    /// Over `events` in play order: a player plays a counting event when its complete placements
    /// list him or one of its games seats him, as the season table scores it.
    pub(super) fn new(scoring: &Scoring, events: &[SeasonEvent]) -> EventsCounted {
        let first = match scoring.eligibility {
            Eligibility::EveryEvent => None,
            Eligibility::FirstQualifierOnly => {
                let mut first = HashMap::new();
                for (index, event) in events.iter().enumerate() {
                    if !scoring.counts(event) {
                        continue;
                    }
                    let placed = event
                        .placements
                        .iter()
                        .filter(|_| event.placements_complete)
                        .map(|&(player, _)| player);
                    let seated = event
                        .games
                        .iter()
                        .flat_map(|game| game.seats.iter().map(|seat| seat.player));
                    for player in placed.chain(seated) {
                        first.entry(player).or_insert(index);
                    }
                }
                Some(first)
            }
        };
        EventsCounted { first }
    }

    /// Whether event `index` of the season counts for `player`.
    pub(super) fn counts_for(&self, player: PlayerId, index: usize) -> bool {
        self.first
            .as_ref()
            .is_none_or(|first| first.get(&player) == Some(&index))
    }
}
