//! The draw of a classic round: the field in dense numbers for the planner, and its first
//! planned round back in the caller's numbers with explanations and figures.

use std::collections::HashMap;

use super::explain::{ExplainContext, explain};
use super::round::{ClassicRequest, ClassicRound, DrawnTable};
use super::tally::{EventTally, PositionCounts, ThreePlayerCounts};
use crate::pairing::plan;
use crate::pairing::plan_input::PlanInput;
use crate::seating::{SeatingError, table_sizes};

pub fn draw_classic_round(req: &ClassicRequest) -> Result<ClassicRound, SeatingError> {
    let sizes = table_sizes(req.active.len())?;
    let mut sorted = req.active.to_vec();
    sorted.sort_unstable();
    if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(SeatingError::DuplicatePlayer { player: pair[0] });
    }
    let dense: HashMap<u32, u32> = req.active.iter().copied().zip(0u32..).collect();
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
