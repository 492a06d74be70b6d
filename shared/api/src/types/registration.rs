//! Regions, players, events and their entries.

use catan_domain::board::BoardMode;
use catan_domain::calendar::EventStatus;
use catan_domain::partner::{PartnerSettings, TimeLimitRule};
use catan_domain::playoffs::SmallFieldRule;
use catan_domain::reporting::PlayerReporting;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"name": "Catalonia"}))]
pub struct CreateRegion {
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "00000000-0000-4000-8000-0000000000a1", "name": "Catalonia"}))]
pub struct Region {
    pub id: Uuid,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"name": "Ada Lovelace", "region_id": "00000000-0000-4000-8000-0000000000a1"}))]
pub struct CreatePlayer {
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    #[serde(default)]
    pub region_id: Option<Uuid>,
}

/// A player: one identity across every event of the federation.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "00000000-0000-4000-8000-000000000001", "name": "Ada Lovelace", "region_id": "00000000-0000-4000-8000-0000000000a1", "merged_into": null, "created_at": "2026-03-14T09:30:00Z"}))]
pub struct Player {
    pub id: Uuid,
    pub name: String,
    pub region_id: Option<Uuid>,
    /// A duplicate identity's survivor: the player whose history this one's belongs to. A merged
    /// player is no longer found by searches.
    pub merged_into: Option<Uuid>,
    pub created_at: DateTime<Utc>,
}

/// A player's name corrected (a misspelt name): every page that shows him shows the new one, and
/// the audit trail keeps the old.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"name": "Pere Pons"}))]
pub struct RenamePlayer {
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
}

/// Merges a duplicate identity into the player who survives.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"into": "00000000-0000-4000-8000-000000000002"}))]
pub struct MergePlayer {
    /// The surviving player.
    pub into: Uuid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventFormat {
    /// Individual tournament: tables of 4 (and 3), qualifying rounds, semi-finals, final.
    Classic,
    /// Teams of two, two teams a table, Swiss rounds.
    Partner,
}

/// An event's edit: its name, venue and players' options, each changed when given.
// Read from a JSON object only: serde would take its fields in order from an array too.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(try_from = "serde_json::Map<String, serde_json::Value>")]
#[schema(example = json!({"name": "Spring open (moved)", "venue": "Centre Cívic, Girona"}))]
pub struct EditEvent {
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(min_length = 1, max_length = 200)]
    pub venue: Option<String>,
    /// Whether players report results: `off`, `confirm` or `report` (see `CreateEvent`). Rounds
    /// already drawn keep the option they were drawn with.
    pub player_reporting: Option<PlayerReporting>,
    /// Whether a player may drop themselves from the event.
    pub players_may_drop: Option<bool>,
}

impl TryFrom<serde_json::Map<String, serde_json::Value>> for EditEvent {
    type Error = serde_json::Error;

