//! What separates two rows of a classic event's standings.

use serde::{Deserialize, Serialize};

use super::{Explanation, Figure, explain};
use crate::standings::ClassicRow;

/// A criterion of a classic event's standings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum EventCriterion {
    /// More credited VP.
    Vp,
    /// A higher sum of VP shares (in percent, exact).
    VpShare,
    /// More games won.
    Wins,
}

/// The criteria of [`crate::standings::classic_standings`], in its order.
pub const EVENT_CRITERIA: [EventCriterion; 3] = [
    EventCriterion::Vp,
    EventCriterion::VpShare,
    EventCriterion::Wins,
];

/// What puts `below` under `above`, two rows of an event's standings in that order.
pub fn explain_event_rows(above: &ClassicRow, below: &ClassicRow) -> Explanation<EventCriterion> {
    // Lazily, criterion by criterion: the exact shares are worked out only when the rows get to
    // them (most rows differ on VP), and they cost most of an explanation.
    explain(EVENT_CRITERIA.into_iter().map(|criterion| {
        let (order, figure_above, figure_below) = match criterion {
            EventCriterion::Vp => (
                below.vp.cmp(&above.vp),
                Figure::Count(above.vp.into()),
                Figure::Count(below.vp.into()),
            ),
            EventCriterion::VpShare => (
                below.vp_share.cmp(&above.vp_share),
                Figure::Exact(above.vp_share.to_rational()),
                Figure::Exact(below.vp_share.to_rational()),
            ),
            EventCriterion::Wins => (
                below.wins.cmp(&above.wins),
                Figure::Count(above.wins.into()),
                Figure::Count(below.wins.into()),
            ),
        };
        (criterion, order, figure_above, figure_below)
    }))
}

/// For each row of an event's standings (best first), what separates it from the row above;
/// none for the first row.
pub fn explain_event_standings(rows: &[ClassicRow]) -> Vec<Option<Explanation<EventCriterion>>> {
    let mut explanations = vec![None];
    explanations.extend(
        rows.windows(2)
            .map(|pair| Some(explain_event_rows(&pair[0], &pair[1]))),
    );
    explanations.truncate(rows.len());
    explanations
}
