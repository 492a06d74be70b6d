//! A season's projection: who has qualified, who can still qualify and who cannot, counting the
//! season's remaining events, each player's best N and the qualification's slots.
//!
//! The model of what is still to come:
//! - Each remaining event ([`RemainingEvent`]) gives each player anything from nothing (he does
//!   not play, or scores nothing) to its most points for one player, and players are taken
//!   apart from each other (the model holds every real outcome, and some no real event gives:
//!   two players first of the same event).
//! - A player's points are his best events as the season counts them (`best_n` and the tier
//!   caps, [`choose_counted`]), so a remaining event can only add to them, by replacing his worst
//!   counted result or filling a free place. Under
//!   [`Eligibility::FirstQualifierOnly`] a player of the table has played his one qualifier, so
//!   remaining events give him nothing.
//! - Players who have not played yet may come, any number of them, each with what the remaining
//!   events can give a newcomer.
//! - A remaining event's `event_slots` may go to any player it counts for.
//! - Players level on points at the end are ranked by tie-breaks the remaining events still
//!   change, so their order is not known in advance: it may go either way, except between two
//!   players whose figures no remaining event can change (under `first_qualifier_only`), who keep
//!   the table's order. With no event left, the table's order is the final one.
//!
//! Then a player has qualified ([`QualificationOutlook::AlreadyQualified`]) when he holds an
//! event's slot, or when, whatever the remaining events give, fewer than `season_slots` players
//! not otherwise qualified (nor declined) can finish ahead of him. He cannot qualify when he
//! declined, or when no remaining event's slot can be his and `season_slots` players or more
//! finish ahead of him whatever happens. The projection assumes `points` ranks first (the
//! default); a season ranking first by something else may end in any order while events remain.

use std::collections::HashSet;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use serde::{Deserialize, Serialize};

use crate::PlayerId;
use crate::season::{
    Eligibility, EventPoints, PlacementPoints, Qualified, QualifiedVia, Scoring,
    SeasonQualification, SeasonRow, TieBreak, choose_counted,
};

/// An event of the season still to be played (or still running, in mode `table_points`: then
/// the table it is projected from leaves it out, and it is a remaining event as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemainingEvent {
    /// The most points the event can give one player.
    pub most_points: BigRational,
    /// The tier its field falls in, when known; none counts it in no tier, the most any tier
    /// allows.
    pub tier: Option<usize>,
}

impl RemainingEvent {
    /// A remaining event under `scoring`, of `field_size` players when known, where a player
    /// plays at most `games` games (qualifying rounds and playoff games). Mode `placement`: first
    /// place's points (of a full field when the size is not known); mode `table_points`: `games`
    /// games at the best place of either table size. None when the event cannot count (a known
    /// field below `min_players`).
    pub fn under(scoring: &Scoring, field_size: Option<u32>, games: u32) -> Option<RemainingEvent> {
        if field_size.is_some_and(|field| field < scoring.min_players) {
            return None;
        }
        let most_points = match &scoring.points {
            EventPoints::Placement(points) => {
                let field = match (points, field_size) {
                    (_, Some(field)) => field,
                    (PlacementPoints::Scaled { full_field, .. }, None) => *full_field,
                    (PlacementPoints::Table(_), None) => 1,
                };
                points.of(1, field.max(1))
            }
            EventPoints::TablePoints(scale) => {
                let best = scale.four.iter().chain(&scale.three).max().copied();
                BigRational::from_integer(BigInt::from(
                    u64::from(best.unwrap_or(0)) * u64::from(games),
                ))
            }
        };
        Some(RemainingEvent {
            most_points,
            tier: field_size.and_then(|field| scoring.tier_of(field)),
        })
    }
}

/// The qualification outlook of every player of a season's table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SeasonProjection {
    /// The events still to be played.
    pub remaining_events: u32,
    /// One for each row of the table, in its order.
    pub players: Vec<QualificationProjection>,
}

/// One player's qualification outlook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QualificationProjection {
    #[serde(rename = "player_id")]
    #[cfg_attr(feature = "openapi", schema(value_type = uuid::Uuid))]
    pub player: PlayerId,
    pub outlook: QualificationOutlook,
}

/// Where a player stands against the season's qualification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum QualificationOutlook {
    /// Qualified whatever the remaining events give: an event's slot, or a season slot nobody
    /// can take from him.
    AlreadyQualified,
    /// Qualified in some outcome of the remaining events, not in another.
    CanStillQualify,
    /// Not qualified whatever the remaining events give; also a player who declined.
    CannotQualify,
}

/// The projection of a season's `standings` (as [`crate::season::season_standings`] gives them)
/// and `qualified` players (as [`crate::season::qualify`] gives them from the same events), with
/// `declined` the players who declined a place and `remaining` the events still to come.
pub fn project_season(
    scoring: &Scoring,
    qualification: &SeasonQualification,
    standings: &[SeasonRow],
    qualified: &[Qualified],
    declined: &HashSet<PlayerId>,
    remaining: &[RemainingEvent],
) -> SeasonProjection {
    let remaining_events = u32::try_from(remaining.len()).unwrap_or(u32::MAX);
    let outlooks: Vec<QualificationOutlook> = if remaining.is_empty() {
        // Nothing left to play: the qualification as it stands is the final one.
        let holders: HashSet<PlayerId> = qualified.iter().map(|q| q.player).collect();
        standings
            .iter()
            .map(|row| {
                if holders.contains(&row.player) {
                    QualificationOutlook::AlreadyQualified
                } else {
                    QualificationOutlook::CannotQualify
                }
            })
            .collect()
    } else {
        let race = Race::new(
            scoring,
            qualification,
            standings,
            qualified,
            declined,
            remaining,
        );
        (0..standings.len()).map(|at| race.outlook(at)).collect()
    };
    SeasonProjection {
        remaining_events,
        players: standings
            .iter()
            .zip(outlooks)
            .map(|(row, outlook)| QualificationProjection {
                player: row.player,
                outlook,
            })
            .collect(),
    }
}

