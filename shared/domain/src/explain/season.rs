//! What separates two rows of a season's table, in the season's own tie-break order.

use num_bigint::BigInt;
use num_rational::BigRational;

use super::{Explanation, Figure, explain};
use crate::season::{SeasonRow, TieBreak, compare_on};

/// What puts `below` under `above`, two rows of a season's table in that order, ranked by
/// `ranking` (the validated [`crate::season::Scoring::ranking`]).
pub fn explain_season_rows(
    ranking: &[TieBreak],
    above: &SeasonRow,
    below: &SeasonRow,
) -> Explanation<TieBreak> {
    explain(ranking.iter().map(|&tie_break| {
        (
            tie_break,
            compare_on(tie_break, above, below),
            figure(tie_break, above),
            figure(tie_break, below),
        )
    }))
}

/// For each row of a season's table (best first), what separates it from the row above; none
/// for the first row.
pub fn explain_season_standings(
    ranking: &[TieBreak],
    rows: &[SeasonRow],
) -> Vec<Option<Explanation<TieBreak>>> {
    let mut explanations = vec![None];
    explanations.extend(
        rows.windows(2)
            .map(|pair| Some(explain_season_rows(ranking, &pair[0], &pair[1]))),
    );
    explanations.truncate(rows.len());
    explanations
}

/// A row's figure on one tie-break, as the season's table shows it: the VP share in percent.
fn figure(tie_break: TieBreak, row: &SeasonRow) -> Figure {
    match tie_break {
        TieBreak::Points => Figure::Exact(row.points.clone()),
        TieBreak::Wins => Figure::Count(row.wins.into()),
        TieBreak::Vp | TieBreak::VpCappedAtWinningTotal => Figure::Count(row.vp),
        TieBreak::VpShare => {
            Figure::Exact(&row.vp_share * BigRational::from_integer(BigInt::from(100)))
        }
        TieBreak::BestPlace => Figure::Place(row.best_place),
        TieBreak::FewerEvents => Figure::Count(row.events_played.into()),
        TieBreak::TablePlaces => Figure::Places(row.table_places),
    }
}
