//! Rounds, their tables and seats.

use super::registration::EventFormat;
use catan_domain::board::BoardMode;
use catan_domain::partner::PartnerSettings;
use catan_domain::reporting::PlayerReporting;
use catan_domain::results::Stage;
use catan_domain::seating::SeatPosition;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"seed": 424242}))]
pub struct DrawRound {
    /// The seed to draw from (0 to 2^53 - 1), for practice events only (422 otherwise); the
    /// server draws one from its CSPRNG when absent. Stored with the round.
    #[serde(default, deserialize_with = "super::whole::optional::seed")]
    #[schema(minimum = 0, maximum = 9007199254740991_i64)]
    pub seed: Option<u64>,
}

/// Two players of a round to swap (the director): each takes the other's table and seat.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"player_id": "00000000-0000-4000-8000-000000000001", "with_player_id": "00000000-0000-4000-8000-000000000002"}))]
pub struct SwapPlayers {
    pub player_id: Uuid,
    /// A player seated at another table of the round.
    pub with_player_id: Uuid,
}

/// Pairs of players the director keeps apart (same family or club): never at one table in
/// round 1, later only when no draw avoids it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"pairs": [["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"]]}))]
pub struct KeepApart {
    /// Each pair exactly 2 player ids.
    #[serde(deserialize_with = "exact_pairs")]
    #[schema(schema_with = pairs_schema)]
    pub pairs: Vec<[Uuid; 2]>,
}

/// Pairs of any other length are refused naming the pair (a 422), where serde's own reading of
/// `[Uuid; 2]` would take the third id for malformed JSON (a 400).
fn exact_pairs<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<[Uuid; 2]>, D::Error> {
    let lists = Vec::<Vec<Uuid>>::deserialize(d)?;
    lists
        .into_iter()
        .enumerate()
        .map(|(i, ids)| {
            <[Uuid; 2]>::try_from(ids).map_err(|ids| {
                serde::de::Error::custom(format!(
                    "field `pairs[{i}]`: a pair has exactly 2 player ids, not {}",
                    ids.len()
                ))
            })
        })
        .collect()
}

/// An array of pairs, each an array of exactly 2 ids.
fn pairs_schema() -> utoipa::openapi::Array {
    use utoipa::openapi::schema::{KnownFormat, SchemaFormat, Type};
    use utoipa::openapi::{ArrayBuilder, ObjectBuilder};
    let id = ObjectBuilder::new()
        .schema_type(Type::String)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)));
    let pair = ArrayBuilder::new()
        .items(id)
        .min_items(Some(2))
        .max_items(Some(2));
    ArrayBuilder::new().items(pair).build()
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"position": "N", "entry_id": "00000000-0000-4000-8000-0000000000f1", "player_id": "00000000-0000-4000-8000-000000000001"}))]
pub struct Seat {
    /// N, E, S or W; play order is N, E, S, W.
    pub position: SeatPosition,
    pub entry_id: Uuid,
    pub player_id: Uuid,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Table {
    pub number: u32,
    /// In play order.
    pub seats: Vec<Seat>,
    /// Why this table was formed: the constraints it met or had to break.
    #[schema(value_type = Object)]
    pub explanation: serde_json::Value,
}

/// The pairing engine's figures for the event after this round.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"repeat_meetings": 0, "repeat_cost_squared": 0, "three_player_spread": 1, "keep_apart_broken": 0, "cost": 0}))]
pub struct RoundFigures {
    /// Sum over pairs of players of (meetings − 1), over the whole event so far.
    pub repeat_meetings: u32,
    /// Sum over pairs of (meetings − 1)².
    pub repeat_cost_squared: u32,
    /// Most minus fewest 3-player games among the players.
    pub three_player_spread: u32,
    pub keep_apart_broken: u32,
    /// The objective the engine minimised.
    pub cost: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Round {
    pub event_id: Uuid,
    pub number: u32,
    pub format: EventFormat,
    /// `qualifying`, `semifinal`, `final`, or `swiss` (partner events).
    pub stage: Stage,
    /// The seed the round was drawn from: the same seed and field give the same round.
    pub seed: u64,
    /// Whether the director chose the seed (practice events only); false when the server drew it
    /// from its CSPRNG.
    #[serde(default)]
    pub seed_chosen: bool,
    pub drawn_at: DateTime<Utc>,
    pub figures: RoundFigures,
    pub tables: Vec<Table>,
    /// Partner events: the team entries with a bye this round.
    pub byes: Vec<Uuid>,
    /// Which board the tables play (see each table's `board`).
    pub board_mode: BoardMode,
    /// Partner events: the rules the tables play by (target VP, minutes per game, thinking time,
    /// no trading between players).
    pub partner_rules: Option<PartnerSettings>,
    /// Whether players report this round's results (`off`, `confirm` or `report`): the event's
    /// option when the round was drawn, which the round keeps whatever later edits.
    #[serde(default)]
    pub player_reporting: PlayerReporting,
    /// Whether the director changed the drawn tables by hand (swapped players, `POST
    /// .../rounds/{number}/swap`): the engine's figures are then those of the draw.
    #[serde(default)]
    pub changed_by_hand: bool,
}

impl Round {
    /// Whether `player_id` is seated at table `table` of this round.
    pub fn is_seated(&self, table: u32, player_id: Uuid) -> bool {
        self.tables
            .iter()
            .filter(|t| t.number == table)
            .flat_map(|t| &t.seats)
            .any(|seat| seat.player_id == player_id)
    }
}

#[cfg(test)]
mod tests {
    use super::KeepApart;

    #[test]
    fn a_pair_of_other_than_two_ids_is_refused_naming_it() {
        let id = "\"00000000-0000-4000-8000-000000000001\"";
        let two = format!(r#"{{"pairs": [[{id}, {id}]]}}"#);
        assert_eq!(
            serde_json::from_str::<KeepApart>(&two).unwrap().pairs.len(),
            1
        );
        let eleven = format!(r#"{{"pairs": [[{id}, {id}], [{}]]}}"#, [id; 11].join(","));
        let e = serde_json::from_str::<KeepApart>(&eleven).unwrap_err();
        assert!(e.is_data(), "a 422, not malformed JSON: {e}");
        assert!(
            e.to_string()
                .starts_with("field `pairs[1]`: a pair has exactly 2"),
            "{e}"
        );
    }
}
