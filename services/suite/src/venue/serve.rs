//! `catan-suite venue serve`: the venue's suite on the venue's own network, for the consoles, the
//! players' phones and the venue screen, with no internet. It says where phones reach it (and
//! shows that as a QR code for each event pulled), and makes the venue's staff keys locally: a
//! director key for each event, kept in the venue's folder. The federation's keys never come here.

use super::announce;
use super::keep::{self, VenueFile};
use crate::Suite;
use anyhow::Context;
use catan_api::{ApiClient, CreateApiKey, Role};
use catan_kit::Settings;
use clap::Args;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct ServeArgs {
    /// The address to serve on, given explicitly: the laptop's address on the venue's network
    /// (e.g. 192.168.1.20:8080), or 0.0.0.0:8080 for every network it is on.
    #[arg(long)]
    pub bind: SocketAddr,
    /// Where the venue keeps its files (as `venue pull` made them).
    #[arg(long, env = "CATAN_VENUE_DIR", default_value = ".catan-venue")]
    pub venue_dir: PathBuf,
}

/// One pulled event as the venue serves it.
#[derive(Debug, Clone)]
pub struct ServedEvent {
    pub name: String,
    /// Where its players sign in on their phones.
    pub players_url: String,
    /// The venue screen's page of it.
    pub screen_url: String,
    /// The file holding its director key of the venue's suite.
    pub director_key_file: PathBuf,
}

/// The venue's suite, serving.
pub struct Venue {
    pub suite: Suite,
    /// The base URL on the venue's network: `CATAN_PUBLIC_URL`, else the laptop's address there
    /// (None when the laptop is on no network).
    pub network_url: Option<String>,
    /// Every address it listens on, as a base URL (loopback among them).
    pub listening: Vec<String>,
    /// Whether a phone may reach any of them (false when bound to loopback only).
    pub phones_reach_it: bool,
    /// Whether it was bound to every interface (0.0.0.0, ::).
    pub bound_everywhere: bool,
    pub events: Vec<ServedEvent>,
}

/// Starts the venue's suite on `bind` with `settings` (the venue's database, PIN key and admin
/// key `admin_key`), and makes each pulled event's director key on its first serve.
pub async fn start(
    settings: Settings,
    admin_key: &str,
    bind: SocketAddr,
    venue_dir: &Path,
) -> anyhow::Result<Venue> {
    let public_url = settings.public_url.clone();
    let suite = Suite::start(settings, &bind.to_string())
        .await
        .with_context(|| format!("serving the venue's suite on {bind}"))?;
    let bound = SocketAddr::new(bind.ip(), port_of(&suite.url())?);
    let ips = announce::listening(bound);
    let listening = ips
        .iter()
        .map(|ip| announce::url_of(*ip, bound.port()))
        .collect();
    let phones_reach_it = ips.iter().any(|ip| announce::reachable_by_phones(*ip));
    // The public address when one is set (a name on the venue's network), else the laptop's.
    let network_url = public_url
        .map(|url| url.to_string())
        .or_else(|| announce::network_url(bound))
        .or_else(|| {
            let reachable = ips.iter().find(|ip| announce::reachable_by_phones(**ip))?;
            Some(announce::url_of(*reachable, bound.port()))
        });
    let base = network_url.clone().unwrap_or_else(|| suite.url());
    let local = ApiClient::new(&suite.url());
    let admin = local.with_token(local.token(admin_key).await?.access_token);
    let mut events = Vec::new();
    for file in VenueFile::all(venue_dir)? {
        let event = admin.event(file.event_id).await.with_context(|| {
            format!(
                "event {} is not in the venue's suite: pull it again",
                file.event_id
            )
        })?;
        let director_key_file = director_key(&admin, &file, &event.name, venue_dir).await?;
        events.push(ServedEvent {
            name: event.name,
            players_url: format!("{base}/events/{}/sign-in", event.id),
            screen_url: format!("{base}/events/{}/screen", event.id),
            director_key_file,
        });
    }
    Ok(Venue {
        suite,
        network_url,
        listening,
        phones_reach_it,
        bound_everywhere: bind.ip().is_unspecified(),
        events,
    })
}

