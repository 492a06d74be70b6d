//! What a player may do for themselves with their PIN token (issue 31): post their table's first
//! sheet, confirm or dispute their tables' results, drop out of the event.
//!
//! Staff keys are not decided here: a scorer or director posts and corrects as before, and the
//! director confirms for a player whatever the event's option.

use serde::{Deserialize, Serialize};

/// Whether players report their tables' results, an event's option. A round plays by the option
/// its event had when the round was drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum PlayerReporting {
    /// Staff only: scorers and the director post sheets, and the director confirms for the
    /// players; a player's confirmation or dispute is refused (403).
    Off,
    /// Staff post sheets; each seated player confirms or disputes with their PIN token.
    #[default]
    Confirm,
    /// Any player seated at a table may post that table's first sheet with their PIN token; the
    /// other players confirm; only the director corrects.
    Report,
}

/// Why a player's own write is refused (a 403, with this as its detail).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PlayerRefusal {
    #[error(
        "players do not report results in this round: the event's `player_reporting` was `{0}` when it was drawn; a scorer or the director posts the sheet"
    )]
    ReportingNotOn(&'static str),
    #[error("a player reports only the table they are seated at")]
    NotSeatedAtTable,
    #[error(
        "players do not confirm or dispute results in this round (the event's `player_reporting` was `off` when it was drawn): the director confirms for them"
    )]
    ConfirmingOff,
    #[error(
        "this event does not let players drop themselves (`players_may_drop` is false): ask the director"
    )]
    DroppingNotAllowed,
    #[error("a player drops only their own entry")]
    NotOwnEntry,
    #[error("a player drops out; only the director excludes (`exclude` must be false)")]
    OnlyTheDirectorExcludes,
}

impl PlayerReporting {
    /// The option as the API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            PlayerReporting::Off => "off",
            PlayerReporting::Confirm => "confirm",
            PlayerReporting::Report => "report",
        }
    }
}

/// Whether a player may post a table's sheet: only in a round drawn with `report`, and only for
/// the table they are seated at. Whether the sheet is a first one is decided as for a scorer (see
/// [`crate::correction`]): a player never corrects.
pub fn player_may_post_sheet(
    reporting: PlayerReporting,
    seated_at_table: bool,
) -> Result<(), PlayerRefusal> {
    match (reporting, seated_at_table) {
        (PlayerReporting::Report, true) => Ok(()),
        (PlayerReporting::Report, false) => Err(PlayerRefusal::NotSeatedAtTable),
        (other, _) => Err(PlayerRefusal::ReportingNotOn(other.as_str())),
    }
}

/// Whether a player may confirm or dispute their table's result: not in a round drawn with `off`.
/// Whether they sat at the table is checked where the confirmation is recorded.
pub fn player_may_confirm(reporting: PlayerReporting) -> Result<(), PlayerRefusal> {
    match reporting {
        PlayerReporting::Off => Err(PlayerRefusal::ConfirmingOff),
        PlayerReporting::Confirm | PlayerReporting::Report => Ok(()),
    }
}

/// Whether a player may drop an entry themselves: only when the event lets players drop, only
/// their own entry (a classic entry's player, or a member of a partner team), and only as
/// leaving (`exclude` is the director's).
pub fn player_may_drop(
    players_may_drop: bool,
    own_entry: bool,
    exclude: bool,
) -> Result<(), PlayerRefusal> {
    match (players_may_drop, own_entry, exclude) {
        (false, _, _) => Err(PlayerRefusal::DroppingNotAllowed),
        (true, false, _) => Err(PlayerRefusal::NotOwnEntry),
        (true, true, true) => Err(PlayerRefusal::OnlyTheDirectorExcludes),
        (true, true, false) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_what_the_api_did_before_the_option() {
        assert_eq!(PlayerReporting::default(), PlayerReporting::Confirm);
        for option in [
            PlayerReporting::Off,
            PlayerReporting::Confirm,
            PlayerReporting::Report,
        ] {
            assert_eq!(
                serde_json::to_value(option).unwrap(),
                serde_json::json!(option.as_str())
            );
        }
    }

    #[test]
    fn a_player_posts_only_their_own_table_and_only_with_report() {
        assert_eq!(player_may_post_sheet(PlayerReporting::Report, true), Ok(()));
        assert_eq!(
            player_may_post_sheet(PlayerReporting::Report, false),
            Err(PlayerRefusal::NotSeatedAtTable)
        );
        for (option, name) in [
            (PlayerReporting::Confirm, "confirm"),
            (PlayerReporting::Off, "off"),
        ] {
            for seated in [true, false] {
                assert_eq!(
                    player_may_post_sheet(option, seated),
                    Err(PlayerRefusal::ReportingNotOn(name))
                );
            }
        }
    }

    #[test]
    fn a_player_confirms_unless_the_round_is_off() {
        assert_eq!(
            player_may_confirm(PlayerReporting::Off),
            Err(PlayerRefusal::ConfirmingOff)
        );
        assert_eq!(player_may_confirm(PlayerReporting::Confirm), Ok(()));
        assert_eq!(player_may_confirm(PlayerReporting::Report), Ok(()));
    }

    #[test]
    fn a_player_drops_only_their_own_entry_and_only_when_the_event_allows() {
        for own in [true, false] {
            assert_eq!(
                player_may_drop(false, own, false),
                Err(PlayerRefusal::DroppingNotAllowed)
            );
        }
        assert_eq!(
            player_may_drop(true, false, false),
            Err(PlayerRefusal::NotOwnEntry)
        );
        assert_eq!(player_may_drop(true, true, false), Ok(()));
    }

    #[test]
    fn a_player_never_excludes_even_themselves() {
        assert_eq!(
            player_may_drop(true, true, true),
            Err(PlayerRefusal::OnlyTheDirectorExcludes)
        );
    }
}
