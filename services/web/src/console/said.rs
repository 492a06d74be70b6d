//! What a console action did, said on the page it leads to (issue 41).

use super::Done;
use crate::i18n::Lang;

/// What an action did, said at the top of the page it leads to ("Round 2 redrawn"). It is
/// carried in the redirect's address (`done` and the numbers it names), so it needs no state
/// and shows without JavaScript; the console's script takes it off the address once shown, so a
/// reload does not say it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Said {
    ResultRecorded { table: u32 },
    ResultCorrected { table: u32 },
    ResultVoided { table: u32 },
    RoundDrawn { round: u32 },
    RoundRedrawn { round: u32 },
    PlayersSwapped { round: u32 },
    EventSaved,
    ClockStarted,
    ClockPaused,
    ClockResumed,
    MinutesGiven { minutes: u32, table: Option<u32> },
    RoundEnded,
    PlayerRenamed,
    EntryReinstated,
    EntryDropped { excluded: bool },
    KeepApartSaved,
    KeyRevoked,
}

impl Said {
    /// The query that carries it.
    pub(super) fn query(self) -> String {
        match self {
            Said::ResultRecorded { table } => format!("done=result&table={table}"),
            Said::ResultCorrected { table } => format!("done=corrected&table={table}"),
            Said::ResultVoided { table } => format!("done=voided&table={table}"),
            Said::RoundDrawn { round } => format!("done=drawn&round={round}"),
            Said::RoundRedrawn { round } => format!("done=redrawn&round={round}"),
            Said::PlayersSwapped { round } => format!("done=swapped&round={round}"),
            Said::EventSaved => "done=saved".into(),
            Said::ClockStarted => "done=started".into(),
            Said::ClockPaused => "done=paused".into(),
            Said::ClockResumed => "done=resumed".into(),
            Said::MinutesGiven { minutes, table } => match table {
                Some(table) => format!("done=minutes&minutes={minutes}&table={table}"),
                None => format!("done=minutes&minutes={minutes}"),
            },
            Said::RoundEnded => "done=ended".into(),
            Said::PlayerRenamed => "done=renamed".into(),
            Said::EntryReinstated => "done=reinstated".into(),
            Said::EntryDropped { excluded: false } => "done=dropped".into(),
            Said::EntryDropped { excluded: true } => "done=excluded".into(),
            Said::KeepApartSaved => "done=apart".into(),
            Said::KeyRevoked => "done=revoked".into(),
        }
    }

    /// What a page's address says was done, if anything it knows.
    pub(super) fn of_query(query: &str) -> Option<Said> {
        let fields: std::collections::HashMap<String, String> =
            serde_urlencoded::from_str(query).ok()?;
        let number = |name: &str| fields.get(name).and_then(|v| v.parse::<u32>().ok());
        Some(match fields.get("done")?.as_str() {
            "result" => Said::ResultRecorded {
                table: number("table")?,
            },
            "corrected" => Said::ResultCorrected {
                table: number("table")?,
            },
            "voided" => Said::ResultVoided {
                table: number("table")?,
            },
            "drawn" => Said::RoundDrawn {
                round: number("round")?,
            },
            "redrawn" => Said::RoundRedrawn {
                round: number("round")?,
            },
            "swapped" => Said::PlayersSwapped {
                round: number("round")?,
            },
            "saved" => Said::EventSaved,
            "started" => Said::ClockStarted,
            "paused" => Said::ClockPaused,
            "resumed" => Said::ClockResumed,
            "minutes" => Said::MinutesGiven {
                minutes: number("minutes")?,
                table: number("table"),
            },
            "ended" => Said::RoundEnded,
            "renamed" => Said::PlayerRenamed,
            "reinstated" => Said::EntryReinstated,
            "dropped" => Said::EntryDropped { excluded: false },
            "excluded" => Said::EntryDropped { excluded: true },
            "apart" => Said::KeepApartSaved,
            "revoked" => Said::KeyRevoked,
            _ => return None,
        })
    }

