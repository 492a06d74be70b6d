//! `catan-suite venue`: running an event at a venue without the internet (issue 34). `pull`
//! checks the event out of the federation and copies it into the venue's own suite, `serve`
//! runs that suite on the venue's network, and `publish` sends the event back.

pub mod announce;
pub mod bundle;
pub mod federation;
pub mod keep;
pub mod publish;
pub mod pull;
pub mod serve;
pub mod status;

use catan_kit::Settings;
use catan_kit::settings::ExposeSecret;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};
use uuid::Uuid;

#[derive(Subcommand)]
pub enum VenueCommand {
    /// Check an event out of the federation to this venue and copy it (its settings, region,
    /// entries and players) into this machine's suite, under the federation's ids.
    Pull(PullArgs),
    /// Send the event the venue ran back to the federation, signed with the checkout's key:
    /// checked whole first, then applied part by part, each part only once.
    Publish(publish::PublishArgs),
    /// Serve the venue's suite (the consoles, the players' phones, the venue screen) on the
    /// venue's network, saying where phones reach it, with a QR code for each event pulled.
    Serve(serve::ServeArgs),
    /// List each event the venue pulled: checked out since when and as what, the results and
    /// changes not yet published, and the last publish and its outcome. Needs no route to the
    /// federation.
    Status(status::StatusArgs),
}

#[derive(Args)]
pub struct PullArgs {
    /// The federation's base URL (e.g. https://catan.example.org).
    #[arg(long)]
    pub federation: String,
    /// The event's id at the federation.
    #[arg(long)]
    pub event: Uuid,
    /// An API key of the federation that may check the event out (its organiser's or
    /// director's, or the admin's). Used for this pull only, never kept.
    #[arg(long, env = "CATAN_FEDERATION_KEY", hide_env_values = true)]
    pub key: String,
    /// The venue's name, as the federation will name it while the event is checked out (this
    /// machine's name when absent).
    #[arg(long)]
    pub venue: Option<String>,
    /// Copy the region's other players too, for late entries at the venue.
    #[arg(long)]
    pub region_players: bool,
    /// Where the venue keeps its files: each event's checkout key, the venue suite's admin key.
    #[arg(long, env = "CATAN_VENUE_DIR", default_value = ".catan-venue")]
    pub venue_dir: PathBuf,
}

/// This machine's name, else "venue".
pub fn machine_name() -> String {
    std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "venue".to_owned())
}

/// The venue's suite as `venue pull`, `serve` and `publish` run it: over the database and with
/// the PIN key command 1 uses (`database_url`, `pin_key_file`), with the admin key it is
/// configured with (`CATAN_ADMIN_KEY`), else the venue's own, kept in `venue_dir` and made
/// there on first use (then said).
pub(crate) fn venue_suite(
    settings: Settings,
    database_url: &str,
    pin_key_file: &Path,
    venue_dir: &Path,
    say: &dyn Fn(String),
) -> anyhow::Result<pull::VenueSuite> {
    let mut settings = Settings {
        database: crate::cli::with_url(&settings, database_url),
        ..settings
    };
    if settings.tokens.pin_key.is_none() {
        settings.tokens.pin_key = Some(crate::cli::pin_key_in(pin_key_file)?);
    }
    let admin_key = match &settings.tokens.admin_key {
        Some(configured) => configured.expose_secret().to_owned(),
        None => {
            let (made, key) = keep::venue_admin_key(venue_dir)?;
            if made {
                say(format!(
                    "Admin key of the venue's suite made and kept in {}",
                    venue_dir.join("admin-key").display()
                ));
            }
            settings.tokens.admin_key = Some(key.clone().into());
            key
        }
    };
    Ok(pull::VenueSuite {
        settings,
        admin_key,
        dir: venue_dir.to_owned(),
    })
}

/// `venue pull` in the venue's suite (see [`venue_suite`]).
pub(crate) async fn run_pull(
    args: PullArgs,
    settings: Settings,
    database_url: &str,
    pin_key_file: &Path,
) -> anyhow::Result<()> {
    let say = |line: String| println!("{line}");
    let local = venue_suite(settings, database_url, pin_key_file, &args.venue_dir, &say)?;
    let venue = args.venue.clone().unwrap_or_else(machine_name);
    let order = pull::PullOrder {
        federation: args.federation.trim_end_matches('/'),
        federation_key: &args.key,
        event_id: args.event,
        venue: &venue,
        region_players: args.region_players,
    };
    let pulled = pull::pull(&order, local, &say).await?;
    say(format!(
        "\nThe event is at the venue. Serve it on the venue's network, e.g.:\n  \
         cargo run -p catan-suite -- venue serve --bind 0.0.0.0:8080\n\
         Keep {}: it holds the key the venue publishes the event with.",
        pulled.venue_file.display()
    ));
    Ok(())
}
