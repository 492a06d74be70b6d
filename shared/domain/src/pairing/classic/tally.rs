//! Counts over a classic event: each player's 3-player games and positions before the round,
//! and the meetings, keep-apart breaks and figures of a whole schedule.

use std::collections::{HashMap, HashSet};

use super::round::{ClassicRequest, RoundFigures};
use crate::pairing::plan::{
    WEIGHT_KEEP_APART_FIRST_ROUND, WEIGHT_KEEP_APART_LATER, WEIGHT_POSITION_REPEAT, WEIGHT_REPEAT,
    WEIGHT_REPEAT_SQUARED,
};

/// 3-player games per active player before this round, raw and as the evenness rule counts them.
pub(super) struct ThreePlayerCounts {
    pub(super) effective: Vec<u32>,
}

impl ThreePlayerCounts {
    pub(super) fn of(req: &ClassicRequest, dense: &HashMap<u32, u32>) -> ThreePlayerCounts {
        let mut raw = vec![0u32; req.active.len()];
        for tables in req.history {
            for table in tables.iter().filter(|table| table.len() == 3) {
                for player in table {
                    if let Some(&index) = dense.get(player) {
                        raw[index as usize] += 1;
                    }
                }
            }
        }
        let floor = raw.iter().max().copied().unwrap_or(0).saturating_sub(1);
        ThreePlayerCounts {
            effective: raw.iter().map(|&count| count.max(floor)).collect(),
        }
    }
}

/// Times each active player sat in each play-order position in earlier rounds.
pub(super) struct PositionCounts {
    pub(super) times: Vec<[u32; 4]>,
}

impl PositionCounts {
    pub(super) fn of(history: &[Vec<Vec<u32>>], dense: &HashMap<u32, u32>) -> PositionCounts {
        let mut times = vec![[0u32; 4]; dense.len()];
        for table in history.iter().flatten() {
            for (position, player) in table.iter().enumerate().take(4) {
                if let Some(&index) = dense.get(player) {
                    times[index as usize][position] += 1;
                }
            }
        }
        PositionCounts { times }
    }
}

/// Meetings, keep-apart breaks, 3-player games and positions over a schedule.
pub(super) struct EventTally {
    meetings: HashMap<(u32, u32), u32>,
    pub(super) kept_apart: HashSet<(u32, u32)>,
    keep_apart_first_round: u32,
    keep_apart_later: u32,
    rounds: usize,
    /// Per player: rounds played, 3-player games, times in each play-order position.
    seats: HashMap<u32, (u32, u32, [u32; 4])>,
}

pub(super) fn ordered(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

impl EventTally {
    pub(super) fn of<'r>(
        rounds: impl Iterator<Item = &'r [Vec<u32>]>,
        keep_apart: &[(u32, u32)],
    ) -> EventTally {
        let mut tally = EventTally {
            meetings: HashMap::new(),
            kept_apart: keep_apart
                .iter()
                .map(|&(a, b)| ordered(a, b))
                .filter(|(a, b)| a != b)
                .collect(),
            keep_apart_first_round: 0,
            keep_apart_later: 0,
            rounds: 0,
            seats: HashMap::new(),
        };
        for (round, tables) in rounds.enumerate() {
            tally.rounds += 1;
            for table in tables {
                for (position, &player) in table.iter().enumerate() {
                    let seat = tally.seats.entry(player).or_default();
                    seat.0 += 1;
                    seat.1 += u32::from(table.len() == 3);
                    if let Some(times) = seat.2.get_mut(position) {
                        *times += 1;
                    }
                }
                for (i, &a) in table.iter().enumerate() {
                    for &b in &table[i + 1..] {
                        let pair = ordered(a, b);
                        *tally.meetings.entry(pair).or_default() += 1;
                        if tally.kept_apart.contains(&pair) {
                            if round == 0 {
                                tally.keep_apart_first_round += 1;
                            } else {
                                tally.keep_apart_later += 1;
                            }
                        }
                    }
                }
            }
        }
        tally
    }

    pub(super) fn meetings(&self, a: u32, b: u32) -> u32 {
        self.meetings.get(&ordered(a, b)).copied().unwrap_or(0)
    }

    pub(super) fn figures(&self) -> RoundFigures {
        let repeat_meetings: u32 = self.meetings.values().map(|&m| m - 1).sum();
        let repeat_cost_squared: u32 = self.meetings.values().map(|&m| (m - 1) * (m - 1)).sum();
        let regulars = self
            .seats
            .values()
            .filter(|seat| seat.0 as usize == self.rounds)
            .map(|seat| seat.1);
        let (fewest, most) = regulars.fold((u32::MAX, 0), |(lo, hi), c| (lo.min(c), hi.max(c)));
        let three_player_spread = most.saturating_sub(fewest);
        let position_repeats: u32 = self
            .seats
            .values()
            .flat_map(|seat| seat.2)
            .map(|times| times.saturating_sub(1))
            .sum();
        let keep_apart_broken = self.keep_apart_first_round + self.keep_apart_later;
        let cost = WEIGHT_KEEP_APART_FIRST_ROUND * u64::from(self.keep_apart_first_round)
            + WEIGHT_REPEAT * u64::from(repeat_meetings)
            + WEIGHT_REPEAT_SQUARED * u64::from(repeat_cost_squared)
            + WEIGHT_POSITION_REPEAT * u64::from(position_repeats)
            + WEIGHT_KEEP_APART_LATER * u64::from(self.keep_apart_later);
        RoundFigures {
            repeat_meetings,
            repeat_cost_squared,
            three_player_spread,
            keep_apart_broken,
            position_repeats,
            cost,
            planned_rounds: 0,
        }
    }
}

/// The figures of a whole schedule (rounds of tables in play order), as `draw_classic_round`
/// reports them after its last round. `planned_rounds` is 0.
pub fn schedule_figures(rounds: &[Vec<Vec<u32>>], keep_apart: &[(u32, u32)]) -> RoundFigures {
    EventTally::of(rounds.iter().map(Vec::as_slice), keep_apart).figures()
}
