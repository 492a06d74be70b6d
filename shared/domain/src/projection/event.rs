//! An event's projection: during the qualifying rounds, who is already sure of the playoff, who
//! can still make it and who cannot, and what those who can need to be sure.
//!
//! The model: each player still in the event plays every remaining round, and each game gives
//! him anything a legal sheet credits ([`super::game`]): at the least 2 VP with the lowest share
//! a table allows, at the most a win with the highest share. Every player's games are taken
//! apart from everyone else's, so the model holds every real outcome (and some no real table
//! could give, two rivals winning the same game): what is sure in it is sure in play, and what
//! cannot happen in it cannot happen in play.
//!
//! The cut is the playoff's: the top 16 for the semi-finals, or a small field's final
//! ([`crate::playoffs::playoff_plan`] on the players still in). The order is the standings'
//! ([`crate::standings::classic_standings`]): credited VP, VP share, wins, and among players level
//! on all three the lower player id first. That last step is known in advance, so a player level
//! with a rival at the cut is behind him exactly when the standings would list him behind.
//!
//! - Already sure: even with the least from every remaining game, and every rival the most, fewer
//!   than `cut` players finish ahead of him.
//! - Cannot: even with the most from every remaining game, and every rival the least, `cut`
//!   players or more finish ahead of him.
//! - What he needs ([`CutNeed`]): the least credited VP over the remaining games, however split,
//!   that makes him sure whatever else happens (his shares the lowest that VP allows, every rival
//!   the most); and the least credited VP in every remaining game that does.

use std::cmp::Reverse;
use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::game::{Figures, LEAST_CREDIT, Tables};
use crate::PlayerId;
use crate::playoffs::{PlayoffPlan, SEMIFINALISTS, SmallFieldRule, playoff_plan};
use crate::results::WINNING_VP;
use crate::standings::ClassicRow;

/// The playoff outlook of every player of an event's standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EventProjection {
    /// How many players go through to the playoff: 16 to the semi-finals, or the size of a
    /// small field's final (4, or 3).
    pub cut: u32,
    /// The qualifying rounds still to be played.
    pub remaining_rounds: u32,
    /// One for each row of the standings, in their order.
    pub players: Vec<CutProjection>,
}

/// One player's playoff outlook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CutProjection {
    #[serde(rename = "player_id")]
    #[cfg_attr(feature = "openapi", schema(value_type = uuid::Uuid))]
    pub player: PlayerId,
    pub outlook: CutOutlook,
    /// For a player who can still make it: what makes him sure. None for the others, and for a
    /// player no score of his own makes sure (he also needs rivals to fall short).
    pub need: Option<CutNeed>,
}

/// Where a player stands against the playoff cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum CutOutlook {
    /// In the playoff whatever the remaining games give.
    AlreadySure,
    /// In the playoff in some outcome of the remaining games, out in another.
    CanStillMakeIt,
    /// Out whatever the remaining games give; also a player no longer in the event.
    CannotMakeIt,
}

/// What makes a player sure of the playoff, whatever else the remaining games give.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CutNeed {
    /// Credited VP over all the remaining games, however split between them: this many or more
    /// make him sure, one fewer may not.
    pub total_vp: u32,
    /// Credited VP in each remaining game: this many or more in every game make him sure, one
    /// fewer in each may not (10 means winning every game).
    pub vp_each_game: u8,
}

/// A player's place in the standings' order: larger is better; among equal figures the lower
/// player id is ahead.
type Standing = (Figures, Reverse<PlayerId>);

/// The projection of an event's qualifying standings (`standings`, best first, every entrant)
/// with `remaining_rounds` qualifying rounds to play. `still_in` are the players still in the
/// event: only they are seated, and only they can take a place in the playoff (a dropped
/// player's place goes to the next one); the others cannot make it.
///
/// None when the event has no playoff to make (`no_playoff`, or fewer than 3 players still in).
///
/// The field is taken as it stands: a player who drops or enters changes the cut and the
/// tables, and the projection is made again.
pub fn project_event(
    standings: &[ClassicRow],
    still_in: &[PlayerId],
    remaining_rounds: u32,
    small_field: SmallFieldRule,
) -> Option<EventProjection> {
    let still_in: HashSet<PlayerId> = still_in.iter().copied().collect();
    let field: Vec<&ClassicRow> = standings
        .iter()
        .filter(|row| still_in.contains(&row.player))
        .collect();
    let cut = match playoff_plan(field.len(), small_field) {
        PlayoffPlan::SemifinalsAndFinal => SEMIFINALISTS,
        PlayoffPlan::FinalOnly { size } => size,
        PlayoffPlan::None => return None,
    };
    let race = Race::new(&field, remaining_rounds, cut);
    let players = standings
        .iter()
        .map(|row| {
            if still_in.contains(&row.player) {
                race.projection_of(row)
            } else {
                CutProjection {
                    player: row.player,
                    outlook: CutOutlook::CannotMakeIt,
                    need: None,
                }
            }
        })
        .collect();
    Some(EventProjection {
        cut: u32::try_from(cut).unwrap_or(u32::MAX),
        remaining_rounds,
        players,
    })
}

