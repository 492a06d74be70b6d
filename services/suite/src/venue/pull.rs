//! `catan-suite venue pull`: checks an event out of the federation to this venue and copies it,
//! with its region, entries and players, into the venue's own suite under the federation's ids,
//! saying each step on a line of its own.

use super::federation::{self, CheckedOut};
use super::keep::VenueFile;
use crate::Suite;
use anyhow::{Context, bail};
use catan_api::{ApiClient, Checkout, CopyCounts, VenueCopy, VenueCopyTaken};
use catan_kit::Settings;
use std::path::PathBuf;
use uuid::Uuid;

/// What to pull, from where.
pub struct PullOrder<'a> {
    /// The federation's base URL.
    pub federation: &'a str,
    /// An API key of the federation that may check the event out (its organiser's or director's,
    /// or the admin's). Used for this pull only, never kept.
    pub federation_key: &'a str,
    pub event_id: Uuid,
    /// The venue's name, as the federation's refusals will name it.
    pub venue: &'a str,
    /// Copy the region's other players too, for late entries at the venue.
    pub region_players: bool,
}

/// The venue's own suite: its settings (database and secrets) and admin key, and the folder
/// where the venue keeps its files.
pub struct VenueSuite {
    pub settings: Settings,
    pub admin_key: String,
    pub dir: PathBuf,
}

/// What a pull did.
pub struct Pulled {
    pub checkout: Checkout,
    pub copy: VenueCopy,
    pub taken: VenueCopyTaken,
    /// The venue's file of the event (its checkout key).
    pub venue_file: PathBuf,
}

/// Runs the pull `order` into `venue`, saying each step. Nothing is kept at the venue before the
/// federation has answered, taken the key, and checked the event out to the venue: a pull that
/// fails before leaves no file behind. The venue's file of the event is kept as soon as the
/// checkout is made (written whole or not at all), so that the key the federation holds is never
/// lost; a pull that fails after it says so, and the next pull goes on from that checkout.
pub async fn pull(
    order: &PullOrder<'_>,
    venue: VenueSuite,
    say: &dyn Fn(String),
) -> anyhow::Result<Pulled> {
    let path = VenueFile::path(&venue.dir, order.event_id);
    let kept = match VenueFile::read(&venue.dir, order.event_id)? {
        Some(file) if file.federation != order.federation => bail!(
            "{} holds a checkout of this event from another federation ({})",
            path.display(),
            file.federation
        ),
        kept => kept,
    };
    let federation = federation::reached(order.federation, order.federation_key).await?;
    say(format!(
        "Signed in to the federation at {}",
        order.federation
    ));
    let checked_out = federation::check_out(
        &federation,
        order.federation,
        order.event_id,
        order.venue,
        kept,
    )
    .await?;
    let since = |checkout: &Checkout| checkout.checked_out_at.format("%Y-%m-%d %H:%M:%S UTC");
    let checkout = match checked_out {
        CheckedOut::Now(checkout, file) => {
            VenueFile {
                checked_out_at: Some(checkout.checked_out_at),
                ..file
            }
            .write(&venue.dir)?;
            say(format!(
                "Event {} checked out to \"{}\" since {}: the federation refuses writes to it \
                 until its checkout is released (by its organiser or the admin)",
                order.event_id,
                checkout.venue,
                since(&checkout)
            ));
            say(format!(
                "Venue key made and kept in {} (its owner only reads it)",
                path.display()
            ));
            checkout
        }
        CheckedOut::Before(checkout, file) => {
            say(format!(
                "Event {} was checked out to \"{}\" already, with the venue key kept in {}, \
                 since {}",
                order.event_id,
                checkout.venue,
                path.display(),
                since(&checkout)
            ));
            if checkout.venue != order.venue {
                say(format!(
                    "  (it keeps that name, not \"{}\", until the checkout is released)",
                    order.venue
                ));
            }
            if file.checked_out_at.is_none() {
                VenueFile {
                    checked_out_at: Some(checkout.checked_out_at),
                    ..file
                }
                .write(&venue.dir)?;
            }
            checkout
        }
    };
    let copied = async {
        let copy = federation::read_copy(&federation, order.event_id, order.region_players)
            .await
            .context("reading the event from the federation")?;
        say(format!(
            "Copied from the federation: event \"{}\", {} region{}, {} entries, {} players",
            copy.event.name,
            copy.regions.len(),
            if copy.regions.len() == 1 { "" } else { "s" },
            copy.entries.len(),
            copy.players.len()
        ));
        let taken = take_in(&copy, venue, say).await?;
        anyhow::Ok((copy, taken))
    }
    .await;
    let (copy, taken) = copied.with_context(|| {
        format!(
            "the event is checked out to \"{}\", but its copy did not reach the venue's suite: \
             pull again (it goes on with this checkout)",
            checkout.venue
        )
    })?;
    Ok(Pulled {
        checkout,
        copy,
        taken,
        venue_file: path,
    })
}

/// Starts the venue's suite, takes the copy in with its admin rights, and stops it.
async fn take_in(
    copy: &VenueCopy,
    venue: VenueSuite,
    say: &dyn Fn(String),
) -> anyhow::Result<VenueCopyTaken> {
    let suite = Suite::start(venue.settings, "127.0.0.1:0")
        .await
        .context("starting the venue's suite")?;
    say(format!("The venue's suite started on {}", suite.url()));
    let local = ApiClient::new(&suite.url());
    let taken = async {
        let token = local.token(&venue.admin_key).await?.access_token;
        local
            .with_token(token)
            .take_in_venue_copy(copy, false)
            .await
    }
    .await;
    suite.stop().await;
    let taken = taken.context("taking the copy into the venue's suite")?;
    say(format!(
        "Taken into the venue's suite (new: {}; the same as before: {}); the suite stopped",
        counted(taken.created),
        counted(taken.unchanged)
    ));
    Ok(taken)
}

/// Counts as words: "1 event, 8 players, 8 entries" (the kinds with none left out).
fn counted(counts: CopyCounts) -> String {
    let kinds = [
        (counts.regions, "region", "regions"),
        (counts.events, "event", "events"),
        (counts.players, "player", "players"),
        (counts.entries, "entry", "entries"),
    ];
    let said: Vec<String> = kinds
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, one, many)| format!("{n} {}", if *n == 1 { one } else { many }))
        .collect();
    if said.is_empty() {
        "nothing".to_owned()
    } else {
        said.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_said_in_words_without_the_kinds_of_none() {
        let counts = CopyCounts {
            regions: 1,
            events: 1,
            players: 8,
            entries: 0,
            audit_records: 0,
        };
        assert_eq!(counted(counts), "1 region, 1 event, 8 players");
        assert_eq!(counted(CopyCounts::default()), "nothing");
    }
}