    fn try_from(fields: serde_json::Map<String, serde_json::Value>) -> Result<Self, Self::Error> {
        #[derive(Deserialize)]
        struct Fields {
            #[serde(default)]
            name: Option<String>,
            #[serde(default)]
            venue: Option<String>,
            #[serde(default)]
            player_reporting: Option<PlayerReporting>,
            #[serde(default)]
            players_may_drop: Option<bool>,
        }
        let Fields {
            name,
            venue,
            player_reporting,
            players_may_drop,
        } = serde_json::from_value(serde_json::Value::Object(fields))?;
        Ok(EditEvent {
            name,
            venue,
            player_reporting,
            players_may_drop,
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"name": "Spring open", "format": "classic", "region_id": "00000000-0000-4000-8000-0000000000a1", "starts_on": "2026-04-18", "ends_on": "2026-04-19", "venue": "Casal de Gràcia, Barcelona", "qualifying_rounds": 3}))]
pub struct CreateEvent {
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    #[serde(default)]
    pub region_id: Option<Uuid>,
    pub format: EventFormat,
    /// The event's first day; today (UTC) when absent.
    #[serde(default)]
    pub starts_on: Option<NaiveDate>,
    /// The event's last day, not before its first; the first when absent (a one-day event).
    #[serde(default)]
    pub ends_on: Option<NaiveDate>,
    /// Where it is held.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200)]
    pub venue: Option<String>,
    /// Qualifying rounds before the playoff; 3 when absent (1 to 15).
    #[serde(
        default,
        deserialize_with = "super::whole::optional::qualifying_rounds"
    )]
    #[schema(minimum = 1, maximum = 15)]
    pub qualifying_rounds: Option<i64>,
    /// The playoff of a field smaller than 16: `final_of_top4` (default) or `no_playoff`.
    #[serde(default)]
    pub small_field_playoff: Option<SmallFieldRule>,
    /// `each_table` (default): every table its own board; `same_for_round`: every table of a
    /// round plays the same board (duplicate play).
    #[serde(default)]
    pub board_mode: Option<BoardMode>,
    /// Partner events: Swiss rounds (default 4).
    #[serde(default, deserialize_with = "super::whole::optional::swiss_rounds")]
    #[schema(minimum = 1, maximum = 15)]
    pub swiss_rounds: Option<i64>,
    /// Partner events: the VP a team's two players need together to win (default 20).
    #[serde(default, deserialize_with = "super::whole::optional::team_target_vp")]
    pub team_target_vp: Option<i64>,
    /// Minutes a game, what a round's clock starts with when the director gives none (1 to 600):
    /// classic events' qualifying rounds and semi-finals (default 90, the final has no time
    /// limit), partner events' games (default 60).
    #[serde(default, deserialize_with = "super::whole::optional::minutes_per_game")]
    pub minutes_per_game: Option<i64>,
    /// Partner events: thinking time per player per turn, in seconds (default 120).
    #[serde(
        default,
        deserialize_with = "super::whole::optional::thinking_seconds_per_turn"
    )]
    pub thinking_seconds_per_turn: Option<i64>,
    /// Partner events: a game stopped at the time limit: `more_vp_wins` (default; equal VP is a
    /// draw), `draw`, or `no_winner` (a loss for both).
    #[serde(default)]
    pub time_limit_rule: Option<TimeLimitRule>,
    /// Partner events: points for a bye (default 3, as a win).
    #[serde(default, deserialize_with = "super::whole::optional::bye_points")]
    pub bye_points: Option<i64>,
    /// Which results the standings count: `posted` (default: as soon as a table posts) or
    /// `confirmed` (once every player of the table confirmed, or the director resolved a dispute).
    #[serde(default)]
    pub standings_count: Option<StandingsCount>,
    /// A practice event (default false): its director may choose a draw's seed, to replay a
    /// draw. A real event's seeds come from the server's CSPRNG.
    #[serde(default)]
    pub practice: Option<bool>,
    /// The language the venue's screen speaks: `en` (default), `es` or `zh`, whatever each
    /// viewer's own choice.
    #[serde(default)]
    pub language: Option<EventLanguage>,
    /// Whether players report their tables' results with their PIN tokens:
    /// - `off`: staff only: scorers and the director post sheets and the director confirms for
    ///   the players; a player's confirmation or dispute is refused (403);
    /// - `confirm` (default): staff post sheets; each seated player confirms or disputes;
    /// - `report`: any player seated at a table may post that table's first sheet; the other
    ///   players confirm; only the director corrects.
    ///
    /// A round plays by the option the event had when the round was drawn.
    #[serde(default)]
    pub player_reporting: Option<PlayerReporting>,
    /// Whether a player may drop themselves from the event with their PIN token (default false).
    #[serde(default)]
    pub players_may_drop: Option<bool>,
}

/// The language of an event's venue screen (issue 32).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventLanguage {
    #[default]
    En,
    Es,
    Zh,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StandingsCount {
    #[default]
    Posted,
    Confirmed,
}

