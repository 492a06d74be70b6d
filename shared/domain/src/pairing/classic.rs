//! Qualifying rounds of a classic event: tables of 4, and of 3 as the head count forces.
//!
//! Hard rules (never broken): every active player is seated exactly once; there are exactly
//! `(4 - n mod 4) mod 4` tables of 3; after every round the 3-player games of any two players
//! differ by at most one. A player who missed rounds (late entry, return after a drop) counts
//! as having at least one 3-player game fewer than the most any active player has had: they are
//! first in line for a table of 3 together with the least-served players, and the rule stays
//! satisfiable. Among players who have played every round the raw counts stay within one.
//!
//! Then, in this order: fewest repeated meetings over the event (a pair meeting m times counts
//! m - 1), the sum of (m - 1)², a keep-apart pair sharing a table in round 1, play-order
//! positions repeated, keep-apart pairs sharing a table later. `RoundFigures::cost` weighs these
//! as tiers (see the `WEIGHT_*` constants); the round drawn is the first of a plan of all
//! remaining rounds minimised together, so each call re-plans from the actual history.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::seating::{SEAT_ORDER, SeatPosition, SeatingError, table_sizes};

use super::plan::{
    self, PlanInput, WEIGHT_KEEP_APART_FIRST_ROUND, WEIGHT_KEEP_APART_LATER,
    WEIGHT_POSITION_REPEAT, WEIGHT_REPEAT, WEIGHT_REPEAT_SQUARED,
};

/// The caller's stable number for a player within an event.
pub type Seat = u32;