/// The race for the season's slots while events remain.
struct Race<'a> {
    standings: &'a [SeasonRow],
    /// Players holding an event's slot: qualified whatever comes.
    holders: HashSet<PlayerId>,
    declined: &'a HashSet<PlayerId>,
    season_slots: usize,
    /// Whether a remaining event's slots can go to a player of the table.
    event_slots_for_the_table: bool,
    /// Whether the remaining events can change a table player's figures.
    figures_change: bool,
    points_first: bool,
    /// Each row's points now, and the most they can become.
    least: Vec<BigRational>,
    most: Vec<BigRational>,
    /// The most a newcomer can end with.
    newcomer_most: BigRational,
}

impl<'a> Race<'a> {
    fn new(
        scoring: &Scoring,
        qualification: &SeasonQualification,
        standings: &'a [SeasonRow],
        qualified: &[Qualified],
        declined: &'a HashSet<PlayerId>,
        remaining: &[RemainingEvent],
    ) -> Race<'a> {
        // Every player of the table has played a counting event: his qualifier, if only one
        // counts.
        let figures_change = scoring.eligibility == Eligibility::EveryEvent;
        let caps: Vec<u32> = scoring.tiers.iter().map(|tier| tier.max_counted).collect();
        let most_counted = |results: Vec<(BigRational, Option<usize>)>| -> BigRational {
            let (weights, tiers): (Vec<BigRational>, Vec<Option<usize>>) =
                results.into_iter().unzip();
            let counted = choose_counted(&weights, &tiers, scoring.best_n, &caps);
            weights
                .into_iter()
                .zip(counted)
                .filter(|(_, counted)| *counted)
                .map(|(points, _)| points)
                .sum()
        };
        let to_come = || {
            remaining
                .iter()
                .map(|event| (event.most_points.clone(), event.tier))
        };
        let most = standings
            .iter()
            .map(|row| {
                if !figures_change {
                    return row.points.clone();
                }
                let played = row
                    .results
                    .iter()
                    .map(|result| (result.points.clone(), scoring.tier_of(result.field_size)));
                most_counted(played.chain(to_come()).collect())
            })
            .collect();
        let newcomer_most = match scoring.eligibility {
            Eligibility::EveryEvent => most_counted(to_come().collect()),
            // A newcomer's first event is the one that counts: he may pick the richest.
            Eligibility::FirstQualifierOnly => to_come()
                .map(|(points, _)| points)
                .max()
                .unwrap_or_else(BigRational::zero),
        };
        Race {
            standings,
            holders: qualified
                .iter()
                .filter(|q| matches!(q.via, QualifiedVia::Event { .. }))
                .map(|q| q.player)
                .collect(),
            declined,
            season_slots: usize::try_from(qualification.season_slots).unwrap_or(usize::MAX),
            event_slots_for_the_table: qualification.event_slots > 0 && figures_change,
            figures_change,
            points_first: scoring.ranking.first() == Some(&TieBreak::Points),
            least: standings.iter().map(|row| row.points.clone()).collect(),
            most,
            newcomer_most,
        }
    }

    fn outlook(&self, at: usize) -> QualificationOutlook {
        let player = self.standings[at].player;
        if self.holders.contains(&player) {
            return QualificationOutlook::AlreadyQualified;
        }
        if self.declined.contains(&player) {
            return QualificationOutlook::CannotQualify;
        }
        let rivals = || {
            (0..self.standings.len()).filter(move |&other| {
                let rival = self.standings[other].player;
                other != at && !self.holders.contains(&rival) && !self.declined.contains(&rival)
            })
        };
        let newcomers_may_pass = !self.points_first || self.newcomer_most >= self.least[at];
        let may_pass = rivals().filter(|&o| self.may_finish_ahead(o, at)).count();
        if !newcomers_may_pass && may_pass < self.season_slots {
            return QualificationOutlook::AlreadyQualified;
        }
        // A rival a remaining event's slot takes out of the table's race is never needed: such a
        // slot could be this player's own, since the remaining events count for every player
        // of the table or for none.
        let must_pass = rivals().filter(|&o| self.must_finish_ahead(o, at)).count();
        if self.event_slots_for_the_table || must_pass < self.season_slots {
            QualificationOutlook::CanStillQualify
        } else {
            QualificationOutlook::CannotQualify
        }
    }

    /// Whether row `other` may end ahead of row `at` in some outcome.
    fn may_finish_ahead(&self, other: usize, at: usize) -> bool {
        if !self.figures_change {
            return other < at;
        }
        !self.points_first || self.most[other] >= self.least[at]
    }

    /// Whether row `other` ends ahead of row `at` in every outcome.
    fn must_finish_ahead(&self, other: usize, at: usize) -> bool {
        if !self.figures_change {
            return other < at;
        }
        self.points_first && self.least[other] > self.most[at]
    }
}