impl CreateEvent {
    /// A classic event with every setting at its default.
    pub fn classic(name: &str) -> Self {
        CreateEvent {
            name: name.to_string(),
            region_id: None,
            format: EventFormat::Classic,
            starts_on: None,
            ends_on: None,
            venue: None,
            qualifying_rounds: None,
            small_field_playoff: None,
            board_mode: None,
            swiss_rounds: None,
            team_target_vp: None,
            minutes_per_game: None,
            thinking_seconds_per_turn: None,
            time_limit_rule: None,
            bye_points: None,
            standings_count: None,
            practice: None,
            language: None,
            player_reporting: None,
            players_may_drop: None,
        }
    }

    /// A partner event with every setting at its default.
    pub fn partner(name: &str) -> Self {
        CreateEvent {
            format: EventFormat::Partner,
            ..CreateEvent::classic(name)
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "00000000-0000-4000-8000-0000000000e1", "name": "Spring open", "region_id": "00000000-0000-4000-8000-0000000000a1", "format": "classic", "starts_on": "2026-04-18", "ends_on": "2026-04-19", "venue": "Casal de Gràcia, Barcelona", "status": "planned", "qualifying_rounds": 3, "small_field_playoff": "final_of_top4", "board_mode": "each_table", "standings_count": "posted", "partner_rules": null, "practice": false, "language": "en", "player_reporting": "confirm", "players_may_drop": false, "created_at": "2026-03-01T08:00:00Z"}))]
pub struct Event {
    pub id: Uuid,
    pub name: String,
    pub region_id: Option<Uuid>,
    pub format: EventFormat,
    /// The event's first day.
    pub starts_on: NaiveDate,
    /// The event's last day (the first, for a one-day event).
    pub ends_on: NaiveDate,
    /// Where it is held.
    pub venue: Option<String>,
    /// Where the event stands: `running` from its first round drawn or its first day (UTC),
    /// `finished` once its placements are complete or after its last day, `planned` before
    /// either.
    pub status: EventStatus,
    pub qualifying_rounds: u32,
    pub small_field_playoff: SmallFieldRule,
    pub board_mode: BoardMode,
    pub standings_count: StandingsCount,
    /// Partner events: the event's rules, as the table apps show them (target VP, minutes per
    /// game, thinking time, no trading between players, rounds, points, time-limit and bye rules).
    pub partner_rules: Option<PartnerSettings>,
    /// Minutes a game, what a round's clock starts with when the director gives none: a classic
    /// event's qualifying rounds and semi-finals (its own, else the rules' 90; the final has no
    /// time limit), a partner event's games (its rules').
    #[serde(default)]
    pub minutes_per_game: Option<u32>,
    /// A practice event: its director may choose a draw's seed.
    #[serde(default)]
    pub practice: bool,
    /// The language the venue's screen speaks.
    #[serde(default)]
    pub language: EventLanguage,
    /// Whether players report their tables' results (`off`, `confirm` or `report`; see
    /// `CreateEvent`). Each round keeps the option it was drawn with.
    #[serde(default)]
    pub player_reporting: PlayerReporting,
    /// Whether a player may drop themselves from the event with their PIN token.
    #[serde(default)]
    pub players_may_drop: bool,
    pub created_at: DateTime<Utc>,
    /// While the event is checked out to a venue (issue 34): which, and since when. The
    /// federation then refuses every write to the event (409 `event_checked_out`).
    #[serde(default)]
    pub checkout: Option<crate::CheckoutSummary>,
}

/// What an event search asks for: every filter given must hold.
#[derive(Debug, Clone, Default, Serialize, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventSearch {
    /// Only the events of this region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(nullable)]
    pub region_id: Option<Uuid>,
    /// Only the events that count in this season (ranking's `GET /v1/seasons/{id}` lists them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(nullable)]
    pub season_id: Option<Uuid>,
    /// Only the events of this format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(nullable)]
    pub format: Option<EventFormat>,
    /// Only the events in this status, as `status` tells it (by their play and their days).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(nullable)]
    pub status: Option<EventStatus>,
    /// Only the events held on this day or later (that end on it or after).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(nullable)]
    pub from: Option<NaiveDate>,
    /// Only the events held on this day or earlier (that start on it or before); not before
    /// `from`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(nullable)]
    pub to: Option<NaiveDate>,
    /// A part of the name, whatever its case and accents ("jose" finds "José"); blank for all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[param(nullable)]
    pub q: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntryStatus {
    /// Seated in the next round drawn.
    Active,
    /// Left the event; keeps the games played.
    Dropped,
    /// Excluded by the tournament director; keeps the games played.
    Excluded,
}