pub struct ClassicRequest<'a> {
    /// Players to seat this round (dropped ones are absent; late entries simply appear).
    pub active: &'a [u32],
    /// Earlier qualifying rounds: tables, each in play order.
    pub history: &'a [Vec<Vec<u32>>],
    /// Qualifying rounds planned for the event, for look-ahead.
    pub total_rounds: usize,
    /// The TD's "never at one table" pairs (family, club).
    pub keep_apart: &'a [(u32, u32)],
    pub seed: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawnTable {
    /// Play order: seats N, E, S, W.
    pub players: Vec<u32>,
    pub explanation: TableExplanation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepeatedPair {
    pub players: (u32, u32),
    /// Times the two have shared a table, this round included.
    pub meetings: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreePlayerTable {
    /// Tables of 3 the head count forces this round.
    pub tables_of_three: usize,
    /// Each player's 3-player games before this round, as counted for the evenness rule.
    pub games_before: Vec<(u32, u32)>,
    /// The fewest 3-player games any active player had before this round.
    pub fewest_in_field: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepeatedPosition {
    pub player: u32,
    pub position: SeatPosition,
    /// Times the player sat in this position in earlier rounds.
    pub times_before: u32,
}

/// Why a table was formed: the constraints it met and the ones it had to break.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TableExplanation {
    pub repeated_pairs: Vec<RepeatedPair>,
    pub keep_apart_broken: Vec<(u32, u32)>,
    pub three_player: Option<ThreePlayerTable>,
    pub repeated_positions: Vec<RepeatedPosition>,
    /// The same in sentences, for the TD and the players.
    pub notes: Vec<String>,
}

/// The engine's figures for the event so far, this round included.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RoundFigures {
    /// Sum over pairs of (m - 1), m = times the pair has shared a table.
    pub repeat_meetings: u32,
    /// Sum over pairs of (m - 1)².
    pub repeat_cost_squared: u32,
    /// Most minus fewest 3-player games among players seated in every round so far.
    pub three_player_spread: u32,
    /// Times a keep-apart pair shared a table.
    pub keep_apart_broken: u32,
    /// Sum over players and play-order positions of (times in that position - 1).
    pub position_repeats: u32,
    /// The objective: keep-apart breaks in round 1, repeats, squared repeats, position
    /// repeats and later keep-apart breaks, weighted by the `WEIGHT_*` tiers.
    pub cost: u64,
    /// Rounds optimised together for this draw (this one and the rest of the event).
    pub planned_rounds: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassicRound {
    pub tables: Vec<DrawnTable>,
    pub figures: RoundFigures,
}

pub fn draw_classic_round(req: &ClassicRequest) -> Result<ClassicRound, SeatingError> {
    let sizes = table_sizes(req.active.len())?;
    let mut sorted = req.active.to_vec();
    sorted.sort_unstable();
    if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(SeatingError::DuplicatePlayer { player: pair[0] });
    }
    let dense: HashMap<u32, u32> = req
        .active
        .iter()
        .enumerate()
        .map(|(index, &player)| (player, index as u32))
        .collect();
    let n = req.active.len();

    let history: Vec<Vec<Vec<u32>>> = req
        .history
        .iter()
        .map(|tables| {
            tables
                .iter()
                .map(|table| table.iter().filter_map(|p| dense.get(p).copied()).collect())
                .collect()
        })
        .collect();
    let counts = ThreePlayerCounts::of(req, &dense);

    let mut keep_apart = vec![Vec::new(); n];
    for &(a, b) in req.keep_apart {
        if let (Some(&x), Some(&y)) = (dense.get(&a), dense.get(&b))
            && x != y
        {
            keep_apart[x as usize].push(y);
            keep_apart[y as usize].push(x);
        }
    }

    let positions = PositionCounts::of(req.history, &dense);
    let plan_rounds = req.total_rounds.saturating_sub(req.history.len()).max(1);
    let input = PlanInput {
        players: n,
        sizes,
        history,
        plan_rounds,
        three_player_games: counts.effective.clone(),
        positions_before: positions.times.clone(),
        keep_apart,
        seed: req.seed,
    };
    let plan = plan::plan_rounds(&input);
    // The planner places players in play order too: a table's slot order is its seat order.
    let tables: Vec<Vec<u32>> = plan.rounds[0]
        .iter()
        .map(|table| table.iter().map(|&p| req.active[p as usize]).collect())
        .collect();

    let rounds = req
        .history
        .iter()
        .map(Vec::as_slice)
        .chain([tables.as_slice()]);
    let event = EventTally::of(rounds, req.keep_apart);
    let context = ExplainContext {
        event: &event,
        counts: &counts,
        dense: &dense,
        positions: &positions,
        tables_of_three: sizes.threes,
        field: n,
    };
    let drawn = tables
        .iter()
        .map(|players| DrawnTable {
            players: players.clone(),
            explanation: explain(players, &context),
        })
        .collect();
    let mut figures = event.figures();
    figures.planned_rounds = plan_rounds;
    Ok(ClassicRound {
        tables: drawn,
        figures,
    })
}

/// 3-player games per active player before this round, raw and as the evenness rule counts them.
struct ThreePlayerCounts {
    effective: Vec<u32>,
}

impl ThreePlayerCounts {
    fn of(req: &ClassicRequest, dense: &HashMap<u32, u32>) -> ThreePlayerCounts {
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
struct PositionCounts {
    times: Vec<[u32; 4]>,
}

impl PositionCounts {
    fn of(history: &[Vec<Vec<u32>>], dense: &HashMap<u32, u32>) -> PositionCounts {
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
struct EventTally {
    meetings: HashMap<(u32, u32), u32>,
    kept_apart: HashSet<(u32, u32)>,
    keep_apart_first_round: u32,
    keep_apart_later: u32,
    rounds: usize,
    /// Per player: rounds played, 3-player games, times in each play-order position.
    seats: HashMap<u32, (u32, u32, [u32; 4])>,
}

fn ordered(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

impl EventTally {
    fn of<'r>(
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

    fn meetings(&self, a: u32, b: u32) -> u32 {
        self.meetings.get(&ordered(a, b)).copied().unwrap_or(0)
    }

    fn figures(&self) -> RoundFigures {
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

struct ExplainContext<'a> {
    event: &'a EventTally,
    counts: &'a ThreePlayerCounts,
    dense: &'a HashMap<u32, u32>,
    positions: &'a PositionCounts,
    tables_of_three: usize,
    field: usize,
}

fn explain(players: &[u32], context: &ExplainContext) -> TableExplanation {
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
    for (position, &player) in players.iter().enumerate() {
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
                ordinal(position as u32 + 1)
            ));
        }
    }
    explanation
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::exact::fewest_repeats_in_three_rounds;
    use proptest::prelude::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn draw(
        active: &[u32],
        history: &[Vec<Vec<u32>>],
        total_rounds: usize,
        keep_apart: &[(u32, u32)],
        seed: u64,
    ) -> ClassicRound {
        draw_classic_round(&ClassicRequest {
            active,
            history,
            total_rounds,
            keep_apart,
            seed,
        })
        .expect("a seatable field")
    }

    /// Every round of an event with a fixed field, drawn one call at a time.
    fn event(players: usize, rounds: usize, seed: u64) -> Vec<Vec<Vec<u32>>> {
        let active: Vec<u32> = (0..players as u32).collect();
        let mut history = Vec::new();
        for round in 0..rounds {
            let drawn = draw(&active, &history, rounds, &[], seed + round as u64);
            history.push(drawn.tables.into_iter().map(|t| t.players).collect());
        }
        history
    }

    fn three_player_games(history: &[Vec<Vec<u32>>], player: u32) -> u32 {
        history
            .iter()
            .flatten()
            .filter(|table| table.len() == 3 && table.contains(&player))
            .count() as u32
    }

    fn check_hard_rules(active: &[u32], history: &[Vec<Vec<u32>>], drawn: &ClassicRound) {
        let mut seated: Vec<u32> = drawn
            .tables
            .iter()
            .flat_map(|t| t.players.clone())
            .collect();
        seated.sort_unstable();
        let mut expected = active.to_vec();
        expected.sort_unstable();
        assert_eq!(seated, expected, "everyone seated exactly once");
        let threes = drawn.tables.iter().filter(|t| t.players.len() == 3).count();
        assert_eq!(
            threes,
            (4 - active.len() % 4) % 4,
            "only the forced tables of 3"
        );
        assert!(
            drawn
                .tables
                .iter()
                .all(|t| matches!(t.players.len(), 3 | 4))
        );
        // Evenness as the rule counts it: a player who missed rounds counts at least one
        // fewer than the most; after the round no two active players differ by more than one.
        let before: Vec<u32> = active
            .iter()
            .map(|&p| three_player_games(history, p))
            .collect();
        let floor = before.iter().max().copied().unwrap_or(0).saturating_sub(1);
        let after: Vec<u32> = active
            .iter()
            .zip(&before)
            .map(|(&p, &games)| {
                let at_three = drawn
                    .tables
                    .iter()
                    .any(|t| t.players.len() == 3 && t.players.contains(&p));
                games.max(floor) + u32::from(at_three)
            })
            .collect();
        let spread = after.iter().max().unwrap() - after.iter().min().unwrap();
        assert!(spread <= 1, "3-player games spread {spread}");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

        #[test]
        fn hard_rules_hold_with_drops_and_late_entries(
            players in 3usize..=500,
            rounds in 1usize..=4,
            seed in any::<u64>(),
        ) {
            prop_assume!(players != 5);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut active: Vec<u32> = (0..players as u32).collect();
            let mut next_number = players as u32;
            let mut history: Vec<Vec<Vec<u32>>> = Vec::new();
            for round in 0..rounds {
                if round > 0 {
                    let drops = rng.random_range(0..=active.len() / 10);
                    active.shuffle(&mut rng);
                    active.truncate((active.len() - drops).max(3));
                    for _ in 0..rng.random_range(0..=3) {
                        active.push(next_number);
                        next_number += 1;
                    }
                    if active.len() == 5 {
                        active.push(next_number);
                        next_number += 1;
                    }
                }
                let drawn = draw(&active, &history, rounds, &[], seed ^ round as u64);
                check_hard_rules(&active, &history, &drawn);
                let players_who_played_every_round: Vec<u32> = active
                    .iter()
                    .copied()
                    .filter(|p| history.iter().all(|r| r.iter().any(|t| t.contains(p))))
                    .collect();
                history.push(drawn.tables.iter().map(|t| t.players.clone()).collect());
                let counts: Vec<u32> = players_who_played_every_round
                    .iter()
                    .map(|&p| three_player_games(&history, p))
                    .collect();
                if let (Some(most), Some(fewest)) = (counts.iter().max(), counts.iter().min()) {
                    prop_assert!(most - fewest <= 1);
                    prop_assert_eq!(drawn.figures.three_player_spread, most - fewest);
                }
            }
        }

        #[test]
        fn the_same_seed_and_field_give_the_same_round(
            players in 3usize..=200,
            seed in any::<u64>(),
        ) {
            prop_assume!(players != 5);
            let active: Vec<u32> = (0..players as u32).map(|p| p * 7 + 3).collect();
            let first = draw(&active, &[], 3, &[(3, 10)], seed);
            let history = vec![first.tables.iter().map(|t| t.players.clone()).collect()];
            prop_assert_eq!(&first, &draw(&active, &[], 3, &[(3, 10)], seed));
            prop_assert_eq!(
                draw(&active, &history, 3, &[], seed + 1),
                draw(&active, &history, 3, &[], seed + 1)
            );
        }
    }

    #[test]
    fn fields_that_cannot_be_seated_or_list_a_player_twice_are_refused() {
        let request = |active: &'static [u32]| ClassicRequest {
            active,
            history: &[],
            total_rounds: 3,
            keep_apart: &[],
            seed: 1,
        };
        assert_eq!(
            draw_classic_round(&request(&[1, 2, 3, 4, 5])).unwrap_err(),
            SeatingError::FieldOfFive
        );
        assert_eq!(
            draw_classic_round(&request(&[1, 2, 3, 4, 2, 6])).unwrap_err(),
            SeatingError::DuplicatePlayer { player: 2 }
        );
    }

    #[test]
    fn thirty_seven_players_play_three_rounds_without_meeting_anyone_twice() {
        for seed in 0..3 {
            let schedule = event(37, 3, seed);
            let figures = schedule_figures(&schedule, &[]);
            assert_eq!(figures.repeat_meetings, 0);
            assert_eq!(figures.three_player_spread, 1);
        }
    }

    #[test]
    fn small_fields_reach_the_exact_minimum_of_repeated_meetings() {
        for players in [3usize, 4, 6, 7, 8, 9, 10] {
            let schedule = event(players, 3, 11);
            let figures = schedule_figures(&schedule, &[]);
            assert_eq!(
                (figures.repeat_meetings, figures.repeat_cost_squared),
                fewest_repeats_in_three_rounds(players),
                "{players} players"
            );
        }
    }

    #[test]
    fn fourteen_to_sixteen_players_reach_the_issue_minimum() {
        // N = 14 needs 4 repeats (the 3-player rule forces them), 15 and 16 none.
        for (players, fewest) in [(14, 4), (15, 0), (16, 0)] {
            let figures = schedule_figures(&event(players, 3, 5), &[]);
            assert_eq!(figures.repeat_meetings, fewest, "{players} players");
        }
    }

    #[test]
    fn eighteen_players_play_four_rounds_without_a_repeat() {
        // Two tables of 3 a round: the evenness rule ties who plays them in rounds 2 and 3, which
        // the plain hill climber could not untangle; the tabu search with restarts does.
        let figures = schedule_figures(&event(18, 4, 2), &[]);
        assert_eq!(figures.repeat_meetings, 0);
        assert!(figures.three_player_spread <= 1);
    }

    #[test]
    fn seventeen_players_reach_the_fewest_repeats_the_three_player_rule_allows() {
        // Round 2 must seat the 8 players of round 1's two tables of 4 at the three tables of 3
        // (two pairs meet again) and the 8 others at two tables of 4, which holds 3 players of
        // each of two round-1 tables of 3 (two more pairs): 4 is the least over 3 rounds.
        let figures = schedule_figures(&event(17, 3, 1), &[]);
        assert_eq!(figures.repeat_meetings, 4);
    }

    #[test]
    fn sixteen_players_meet_everyone_exactly_once_in_five_rounds() {
        let schedule = event(16, 5, 3);
        let figures = schedule_figures(&schedule, &[]);
        assert_eq!(figures.repeat_meetings, 0);
        let pairs: HashSet<(u32, u32)> = schedule
            .iter()
            .flatten()
            .flat_map(|t| {
                t.iter()
                    .enumerate()
                    .flat_map(move |(i, &a)| t[i + 1..].iter().map(move |&b| ordered(a, b)))
            })
            .collect();
        assert_eq!(pairs.len(), 16 * 15 / 2);
    }

    #[test]
    fn players_change_play_order_position_while_they_can() {
        for players in [16usize, 100, 1000] {
            let figures = schedule_figures(&event(players, 4, 9), &[]);
            assert_eq!(figures.position_repeats, 0, "{players} players");
        }
    }

    #[test]
    fn thirty_seven_players_repeat_a_position_only_as_often_as_the_fourth_seats_force() {
        // 7 tables of 4 and 3 of 3 a round; 36 players play one 3-player game in 4 rounds. To
        // avoid a repeat a player must sit 4th once, but 4 rounds have only 7 * 4 = 28 fourth
        // seats for 37 players: at least 9 repeats, which the engine reaches.
        for seed in 1..=3 {
            let figures = schedule_figures(&event(37, 4, seed), &[]);
            assert_eq!(figures.repeat_meetings, 0);
            assert_eq!(figures.position_repeats, 9, "seed {seed}");
        }
    }

    #[test]
    fn twenty_eight_players_meet_everyone_exactly_once_in_nine_rounds() {
        let schedule = event(28, 9, 4);
        let figures = schedule_figures(&schedule, &[]);
        assert_eq!(figures.repeat_meetings, 0);
        // 9 seats in 4 positions: at least 5 repeats each, reached when everyone has all four.
        assert_eq!(figures.position_repeats, 28 * 5);
    }

    #[test]
    fn twenty_four_players_play_seven_rounds_without_a_repeat() {
        let schedule = event(24, 7, 6);
        assert_eq!(schedule_figures(&schedule, &[]).repeat_meetings, 0);
    }

    #[test]
    fn keep_apart_pairs_never_share_a_table_in_round_one_and_not_later_when_avoidable() {
        let keep_apart: Vec<(u32, u32)> = vec![(0, 1), (1, 2), (0, 2), (5, 9), (20, 21)];
        let active: Vec<u32> = (0..24).collect();
        let mut history = Vec::new();
        for round in 0..3 {
            let drawn = draw(&active, &history, 3, &keep_apart, 40 + round);
            for table in &drawn.tables {
                assert!(table.explanation.keep_apart_broken.is_empty());
            }
            history.push(drawn.tables.into_iter().map(|t| t.players).collect());
        }
        let figures = schedule_figures(&history, &keep_apart);
        assert_eq!(figures.keep_apart_broken, 0);
        assert_eq!(figures.repeat_meetings, 0);
    }

    #[test]
    fn a_keep_apart_pair_is_broken_in_round_one_only_if_no_draw_separates_them() {
        // Four players sit at one table: the pair cannot be separated, and the table says so.
        let drawn = draw(&[1, 2, 3, 4], &[], 1, &[(1, 4)], 1);
        assert_eq!(drawn.tables[0].explanation.keep_apart_broken.len(), 1);
        assert_eq!(drawn.figures.keep_apart_broken, 1);
    }

    #[test]
    fn explanations_name_every_repeat_and_why_a_table_has_three_players() {
        let schedule = event(10, 3, 2);
        let active: Vec<u32> = (0..10).collect();
        let last = draw(&active, &schedule[..2], 3, &[], 2 + 2);
        let all: Vec<Vec<Vec<u32>>> = schedule[..2]
            .iter()
            .cloned()
            .chain([last.tables.iter().map(|t| t.players.clone()).collect()])
            .collect();
        let tally = EventTally::of(all.iter().map(Vec::as_slice), &[]);
        for table in &last.tables {
            let p = &table.players;
            let mut expected = Vec::new();
            for (i, &a) in p.iter().enumerate() {
                for &b in &p[i + 1..] {
                    if tally.meetings(a, b) > 1 {
                        expected.push((a, b, tally.meetings(a, b)));
                    }
                }
            }
            let listed: Vec<(u32, u32, u32)> = table
                .explanation
                .repeated_pairs
                .iter()
                .map(|r| (r.players.0, r.players.1, r.meetings))
                .collect();
            assert_eq!(listed, expected);
            assert_eq!(table.explanation.three_player.is_some(), p.len() == 3);
            if let Some(three) = &table.explanation.three_player {
                assert_eq!(three.tables_of_three, 2);
                assert_eq!(three.games_before.len(), 3);
                assert!(
                    three
                        .games_before
                        .iter()
                        .all(|&(_, g)| g <= three.fewest_in_field + 1)
                );
            }
            assert!(!table.explanation.notes.is_empty());
        }
        assert_eq!(
            last.figures.repeat_meetings,
            tally.figures().repeat_meetings
        );
        let json = serde_json::to_value(&last.tables[0].explanation).unwrap();
        assert!(json["notes"].is_array());
    }

    #[test]
    fn a_late_entrant_joins_the_players_with_the_fewest_three_player_games() {
        // 7 players: one table of 3 a round. After two rounds six players have had one 3-player
        // game; the late entrant (counted as one fewer than the most) is first in line with the
        // seventh regular for the single table of 3.
        let regulars: Vec<u32> = (0..7).collect();
        let schedule = event(7, 2, 4);
        let fewest: Vec<u32> = regulars
            .iter()
            .copied()
            .filter(|&p| three_player_games(&schedule, p) == 0)
            .collect();
        let mut active = regulars.clone();
        active.push(99);
        active.push(100);
        active.retain(|&p| p != fewest.first().copied().unwrap_or(u32::MAX) || fewest.len() > 1);
        let drawn = draw(&active, &schedule, 3, &[], 8);
        check_hard_rules(&active, &schedule, &drawn);
    }

    #[test]
    fn a_dropped_player_leads_to_a_new_plan_without_repeats() {
        let mut active: Vec<u32> = (0..37).collect();
        let mut history = Vec::new();
        for round in 0..3 {
            if round == 1 {
                active.retain(|&p| p != 5);
            }
            let drawn = draw(&active, &history, 3, &[], 70 + round);
            check_hard_rules(&active, &history, &drawn);
            history.push(drawn.tables.into_iter().map(|t| t.players).collect());
        }
        assert_eq!(schedule_figures(&history, &[]).repeat_meetings, 0);
    }
}