/// The file with `file`'s event's director key of the venue's suite, made on the first serve.
async fn director_key(
    admin: &ApiClient,
    file: &VenueFile,
    event_name: &str,
    venue_dir: &Path,
) -> anyhow::Result<PathBuf> {
    let path = venue_dir.join(format!("{}.director-key", file.event_id));
    if path.exists() {
        return Ok(path);
    }
    let made = admin
        .create_api_key(&CreateApiKey {
            name: format!("Director of {event_name} at {}", file.venue),
            role: Role::Director,
            event_ids: Some(vec![file.event_id]),
            region_ids: None,
        })
        .await
        .context("making the event's director key in the venue's suite")?;
    keep::write_private(&path, format!("{}\n", made.api_key).as_bytes())?;
    Ok(path)
}

fn port_of(url: &str) -> anyhow::Result<u16> {
    url.rsplit(':')
        .next()
        .and_then(|port| port.trim_end_matches('/').parse().ok())
        .with_context(|| format!("no port in {url}"))
}

/// What the organiser reads on the laptop's screen once the venue serves.
pub fn announcement(venue: &Venue) -> String {
    let mut said = format!(
        "The venue's suite listens on {}\n",
        venue.listening.join(", ")
    );
    match &venue.network_url {
        Some(url) if venue.phones_reach_it => said.push_str(&format!(
            "Phones on the venue's network reach it at {url}\nThe consoles: {url}/console\n"
        )),
        Some(url) => said.push_str(&format!(
            "Warning: it listens on this laptop's loopback only: phones reach it only through \
             {url} (CATAN_PUBLIC_URL), if that forwards to this laptop.\nThe consoles: \
             {url}/console\n"
        )),
        None if venue.bound_everywhere => said.push_str(&format!(
            "Warning: no phone can reach it: this laptop is on no network (loopback only). Join \
             the venue's network and serve again.\nThe consoles, on this laptop only: \
             {}/console\n",
            venue.suite.url()
        )),
        None => said.push_str(&format!(
            "Warning: no phone can reach it: it listens on this laptop's loopback only. Serve \
             with --bind 0.0.0.0:{port} (every network of this laptop), or with the laptop's \
             address on the venue's network.\nThe consoles, on this laptop only: {}/console\n",
            venue.suite.url(),
            port = port_of(&venue.suite.url()).unwrap_or(8080)
        )),
    }
    if venue.events.is_empty() {
        said.push_str(
            "No event pulled yet: `catan-suite venue pull --federation URL --event ID`\n",
        );
    }
    for event in &venue.events {
        if venue.network_url.is_none() {
            said.push_str(&format!(
                "\n{}\n  Players sign in at {} (on this laptop only)\n",
                event.name, event.players_url
            ));
        } else {
            said.push_str(&format!(
                "\n{}\n  Players sign in on their phones at {} (or scan):\n",
                event.name, event.players_url
            ));
            if let Some(qr) = announce::qr_lines(&event.players_url) {
                said.push_str(&qr);
            }
        }
        said.push_str(&format!(
            "  The venue screen: {}\n  The director signs in to the console with the key in {}\n",
            event.screen_url,
            event.director_key_file.display()
        ));
    }
    said
}

/// `venue serve` in the venue's suite (see [`super::venue_suite`]), until it is stopped.
pub(crate) async fn run_serve(
    args: ServeArgs,
    settings: Settings,
    database_url: &str,
    pin_key_file: &Path,
) -> anyhow::Result<()> {
    let say = |line: String| println!("{line}");
    let local = super::venue_suite(settings, database_url, pin_key_file, &args.venue_dir, &say)?;
    let venue = start(local.settings, &local.admin_key, args.bind, &args.venue_dir).await?;
    print!("{}", announcement(&venue));
    println!("Ctrl-C stops it.");
    venue.suite.wait().await
}
