//! What the games still to play can do to the standings (issue 35): for each player of an
//! event's qualifying rounds, whether he is already sure of the playoff, can still make it, or
//! cannot, and what he needs to be sure; for each player of a season, whether he has qualified,
//! can still qualify, or cannot.
//!
//! Both answer for a model of what is still to come that holds every real outcome and more, so
//! that "sure" holds whatever really happens and "cannot" too; "can still" is what is left.
//!
//! - `game`: what one qualifying game can give a player at the most and at the least.
//! - `event`: the event's projection ([`project_event`]).
//! - `season`: the season's projection ([`project_season`]).

mod event;
mod game;
mod season;

#[cfg(test)]
mod tests;

pub use event::{CutNeed, CutOutlook, CutProjection, EventProjection, project_event};
pub use season::{
    QualificationOutlook, QualificationProjection, RemainingEvent, SeasonProjection, project_season,
};
