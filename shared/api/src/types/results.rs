//! Results sheets as posted and as recorded.

use catan_domain::partner::GameResult;
use catan_domain::results::{OutcomeKind, Stage};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BreakdownInput {
    #[schema(minimum = 0, maximum = 5)]
    #[serde(deserialize_with = "super::whole::settlements")]
    pub settlements: i64,
    #[schema(minimum = 0, maximum = 4)]
    #[serde(deserialize_with = "super::whole::cities")]
    pub cities: i64,
    #[schema(minimum = 0, maximum = 5)]
    #[serde(deserialize_with = "super::whole::vp_cards")]
    pub vp_cards: i64,
    pub longest_road: bool,
    pub largest_army: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ScoreInput {
    pub player_id: Uuid,
    /// The victory points the player actually had (2 to 22).
    #[schema(minimum = 2, maximum = 22)]
    #[serde(deserialize_with = "super::whole::vp")]
    pub vp: i64,
    #[serde(default)]
    pub breakdown: Option<BreakdownInput>,
}

/// A table's results sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"outcome": "won", "winner_player_id": "00000000-0000-4000-8000-000000000001", "scores": [{"player_id": "00000000-0000-4000-8000-000000000001", "vp": 10, "breakdown": {"settlements": 2, "cities": 3, "vp_cards": 0, "longest_road": true, "largest_army": false}}, {"player_id": "00000000-0000-4000-8000-000000000002", "vp": 7}, {"player_id": "00000000-0000-4000-8000-000000000003", "vp": 5}, {"player_id": "00000000-0000-4000-8000-000000000004", "vp": 4}]}))]
pub struct SubmitResult {
    pub outcome: OutcomeKind,
    /// Classic events: required when `outcome` is `won`; absent at a time limit.
    #[serde(default)]
    pub winner_player_id: Option<Uuid>,
    /// Partner events: the winning team's entry when `outcome` is `won`; absent at a time limit.
    #[serde(default)]
    pub winner_entry_id: Option<Uuid>,
    pub scores: Vec<ScoreInput>,
    /// The tournament director's reason for a `time_limit` sheet sent before the table's time is
    /// up (1 to 500 characters), kept in the audit trail; ignored from anyone else, and when the
    /// time is up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 500)]
    pub early_reason: Option<String>,
    /// The tournament director's word that the sheet is right although a player who did not win
    /// has 10 VP or more (reached on another player's turn): without it such a sheet is 422
    /// `non_winner_at_ten` on that player's `vp`. Its reason is kept in the audit trail; from
    /// anyone but the event's director (or the admin) it is 403.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<CheckedSheet>,
}

/// The tournament director marks a sheet as checked, saying why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"reason": "W reached 10 VP on N's turn when N's road was cut"}))]
pub struct CheckedSheet {
    /// 1 to 500 characters, without control characters.
    #[schema(min_length = 1, max_length = 500)]
    pub reason: String,
}

/// A team's line of a partner table's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TeamScore {
    pub entry_id: Uuid,
    pub player_ids: Vec<Uuid>,
    /// The two players' VP together.
    pub vp: u32,
    /// `win`, `draw` or `loss`.
    pub result: GameResult,
    pub points: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"player_id": "00000000-0000-4000-8000-000000000001", "vp": 11, "credited_vp": 10, "breakdown": null}))]
pub struct ScoreRecorded {
    pub player_id: Uuid,
    pub vp: u8,
    /// What the game credits: the winner 10, everyone else at most 9.
    pub credited_vp: u8,
    pub breakdown: Option<BreakdownInput>,
}

/// Where a table's results sheet stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultStatus {
    /// Recorded; not every player has confirmed it yet.
    Posted,
    /// Every player at the table confirmed this version.
    Confirmed,
    /// A player disputes it; the director resolves it with a correction.
    Disputed,
    /// The director corrected it after a dispute.
    Resolved,
}

/// A player's dispute of a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Dispute {
    pub player_id: Uuid,
    pub reason: String,
    /// The version disputed.
    pub version: u32,
    pub created_at: DateTime<Utc>,
    /// The director's correction that resolved it.
    pub resolved_by_version: Option<u32>,
}

/// A confirmation a director (or the admin) made for a seated player, e.g. one who cannot sign in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DirectorConfirmation {
    /// The player confirmed for (also in `confirmed_by`).
    pub player_id: Uuid,
    /// The director's API key.
    pub by: Uuid,
    pub confirmed_at: DateTime<Utc>,
}