/// A classic entry names one player; a partner entry a team of two.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"player_id": "00000000-0000-4000-8000-000000000001"}))]
pub struct CreateEntry {
    /// Classic events: the player.
    #[serde(default)]
    pub player_id: Option<Uuid>,
    /// Partner events: the team's name.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200)]
    pub team_name: Option<String>,
    /// Partner events: the team's two players.
    #[serde(default)]
    pub player_ids: Option<Vec<Uuid>>,
}

impl CreateEntry {
    pub fn player(player_id: Uuid) -> Self {
        CreateEntry {
            player_id: Some(player_id),
            ..Default::default()
        }
    }

    pub fn team(team_name: &str, players: [Uuid; 2]) -> Self {
        CreateEntry {
            team_name: Some(team_name.to_string()),
            player_ids: Some(players.to_vec()),
            ..Default::default()
        }
    }
}

/// An entry into one event: a player (classic) or a team of two (partner).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "00000000-0000-4000-8000-0000000000f1", "event_id": "00000000-0000-4000-8000-0000000000e1", "player_id": "00000000-0000-4000-8000-000000000001", "team_name": null, "player_ids": ["00000000-0000-4000-8000-000000000001"], "name": "Ada Lovelace", "status": "active", "status_reason": null, "created_at": "2026-03-14T09:31:00Z"}))]
pub struct Entry {
    pub id: Uuid,
    pub event_id: Uuid,
    /// Classic events: the player.
    pub player_id: Option<Uuid>,
    /// Partner events: the team's name.
    pub team_name: Option<String>,
    /// The entry's players: one, or a team's two.
    pub player_ids: Vec<Uuid>,
    /// The player's name, or the team's.
    pub name: String,
    pub status: EntryStatus,
    /// Why the entry was dropped or excluded.
    pub status_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    /// Only in the answer to the entry's creation: each player's PIN, with which he signs in to
    /// confirm or dispute his tables' results. Hand it to the player; it is not shown again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pins: Option<Vec<PlayerPin>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PlayerPin {
    pub player_id: Uuid,
    /// 8 characters of an alphabet without look-alikes (no 0/O, 1/I/L, no lower case).
    #[schema(
        pattern = "^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$",
        example = "7KQ4WM9R"
    )]
    pub pin: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"reason": "Left after round 2", "exclude": false}))]
pub struct DropEntry {
    #[schema(min_length = 1, max_length = 200)]
    pub reason: String,
    /// True when the tournament director excludes the player (rather than the player leaving).
    #[serde(default)]
    pub exclude: bool,
}

/// What a change in registration touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RegistrationChangeKind {
    Event,
    Entry,
    Player,
}

/// One change in registration: the current state of what it touched, which is in the field the
/// kind names (`event`, `entry` or `player`; an entry without its PINs).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RegistrationChange {
    pub kind: RegistrationChangeKind,
    pub id: Uuid,
    /// When the change was made (the last one to it on this page).
    pub changed_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<Event>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<Entry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<Player>,
}

/// A page of registration's change feed: changes in the order of their transactions, each read
/// once every transaction begun before it has ended (so that a cursor never passes a change that
/// commits late), each thing once in its current state, and the cursor to read on from.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RegistrationChanges {
    pub items: Vec<RegistrationChange>,
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

#[cfg(test)]
mod tests {
    use super::EditEvent;

    #[test]
    fn an_edit_is_read_from_an_object_only() {
        let edit: EditEvent = serde_json::from_str(r#"{"venue": "Centre Cívic"}"#).unwrap();
        assert_eq!(
            (edit.name, edit.venue.as_deref()),
            (None, Some("Centre Cívic"))
        );
        assert!(serde_json::from_str::<EditEvent>("[null, null]").is_err());
        assert!(serde_json::from_str::<EditEvent>(r#"{"name": 7}"#).is_err());
    }
}