    /// It in words.
    pub(super) fn words(self, lang: Lang) -> String {
        let w = lang.words();
        let n = |n: u32| lang.int(u64::from(n));
        match self {
            Said::ResultRecorded { table } => w.said_result_recorded.replace("{table}", &n(table)),
            Said::ResultCorrected { table } => {
                w.said_result_corrected.replace("{table}", &n(table))
            }
            Said::ResultVoided { table } => w.said_result_voided.replace("{t}", &n(table)),
            Said::RoundDrawn { round } => w.said_round_drawn.replace("{round}", &n(round)),
            Said::RoundRedrawn { round } => w.said_round_redrawn.replace("{round}", &n(round)),
            Said::PlayersSwapped { round } => w.said_players_swapped.replace("{round}", &n(round)),
            Said::EventSaved => w.said_event_saved.to_owned(),
            Said::ClockStarted => w.said_clock_started.to_owned(),
            Said::ClockPaused => w.said_clock_paused.to_owned(),
            Said::ClockResumed => w.said_clock_resumed.to_owned(),
            Said::MinutesGiven {
                minutes,
                table: None,
            } => w.said_minutes_given.replace("{n}", &n(minutes)),
            Said::MinutesGiven {
                minutes,
                table: Some(table),
            } => w
                .said_minutes_given_table
                .replace("{n}", &n(minutes))
                .replace("{table}", &n(table)),
            Said::RoundEnded => w.said_round_ended.to_owned(),
            Said::PlayerRenamed => w.said_player_renamed.to_owned(),
            Said::EntryReinstated => w.said_entry_reinstated.to_owned(),
            Said::EntryDropped { excluded: false } => w.said_entry_dropped.to_owned(),
            Said::EntryDropped { excluded: true } => w.said_entry_excluded.to_owned(),
            Said::KeepApartSaved => w.said_keep_apart_saved.to_owned(),
            Said::KeyRevoked => w.said_key_revoked.to_owned(),
        }
    }
}

/// To `path` (without a query, with a `#fragment` or not), saying there what was done.
pub fn go_saying(path: String, said: Said) -> Done {
    let (page, fragment) = match path.split_once('#') {
        Some((page, fragment)) => (page, format!("#{fragment}")),
        None => (path.as_str(), String::new()),
    };
    Done::GoTo(format!("{page}?{}{fragment}", said.query()))
}

#[cfg(test)]
mod tests {
    use super::Said;

    #[test]
    fn what_was_done_reads_back_from_its_query_and_nothing_else_does() {
        for said in [
            Said::ResultRecorded { table: 3 },
            Said::ResultCorrected { table: 3 },
            Said::ResultVoided { table: 3 },
            Said::RoundRedrawn { round: 2 },
            Said::PlayersSwapped { round: 2 },
            Said::MinutesGiven {
                minutes: 5,
                table: Some(1),
            },
            Said::MinutesGiven {
                minutes: 5,
                table: None,
            },
            Said::RoundEnded,
            Said::EntryDropped { excluded: false },
            Said::EntryDropped { excluded: true },
            Said::KeepApartSaved,
        ] {
            assert_eq!(Said::of_query(&said.query()), Some(said));
        }
        let super::Done::GoTo(to) =
            super::go_saying("/console/events/1#entries".into(), Said::KeepApartSaved)
        else {
            panic!("a redirect");
        };
        assert_eq!(
            to, "/console/events/1?done=apart#entries",
            "the query before the fragment"
        );
        assert_eq!(Said::of_query("done=result"), None, "its table missing");
        assert_eq!(Said::of_query("done=%3Cscript%3E"), None);
        assert_eq!(Said::of_query("q=ada"), None);
        let words = Said::ResultRecorded { table: 3 }.words(crate::i18n::Lang::En);
        assert_eq!(words, "Result recorded for table 3");
    }
}
