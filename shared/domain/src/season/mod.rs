//! Seasons (issue 8): how the events of a season score for it, the season table, and who
//! qualifies from it. Pure functions; the services store the configuration as the API sends it
//! ([`SeasonScoring`], [`SeasonQualification`]), validate it, and compute from what they hold.
//!
//! - `points`: the two scoring modes, `placement` (an event scores by its final places) and
//!   `table_points` (every game scores by finishing position).
//! - `config`: the scoring and qualification as the API receives them.
//! - `validate`: their checks, every broken rule at once, and the validated [`Scoring`].
//! - `standings`: the season table ([`season_standings`]).
//! - `qualification`: who qualifies ([`qualify`]).
//! - `membership`: which events a season may hold ([`join_refusals`]) and who may decline a
//!   place ([`may_decline`]).

mod config;
mod eligibility;
mod membership;
mod points;
mod qualification;
mod standings;
mod validate;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod german_tests;
#[cfg(test)]
mod tests;

pub use config::{
    DEFAULT_TIE_BREAKS, Eligibility, ScaledPoints, ScoringMode, SeasonQualification, SeasonScoring,
    TieBreak, Tier, default_tie_breaks,
};
pub use membership::{
    Decliner, EventScope, JoinRefusal, RegionId, SeasonEndsBeforeStart, SeasonScope, join_refusals,
    may_decline, season_days,
};
pub use points::{PlacementPoints, TablePoints};
pub use qualification::{Qualified, QualifiedVia, qualify};
pub(crate) use standings::compare_on;
pub use standings::{
    EventId, EventResult, SeasonEvent, SeasonGame, SeasonRow, SeasonSeat, choose_counted,
    season_standings,
};
pub use validate::{
    EventPoints, Scoring, SeasonRule, SeasonViolation, validate_qualification, validate_scoring,
    validate_season,
};
