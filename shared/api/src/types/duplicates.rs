//! Players who may be one person, offered to the organiser for merging (issue 34, item 4).

use super::Player;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// An event a candidate has an entry in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct EnteredEvent {
    pub id: Uuid,
    pub name: String,
}

/// A player of a pair, with the events he has an entry in (by first day).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CandidatePlayer {
    pub player: Player,
    pub events: Vec<EnteredEvent>,
}

/// Two players of one region and one name (case and accents aside) who may be one person: the
/// one registered first (`older`, as a rule the one the federation knew) and the one registered
/// later (`newer`, as a venue's publish leaves him). Neither is merged, and no event has both.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MergeCandidate {
    pub older: CandidatePlayer,
    pub newer: CandidatePlayer,
}

/// Which region's candidates: one region, or (none) every region the key may read.
#[derive(Debug, Clone, Default, Serialize, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MergeCandidateSearch {
    /// Only this region's pairs; without it, the admin's are every region's and an organiser's
    /// its regions'.
    #[param(nullable)]
    pub region_id: Option<Uuid>,
}