/// What a confirmation may say: nothing for a player confirming for himself (no body, or `{}`);
/// the director names the seated player he confirms for.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"player_id": "00000000-0000-4000-8000-000000000001"}))]
pub struct ConfirmResult {
    /// The seated player the event's director (or the admin) confirms for; a player's own token
    /// leaves it out or names himself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<Uuid>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"reason": "I had 8 VP, not 7"}))]
pub struct DisputeResult {
    #[schema(min_length = 1, max_length = 500)]
    pub reason: String,
}

/// A table's recorded result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TableResult {
    pub event_id: Uuid,
    pub round: u32,
    pub table: u32,
    pub stage: Stage,
    /// 1 for the first result; each correction by the tournament director adds one.
    pub version: u32,
    /// Position in the event's change feed.
    pub seq: i64,
    /// How many tables the round has.
    pub round_tables: u32,
    pub outcome: OutcomeKind,
    pub winner_player_id: Option<Uuid>,
    /// Partner events: the winning team's entry.
    pub winner_entry_id: Option<Uuid>,
    pub scores: Vec<ScoreRecorded>,
    /// Partner events: each team's VP, result and points.
    pub teams: Vec<TeamScore>,
    pub status: ResultStatus,
    /// The players who confirmed this version.
    pub confirmed_by: Vec<Uuid>,
    /// Those of this version's confirmations that the director made for a player, and who made
    /// them (the player also counts in `confirmed_by`).
    #[serde(default)]
    pub confirmed_by_director: Vec<DirectorConfirmation>,
    /// Disputes of this result, open and resolved.
    pub disputes: Vec<Dispute>,
    pub recorded_at: DateTime<Utc>,
    /// The API key that recorded this version; the player's id when a player seated at the
    /// table reported it with their PIN token (`player_reporting: report`).
    pub recorded_by: Uuid,
    /// The director voided this version (`DELETE .../result`): the table has no result until a
    /// new sheet is recorded, and the standings leave it out. Only the change feed and the
    /// history show a voided version.
    #[serde(default)]
    pub voided: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ResultList {
    pub items: Vec<TableResult>,
}

impl TableResult {
    /// The result as the rules see it.
    pub fn to_domain(&self) -> catan_domain::results::TableResult {
        catan_domain::results::TableResult {
            winner: self.winner_player_id,
            scores: self
                .scores
                .iter()
                .map(|s| catan_domain::results::Score {
                    player: s.player_id,
                    vp: s.vp,
                    credited_vp: s.credited_vp,
                    // A recorded breakdown was validated: its counts are a game's (0 to 22).
                    breakdown: s.breakdown.as_ref().and_then(|b| {
                        Some(catan_domain::results::Breakdown {
                            settlements: u8::try_from(b.settlements).ok()?,
                            cities: u8::try_from(b.cities).ok()?,
                            vp_cards: u8::try_from(b.vp_cards).ok()?,
                            longest_road: b.longest_road,
                            largest_army: b.largest_army,
                        })
                    }),
                })
                .collect(),
        }
    }
}

impl TableResult {
    /// A partner table's result as the rules see it.
    pub fn to_partner_game(&self) -> Option<catan_domain::partner::PartnerGame> {
        use catan_domain::partner::{PartnerGame, PartnerPlayerScore, TeamResult};
        let team = |line: &TeamScore| -> Option<TeamResult> {
            let player = |id: Uuid| {
                let score = self.scores.iter().find(|s| s.player_id == id)?;
                Some(PartnerPlayerScore {
                    player: id,
                    vp: score.vp,
                    breakdown: None,
                })
            };
            Some(TeamResult {
                team: line.entry_id,
                players: [
                    player(*line.player_ids.first()?)?,
                    player(*line.player_ids.get(1)?)?,
                ],
                vp: line.vp,
                result: line.result,
                points: line.points,
            })
        };
        match self.teams.as_slice() {
            [home, away] => Some(PartnerGame {
                outcome: self.outcome,
                home: team(home)?,
                away: team(away)?,
                winner: self.winner_entry_id,
            }),
            _ => None,
        }
    }
}

/// A page of the federation-wide results feed: results in the order their last change committed,
/// each table once in its current version, and the cursor to read on from.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ResultChanges {
    pub items: Vec<TableResult>,
    /// Pass as `after` to read the changes that follow; the same cursor when there were none.
    pub next: String,
    /// Changes already committed wait behind a transaction still in flight: read again shortly
    /// (a page that is empty and not held back means the reader has read everything).
    pub held_back: bool,
    /// The `Catan-Position` a reader reaches with this page: every write at or below it is in
    /// this page or an earlier one (its changes, if it made any).
    #[schema(
        example = "v1.0.0.0",
        pattern = r"^v1\.[0-9]{1,20}\.[0-9]{1,20}\.[0-9]{1,20}$"
    )]
    pub position: String,
}

/// The most sheets one batch takes.
pub const MAX_BATCH_SHEETS: usize = 500;

/// One sheet of a batch: the table it is for, and its sheet as `PUT .../tables/{table}/result`
/// takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TableSheet {
    #[schema(minimum = 1)]
    #[serde(deserialize_with = "super::whole::table")]
    pub table: u32,
    pub sheet: SubmitResult,
}

/// Sheets of one round's tables, 1 to 500, each recorded or refused on its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SubmitResults {
    #[schema(min_items = 1, max_items = 500)]
    pub sheets: Vec<TableSheet>,
}

/// What became of one sheet of a batch: the status a single post of it would have got (201
/// recorded, 200 the same sheet again, 404, 409, 422, 428), with the result, or the problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SheetOutcome {
    pub table: u32,
    pub status: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<TableResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<crate::Problem>,
}

/// A batch's outcome: one entry per sheet, in the order sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BatchOutcome {
    pub results: Vec<SheetOutcome>,
}