/// The race for the cut: what each player's projection is computed from.
struct Race {
    tables: Tables,
    rounds: u32,
    cut: usize,
    /// What the remaining games add at the most, and at the least.
    most: Figures,
    least: Figures,
    /// Every player's standing with the most from every remaining game, in order.
    highest: Vec<Standing>,
    /// Every player's standing with the least from every remaining game, in order.
    lowest: Vec<Standing>,
    /// For each credited VP total `v` over the remaining games, the least figures that total
    /// can come with (the lowest share, then the fewest wins); none for a total no split gives.
    least_with_total: Vec<Option<Figures>>,
}

impl Race {
    fn new(field: &[&ClassicRow], rounds: u32, cut: usize) -> Race {
        let tables = Tables::of_field(field.len());
        let (most, least) = (
            tables.best_game().times(rounds),
            tables.worst_game().times(rounds),
        );
        let ordered = |added: Figures| {
            let mut standings: Vec<Standing> = field
                .iter()
                .map(|row| standing(figures_now(row) + added, row.player))
                .collect();
            standings.sort_unstable();
            standings
        };
        Race {
            tables,
            rounds,
            cut,
            most,
            least,
            highest: ordered(most),
            lowest: ordered(least),
            least_with_total: least_with_total(tables, rounds),
        }
    }

    fn projection_of(&self, row: &ClassicRow) -> CutProjection {
        let now = figures_now(row);
        let at_best = standing(now + self.most, row.player);
        let at_worst = standing(now + self.least, row.player);
        // Sure with `added` from the remaining games: with every rival at his best, he is in.
        let sure_with = |added: Figures| {
            let mine = standing(now + added, row.player);
            others_ahead(&self.highest, mine, at_best) < self.cut
        };
        let outlook = if sure_with(self.least) {
            CutOutlook::AlreadySure
        } else if others_ahead(&self.lowest, at_best, at_worst) < self.cut {
            CutOutlook::CanStillMakeIt
        } else {
            CutOutlook::CannotMakeIt
        };
        let need = (outlook == CutOutlook::CanStillMakeIt)
            .then(|| {
                let total_vp = self
                    .least_with_total
                    .iter()
                    .zip(0u32..)
                    .find_map(|(least, v)| least.filter(|&f| sure_with(f)).map(|_| v))?;
                let vp_each_game = (LEAST_CREDIT..=WINNING_VP)
                    .find(|&c| sure_with(self.tables.worst_with(c).times(self.rounds)))?;
                Some(CutNeed {
                    total_vp,
                    vp_each_game,
                })
            })
            .flatten();
        CutProjection {
            player: row.player,
            outlook,
            need,
        }
    }
}

fn figures_now(row: &ClassicRow) -> Figures {
    Figures {
        vp: row.vp,
        share: row.vp_share,
        wins: row.wins,
    }
}

fn standing(figures: Figures, player: PlayerId) -> Standing {
    (figures, Reverse(player))
}

/// How many players of `ordered` (ascending) other than this one are ahead of `mine`, given
/// that this player's own entry in `ordered` is `own`.
fn others_ahead(ordered: &[Standing], mine: Standing, own: Standing) -> usize {
    let ahead = ordered.len() - ordered.partition_point(|standing| *standing <= mine);
    ahead - usize::from(own > mine)
}

/// For each credited VP total over `rounds` games (index: the total), the least figures a split
/// of it between the games can give: each game's VP with its lowest share, then the fewest wins.
fn least_with_total(tables: Tables, rounds: u32) -> Vec<Option<Figures>> {
    let most = usize::from(WINNING_VP) * usize::try_from(rounds).unwrap_or(0);
    let mut least: Vec<Option<Figures>> = vec![None; most + 1];
    if let Some(first) = least.first_mut() {
        *first = Some(Figures::default());
    }
    for _ in 0..rounds {
        let mut next: Vec<Option<Figures>> = vec![None; most + 1];
        for (total, so_far) in least.iter().enumerate() {
            let Some(so_far) = so_far else { continue };
            for credited in LEAST_CREDIT..=WINNING_VP {
                let Some(slot) = next.get_mut(total + usize::from(credited)) else {
                    continue;
                };
                let with = *so_far + tables.worst_with(credited);
                if slot.is_none_or(|best| with < best) {
                    *slot = Some(with);
                }
            }
        }
        least = next;
    }
    least
}
