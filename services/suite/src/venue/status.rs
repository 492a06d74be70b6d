//! `catan-suite venue status`: each event the venue pulled, as its director needs to know it
//! before going home: checked out since when and as what, what the venue has that the federation
//! does not have yet (results and other changes), and how its last publish went. It reads the
//! venue's files and its own suite only: it works with no route to the federation.

use super::bundle::Bundle;
use super::keep::{LastPublish, Tally, VenueFile};
use super::publish::{publishing_client, read_bundle};
use super::pull::VenueSuite;
use crate::Suite;
use anyhow::Context;
use catan_api::ApiClient;
use catan_kit::Settings;
use chrono::{DateTime, Utc};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct StatusArgs {
    /// Where the venue keeps its files (see `venue pull`).
    #[arg(long, env = "CATAN_VENUE_DIR", default_value = ".catan-venue")]
    pub venue_dir: PathBuf,
}

impl Tally {
    /// How much of its event `bundle` holds.
    pub fn of(bundle: &Bundle) -> Tally {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Tally {
            rounds: count(bundle.rounds.rounds.len()),
            sheet_versions: count(
                bundle
                    .results
                    .tables
                    .iter()
                    .map(|table| table.versions.len())
                    .sum(),
            ),
            changes: count(bundle.registration.audit.len()),
        }
    }

    /// What `self` has beyond `published` (all of it when nothing was published).
    pub fn beyond(self, published: Option<Tally>) -> Tally {
        let published = published.unwrap_or_default();
        Tally {
            rounds: self.rounds.saturating_sub(published.rounds),
            sheet_versions: self.sheet_versions.saturating_sub(published.sheet_versions),
            changes: self.changes.saturating_sub(published.changes),
        }
    }
}

/// One pulled event as the venue has it.
#[derive(Debug, Clone)]
pub struct EventStatus {
    pub file: VenueFile,
    /// The event's name and how much of it the venue has; None when the venue's suite lacks it
    /// (a pull that checked it out but did not copy it).
    pub held: Option<(String, Tally)>,
}

impl EventStatus {
    /// What the venue has that the federation has not had from it yet.
    pub fn unpublished(&self) -> Option<Tally> {
        let (_, now) = self.held.as_ref()?;
        Some(now.beyond(self.file.last_publish.as_ref().and_then(|p| p.had)))
    }
}

/// Every event pulled into `venue`, read from the venue's suite (started, read, stopped).
pub async fn status(venue: VenueSuite) -> anyhow::Result<Vec<EventStatus>> {
    let files = VenueFile::all(&venue.dir)?;
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let suite = Suite::start(venue.settings, "127.0.0.1:0")
        .await
        .context("starting the venue's suite")?;
    let local = publishing_client(&suite.url());
    let read = async {
        let admin = local.with_token(local.token(&venue.admin_key).await?.access_token);
        let mut statuses = Vec::with_capacity(files.len());
        for file in files {
            let held = held(&admin, &file).await;
            statuses.push(EventStatus { file, held });
        }
        anyhow::Ok(statuses)
    }
    .await;
    suite.stop().await;
    read.context("reading the venue's suite")
}

async fn held(admin: &ApiClient, file: &VenueFile) -> Option<(String, Tally)> {
    let event = admin.event(file.event_id).await.ok()?;
    let bundle = read_bundle(admin, file.event_id).await.ok()?;
    Some((event.name, Tally::of(&bundle)))
}

fn when(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

fn counted(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What `venue status` prints: a few lines for each event.
pub fn report(statuses: &[EventStatus], venue_dir: &Path) -> String {
    if statuses.is_empty() {
        return format!(
            "No event pulled into {}: `catan-suite venue pull --federation URL --event ID`\n",
            venue_dir.display()
        );
    }
    let mut said = String::new();
    for status in statuses {
        let file = &status.file;
        let name = status
            .held
            .as_ref()
            .map_or("(not in the venue's suite: pull it again)", |(name, _)| {
                name
            });
        said.push_str(&format!(
            "{name} (event {}), of the federation at {}\n",
            file.event_id, file.federation
        ));
        let since = file
            .checked_out_at
            .map(|at| format!(" since {}", when(at)))
            .unwrap_or_default();
        said.push_str(&match file.released_at {
            Some(at) => format!(
                "  Released {} (it was checked out to \"{}\"{since})\n",
                when(at),
                file.venue
            ),
            None => format!("  Checked out to \"{}\"{since}\n", file.venue),
        });
        if let Some(unpublished) = status.unpublished() {
            said.push_str(&if unpublished == Tally::default() {
                "  Not yet published: nothing (the federation has all the venue has)\n".to_owned()
            } else {
                format!(
                    "  Not yet published: {} (sheets posted or corrected), {} drawn, {} in all\n",
                    counted(unpublished.sheet_versions, "result", "results"),
                    counted(unpublished.rounds, "round", "rounds"),
                    counted(unpublished.changes, "change", "changes"),
                )
            });
        }
        said.push_str(&match &file.last_publish {
            None => "  Last publish: never (`catan-suite venue publish`)\n".to_owned(),
            Some(LastPublish { at, outcome, .. }) => {
                format!("  Last publish: {}: {outcome}\n", when(*at))
            }
        });
    }
    said.push_str("(What this venue knows, without asking the federation.)\n");
    said
}

/// `venue status` over the database and PIN key command 1 uses (see [`super::venue_suite`]).
pub(crate) async fn run_status(
    args: StatusArgs,
    settings: Settings,
    database_url: &str,
    pin_key_file: &Path,
) -> anyhow::Result<()> {
    let say = |line: String| println!("{line}");
    let venue = super::venue_suite(settings, database_url, pin_key_file, &args.venue_dir, &say)?;
    let statuses = status(venue).await?;
    print!("{}", report(&statuses, &args.venue_dir));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_yet_published_counts_from_the_last_publish_that_went_through() {
        let now = Tally {
            rounds: 3,
            sheet_versions: 14,
            changes: 40,
        };
        assert_eq!(now.beyond(None), now, "never published: all of it");
        let then = Tally {
            rounds: 2,
            sheet_versions: 10,
            changes: 31,
        };
        assert_eq!(
            now.beyond(Some(then)),
            Tally {
                rounds: 1,
                sheet_versions: 4,
                changes: 9
            }
        );
        assert_eq!(now.beyond(Some(now)), Tally::default());
    }
}
