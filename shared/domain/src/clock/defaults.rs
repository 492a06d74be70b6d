//! How long a game is when the event does not say, and when the `round.ending` notice goes out.

use std::num::NonZeroU32;

use crate::partner::PartnerSettings;
use crate::results::Stage;

/// Minutes a classic game gets when the event does not set `minutes_per_game`. The tournament
/// rules end every round but the final at "the end time indicated for that round"
/// (clarification 7) without saying how long that is, so 90 minutes is our decision: the partner
/// rules give 60 minutes to a game whose every turn has a two-minute thinking limit (rule 1);
/// a classic game has none (clarification 6 allows only a one-minute trading limit against slow
/// play), so it gets half as long again.
pub const CLASSIC_MINUTES_PER_GAME: u32 = 90;

/// Minutes before the round's end that `round.ending` is due when the suite is not told
/// otherwise: the last five minutes, when the venue screen's countdown turns red (issue 32).
pub const DEFAULT_ENDING_NOTICE_MINUTES: NonZeroU32 = match NonZeroU32::new(5) {
    Some(five) => five,
    None => NonZeroU32::MIN,
};

/// The minutes a game of `stage` gets by default, none for the final, which the tournament rules
/// play until won (clarification 7 and Finals). A partner event's Swiss round takes the partner
/// rules' 60 minutes (rule 1), its `minutes_per_game`.
pub fn default_minutes_per_game(stage: Stage) -> Option<u32> {
    match stage {
        Stage::Qualifying | Stage::Semifinal => Some(CLASSIC_MINUTES_PER_GAME),
        Stage::Swiss => Some(PartnerSettings::default().minutes_per_game),
        Stage::Final => None,
    }
}
