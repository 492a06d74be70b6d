//! A venue's copy of one event (issue 34): what `catan-suite venue pull` takes from the
//! federation into the venue's suite, under the federation's ids, so that what the venue plays
//! can be sent back as the federation's own event, entries and players.

use super::{
    Entry, EntryStatus, Event, EventFormat, EventLanguage, Player, Region, StandingsCount,
};
use crate::audit::AuditRecord;
use catan_domain::board::BoardMode;
use catan_domain::partner::PartnerSettings;
use catan_domain::playoffs::SmallFieldRule;
use catan_domain::reporting::PlayerReporting;
use catan_domain::venue_copy::CopyRecord;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// One event as the federation has it, with the regions and players it names and its entries:
/// taken in under the same ids. A record the suite lacks is created; one it has alike changes
/// nothing; if any differs, the whole copy is refused (409) listing every difference.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct VenueCopy {
    /// The event's region and those of the players (every region the copy names).
    #[serde(default)]
    pub regions: Vec<Region>,
    pub event: EventCopy,
    /// The players the entries name, and any others to have at hand (the region's, for late
    /// entries at the venue).
    #[serde(default)]
    pub players: Vec<PlayerCopy>,
    /// The event's entries, dropped ones included.
    #[serde(default)]
    pub entries: Vec<EntryCopy>,
    /// The venue's audit records of the event (every service's, as its `GET /v1/audit` answers
    /// them), sent by a publish and kept as they were; a pull carries none. Compared by id only:
    /// a record the suite has under that id already is unchanged.
    #[serde(default)]
    pub audit: Vec<AuditRecord>,
}

/// An event's identity and settings, as `Event` shows them.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EventCopy {
    pub id: Uuid,
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    pub region_id: Option<Uuid>,
    pub format: EventFormat,
    pub starts_on: NaiveDate,
    pub ends_on: NaiveDate,
    pub venue: Option<String>,
    pub qualifying_rounds: u32,
    pub small_field_playoff: SmallFieldRule,
    pub board_mode: BoardMode,
    pub standings_count: StandingsCount,
    pub partner_rules: Option<PartnerSettings>,
    pub minutes_per_game: Option<u32>,
    pub practice: bool,
    pub language: EventLanguage,
    pub player_reporting: PlayerReporting,
    pub players_may_drop: bool,
    pub created_at: DateTime<Utc>,
}

/// A player's identity.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PlayerCopy {
    pub id: Uuid,
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    pub region_id: Option<Uuid>,
    pub created_at: DateTime<Utc>,
}

/// An entry of the event: one player, or a team of two; active, dropped or excluded.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EntryCopy {
    pub id: Uuid,
    pub team_name: Option<String>,
    /// Its players, in their order (a team's two).
    pub player_ids: Vec<Uuid>,
    pub status: EntryStatus,
    pub status_reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// What taking in a copy did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VenueCopyTaken {
    pub event_id: Uuid,
    /// Whether this only checked the copy (`dry_run`): then `created` and `entries_left` say what
    /// taking it in would do.
    #[serde(default)]
    pub dry_run: bool,
    /// The records created, by kind.
    pub created: CopyCounts,
    /// The entries of ours that left the event at the venue (dropped or excluded there), which
    /// took the copy's status.
    #[serde(default)]
    pub entries_left: u32,
    /// The records the suite had alike already.
    pub unchanged: CopyCounts,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CopyCounts {
    pub regions: u32,
    pub events: u32,
    pub players: u32,
    pub entries: u32,
    /// The venue's audit records.
    #[serde(default)]
    pub audit_records: u32,
}

impl From<&Event> for EventCopy {
    fn from(event: &Event) -> Self {
        EventCopy {
            id: event.id,
            name: event.name.clone(),
            region_id: event.region_id,
            format: event.format,
            starts_on: event.starts_on,
            ends_on: event.ends_on,
            venue: event.venue.clone(),
            qualifying_rounds: event.qualifying_rounds,
            small_field_playoff: event.small_field_playoff,
            board_mode: event.board_mode,
            standings_count: event.standings_count,
            partner_rules: event.partner_rules,
            minutes_per_game: event.minutes_per_game,
            practice: event.practice,
            language: event.language,
            player_reporting: event.player_reporting,
            players_may_drop: event.players_may_drop,
            created_at: event.created_at,
        }
    }
}

impl From<&Player> for PlayerCopy {
    fn from(player: &Player) -> Self {
        PlayerCopy {
            id: player.id,
            name: player.name.clone(),
            region_id: player.region_id,
            created_at: player.created_at,
        }
    }
}

impl From<&Entry> for EntryCopy {
    fn from(entry: &Entry) -> Self {
        EntryCopy {
            id: entry.id,
            team_name: entry.team_name.clone(),
            player_ids: entry.player_ids.clone(),
            status: entry.status,
            status_reason: entry.status_reason.clone(),
            created_at: entry.created_at,
        }
    }
}

/// A value as JSON text: how a record's field is compared and shown in a difference.
fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("<{e}>"))
}

/// The records of a copy are compared by what they mean, not by when they were made: the
/// `created_at` times are kept, never compared.
impl VenueCopy {
    pub fn region_record(region: &Region) -> CopyRecord {
        CopyRecord::new(format!("regions[{}]", region.id)).with("name", json(&region.name))
    }

    pub fn event_record(event: &EventCopy) -> CopyRecord {
        CopyRecord::new(format!("event[{}]", event.id))
            .with("name", json(&event.name))
            .with("region_id", json(&event.region_id))
            .with("format", json(&event.format))
            .with("starts_on", json(&event.starts_on))
            .with("ends_on", json(&event.ends_on))
            .with("venue", json(&event.venue))
            .with("qualifying_rounds", json(&event.qualifying_rounds))
            .with("small_field_playoff", json(&event.small_field_playoff))
            .with("board_mode", json(&event.board_mode))
            .with("standings_count", json(&event.standings_count))
            .with("partner_rules", json(&event.partner_rules))
            .with("minutes_per_game", json(&event.minutes_per_game))
            .with("practice", json(&event.practice))
            .with("language", json(&event.language))
            .with("player_reporting", json(&event.player_reporting))
            .with("players_may_drop", json(&event.players_may_drop))
    }

    pub fn player_record(player: &PlayerCopy) -> CopyRecord {
        CopyRecord::new(format!("players[{}]", player.id))
            .with("name", json(&player.name))
            .with("region_id", json(&player.region_id))
    }

    /// An entry's record, with the event it belongs to.
    pub fn entry_record(event_id: Uuid, entry: &EntryCopy) -> CopyRecord {
        CopyRecord::new(format!("entries[{}]", entry.id))
            .with("event_id", json(&event_id))
            .with("team_name", json(&entry.team_name))
            .with("player_ids", json(&entry.player_ids))
            .with("status", json(&entry.status))
            .with("status_reason", json(&entry.status_reason))
    }

    /// Every record of the copy: its regions, its event, its players, its entries.
    pub fn records(&self) -> Vec<CopyRecord> {
        let regions = self.regions.iter().map(Self::region_record);
        let players = self.players.iter().map(Self::player_record);
        let entries = self
            .entries
            .iter()
            .map(|entry| Self::entry_record(self.event.id, entry));
        regions
            .chain([Self::event_record(&self.event)])
            .chain(players)
            .chain(entries)
            .collect()
    }
}
