//! Request and response bodies of the v1 API, by the service that serves them.

mod auth;
mod clock;
mod duplicates;
mod explain;
mod pairing;
mod ranking;
mod registration;
mod results;
mod seasons;
mod venue;
mod venue_copy;
mod venue_results;
mod venue_rounds;
mod whole;

pub use auth::*;
pub use clock::*;
pub use duplicates::*;
pub use explain::*;
pub use pairing::*;
pub use ranking::*;
pub use registration::*;
pub use results::*;
pub use seasons::*;
pub use venue::*;
pub use venue_copy::*;
pub use venue_results::*;
pub use venue_rounds::*;

pub use catan_domain::board::BoardMode;
pub use catan_domain::calendar::EventStatus;
pub use catan_domain::clock::{DirectorAction, RoundState};
pub use catan_domain::partner::{GameResult, PartnerSettings, TimeLimitRule};
pub use catan_domain::playoffs::SmallFieldRule;
pub use catan_domain::reporting::PlayerReporting;
pub use catan_domain::results::{OutcomeKind, Stage, credited_vp};
pub use catan_domain::season::{
    ScaledPoints, ScoringMode, SeasonQualification, SeasonScoring, TieBreak, Tier,
};
pub use catan_domain::seating::SeatPosition;
/// How names are compared and checked, for the clients that match or take them (the console's
/// paste of names).
pub mod names {
    pub use catan_domain::duplicates::{folded_name, may_be, repeated_names, same_name};
    pub use catan_domain::names::{MAX_NAME_CHARS, NameFault, checked_name};
}
