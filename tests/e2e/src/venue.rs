//! A venue's side of venue mode's tests (issue 34): its own database, admin key and folder, and
//! the library functions behind `catan-suite venue pull` and `venue publish` run against it.

use crate::{StoppedSuite, TestSuite, drop_database, fresh_database};
use catan_api::ApiClient;
use catan_kit::Settings;
use catan_suite::Suite;
use catan_suite::venue::bundle::{Bundle, SignedBundle};
use catan_suite::venue::keep::VenueFile;
use catan_suite::venue::publish::{Published, export, publish};
use catan_suite::venue::pull::{PullOrder, Pulled, VenueSuite, pull};
use catan_suite::venue::status::{EventStatus, report, status};
use std::path::PathBuf;
use uuid::Uuid;

/// The venue's name, as the federation's checkout and refusals name it.
pub const VENUE: &str = "Casal de Gràcia";

/// The venue's side: its database, settings and folder.
pub struct Venue {
    pub settings: Settings,
    pub database_url: String,
    pub admin_key: String,
    pub dir: PathBuf,
}

impl Venue {
    /// A venue with a fresh database (blocking: call it in `spawn_blocking`).
    #[allow(
        clippy::new_without_default,
        reason = "it makes a database: nothing a default would do"
    )]
    pub fn new() -> Venue {
        let database_url = fresh_database().expect("a fresh venue database");
        let admin_key = format!("ck_venue_admin_{}", Uuid::new_v4().simple());
        let mut settings = Settings::local(&database_url);
        settings.tokens.admin_key = Some(admin_key.clone().into());
        Venue {
            settings,
            database_url,
            admin_key,
            dir: std::env::temp_dir().join(format!("catan-venue-{}", Uuid::new_v4())),
        }
    }

    /// The venue's suite as `venue pull` and `venue publish` start it.
    pub fn suite(&self) -> VenueSuite {
        VenueSuite {
            settings: self.settings.clone(),
            admin_key: self.admin_key.clone(),
            dir: self.dir.clone(),
        }
    }

    /// Pulls `event_id` from the federation with the federation's key `key`.
    pub async fn pull(&self, federation: &TestSuite, key: &str, event_id: Uuid) -> Pulled {
        self.try_pull(federation, key, event_id, false)
            .await
            .expect("the pull")
    }

    pub async fn try_pull(
        &self,
        federation: &TestSuite,
        key: &str,
        event_id: Uuid,
        region_players: bool,
    ) -> anyhow::Result<Pulled> {
        self.try_pull_from(
            &federation.suite.url(),
            key,
            event_id,
            VENUE,
            region_players,
        )
        .await
    }

    /// `venue pull` from the federation at `url`, the venue named `venue` (`--venue`).
    pub async fn try_pull_from(
        &self,
        url: &str,
        key: &str,
        event_id: Uuid,
        venue: &str,
        region_players: bool,
    ) -> anyhow::Result<Pulled> {
        let order = PullOrder {
            federation: url,
            federation_key: key,
            event_id,
            venue,
            region_players,
        };
        pull(&order, self.suite(), &say).await
    }

    /// The files the venue keeps in its folder, by name.
    pub fn kept_files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.dir)
            .map(|listed| {
                listed
                    .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// The venue's suite, started again, with its admin's client.
    pub async fn start(&self) -> (Suite, ApiClient) {
        let suite = Suite::start(self.settings.clone(), "127.0.0.1:0")
            .await
            .expect("the venue's suite starts");
        let public = ApiClient::new(&suite.url());
        let token = public
            .token(&self.admin_key)
            .await
            .expect("the venue's admin token")
            .access_token;
        (suite, public.with_token(token))
    }

    /// The venue's suite, started again, as a [`TestSuite`] (its database kept when it stops
    /// with `stop_keeping_database`).
    pub async fn running(&self) -> TestSuite {
        StoppedSuite {
            database_url: self.database_url.clone(),
            admin_key: self.admin_key.clone(),
            addr: "127.0.0.1:0".into(),
        }
        .start()
        .await
    }

    /// The event's bundle read from the venue's suite (as `venue publish` reads it), and signed
    /// with the venue file's key.
    pub async fn signed_bundle(&self, event_id: Uuid) -> (Bundle, SignedBundle) {
        let bundle = export(event_id, self.suite(), &say)
            .await
            .expect("the export");
        let file = VenueFile::read(&self.dir, event_id)
            .expect("the venue file")
            .expect("the event was pulled");
        let key = file.signing_key().expect("the venue's key");
        let signed = bundle.clone().signed(&key).expect("signed");
        (bundle, signed)
    }

    /// `venue status`: each pulled event, read from the venue's suite, and the report printed.
    pub async fn status(&self) -> (Vec<EventStatus>, String) {
        let statuses = status(self.suite()).await.expect("venue status");
        let report = report(&statuses, &self.dir);
        println!("{report}");
        (statuses, report)
    }

    /// `venue publish` of `event_id`.
    pub async fn publish(&self, event_id: Uuid) -> anyhow::Result<Published> {
        publish(event_id, self.suite(), &say).await
    }

    pub async fn remove(self) {
        drop_database(&self.database_url).await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn say(line: String) {
    println!("{line}");
}
