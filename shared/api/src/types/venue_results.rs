//! A venue's results of one event (issue 34): what `catan-suite venue publish` sends back to the
//! federation as the third part of an event played at a venue, after its registration and its
//! rounds. Every table's sheet with its whole history, under the venue's version numbers, keys
//! and times.

use super::{ScoreInput, SubmitResult};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Every table's results of one event, each with every version of its sheet and its players'
/// confirmations and disputes. The federation checks every sheet against the rules as if it were
/// posted there, adds what it lacks in the order the venue made it, and refuses (409) the whole
/// part listing every difference when anything differs from what it has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VenueResults {
    pub event_id: Uuid,
    /// The tables with a result, by round and table.
    #[serde(default)]
    pub tables: Vec<TableHistoryCopy>,
}

/// Everything kept of one table's results sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TableHistoryCopy {
    pub round: u32,
    pub table: u32,
    /// Every version of the sheet, oldest first, numbered 1, 2, 3...
    pub versions: Vec<SheetVersionCopy>,
    /// The players' confirmations, each of the version it signs.
    #[serde(default)]
    pub confirmations: Vec<ConfirmationCopy>,
    /// The players' disputes, each of the version it disputes.
    #[serde(default)]
    pub disputes: Vec<DisputeCopy>,
}

/// One version of a table's sheet: the sheet as a table app posts it, who recorded it, when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SheetVersionCopy {
    pub version: u32,
    pub sheet: SubmitResult,
    /// The API key that recorded it (the venue's), or the reporting player's id.
    pub recorded_by: Uuid,
    pub recorded_at: DateTime<Utc>,
}

/// A player's confirmation of a version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ConfirmationCopy {
    pub version: u32,
    pub player_id: Uuid,
    pub confirmed_at: DateTime<Utc>,
    /// The director's API key, when the director confirmed for the player.
    #[serde(default)]
    pub on_behalf_by: Option<Uuid>,
}

/// A player's dispute of a version, and the director's correction that resolved it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DisputeCopy {
    pub version: u32,
    pub player_id: Uuid,
    #[schema(min_length = 1, max_length = 500)]
    pub reason: String,
    pub created_at: DateTime<Utc>,
    #[serde(default)]
    pub resolved_by_version: Option<u32>,
}

/// What taking in a venue's results did (or, with `dry_run`, would do).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VenueResultsTaken {
    pub event_id: Uuid,
    pub dry_run: bool,
    /// The versions, confirmations and disputes added.
    pub added: u32,
    /// Those the federation had alike already.
    pub unchanged: u32,
}

impl SubmitResult {
    /// The sheet as a table app posts it, of a recorded version: what the rules derive from it
    /// (credited VP, a partner table's teams) left out.
    pub fn of_recorded(result: &super::TableResult) -> SubmitResult {
        SubmitResult {
            outcome: result.outcome,
            winner_player_id: result.winner_player_id,
            winner_entry_id: result.winner_entry_id,
            scores: result
                .scores
                .iter()
                .map(|s| ScoreInput {
                    player_id: s.player_id,
                    vp: i64::from(s.vp),
                    breakdown: s.breakdown.clone(),
                })
                .collect(),
            early_reason: None,
            checked: None,
        }
    }
}
