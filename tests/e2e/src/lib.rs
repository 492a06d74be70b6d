//! End-to-end tests across the services, through HTTP only. This library is their harness:
//! `spawn_suite` starts the whole suite on free ports over a fresh database of its own;
//! [`fixtures`] make events, rounds and results through the typed client; [`http`] sends raw
//! requests for what the typed client cannot say; [`problem`] checks refusals; [`webhooks`] is a
//! receiver for webhook deliveries.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test harness: a failed step fails the test"
)]

use catan_api::ApiClient;
use catan_kit::Settings;
use catan_kit::db;
use catan_suite::Suite;
use diesel::{Connection, PgConnection, RunQueryDsl};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use uuid::Uuid;

pub mod axe;
pub mod browser;
pub mod console;
pub mod fixtures;
pub mod http;
pub mod league;
pub mod network;
pub mod phone;
pub mod problem;
pub mod venue;
pub mod visitor;
pub mod webhooks;

pub use fixtures::{
    EventFixture, new_key, new_player, place_of, seat_at, seated, seated_entries, won_by_first,
};
pub use http::{Answer, Request};
pub use problem::{assert_refused, assert_sheet_refused, names, problem_of};

/// The server tests create their databases on: `TEST_DATABASE_URL`, else the local one.
pub fn server_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable".into())
}

/// A running suite over its own database, with an admin client.
pub struct TestSuite {
    pub suite: Suite,
    pub database_url: String,
    pub admin_key: String,
    /// The admin's token, for raw requests.
    pub admin_token: String,
    /// Sends the admin's token.
    pub admin: ApiClient,
    /// Sends no token.
    pub anonymous: ApiClient,
    /// Sends the raw requests of [`TestSuite::http`].
    pub http_client: reqwest::Client,
}

impl TestSuite {
    /// A fresh access token for `api_key`.
    pub async fn token(&self, api_key: &str) -> String {
        self.anonymous
            .token(api_key)
            .await
            .expect("token")
            .access_token
    }

    /// A client with a fresh token for `api_key`.
    pub async fn client_for(&self, api_key: &str) -> ApiClient {
        self.anonymous.with_token(self.token(api_key).await)
    }

    /// A client with the token a player gets for `event_id` with `pin`.
    pub async fn player_client(&self, event_id: Uuid, player_id: Uuid, pin: &str) -> ApiClient {
        let token = self
            .anonymous
            .player_token(event_id, player_id, pin)
            .await
            .expect("player token")
            .access_token;
        self.anonymous.with_token(token)
    }

    /// Waits until ranking's read model includes every change made before the call: each feed
    /// read to its end, and the views computed, by a round of the follower that began after it.
    pub async fn settled(&self) {
        let asked = chrono::Utc::now();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let state = self.anonymous.read_model_state().await.expect("feeds");
            if state
                .feeds
                .iter()
                .all(|f| f.caught_up_at.is_some_and(|at| at > asked))
            {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the read model did not catch up: {state:?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// Waits until ranking's follower has found that it cannot read the feed `name`
    /// (`registration` or `results`): from then on its reads say they may be behind.
    pub async fn failing_feed_noticed(&self, name: &str) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let state = self.anonymous.read_model_state().await.expect("feeds");
            if state
                .feeds
                .iter()
                .any(|f| f.name == name && f.failing_since.is_some())
            {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{name}'s failure is not noticed"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// The classic standings of `event_id`, once the read model has every change made so far,
    /// read as the public reads them.
    pub async fn standings(&self, event_id: Uuid) -> catan_api::Standings {
        self.settled().await;
        self.anonymous.standings(event_id).await.expect("standings")
    }

    /// The partner standings of `event_id`, as [`TestSuite::standings`].
    pub async fn partner_standings(&self, event_id: Uuid) -> catan_api::PartnerStandings {
        self.settled().await;
        self.anonymous
            .partner_standings(event_id)
            .await
            .expect("partner standings")
    }

    /// The placements of `event_id`, as [`TestSuite::standings`].
    pub async fn placements(&self, event_id: Uuid) -> catan_api::Placements {
        self.settled().await;
        self.anonymous
            .placements(event_id)
            .await
            .expect("placements")
    }

    /// The key registration signs tokens with, read from its schema: tests forge tokens with it.
    pub fn signing_key(&self) -> catan_kit::auth::SigningKey {
        #[derive(diesel::QueryableByName)]
        struct Seed {
            #[diesel(sql_type = diesel::sql_types::Bytea)]
            seed: Vec<u8>,
        }
        let mut conn = PgConnection::establish(&self.database_url).expect("test database");
        let row: Seed = diesel::sql_query(
            "SELECT seed FROM registration.signing_keys ORDER BY created_at DESC LIMIT 1",
        )
        .get_result(&mut conn)
        .expect("a signing key");
        catan_kit::auth::SigningKey::from_seed(row.seed.try_into().expect("32 bytes"))
    }

    /// Runs `sql` against the test database and returns the single bigint it selects.
    pub fn count(&self, sql: &str) -> i64 {
        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let mut conn = PgConnection::establish(&self.database_url).expect("test database");
        diesel::sql_query(sql)
            .get_result::<Count>(&mut conn)
            .expect("count query")
            .n
    }

    /// Stops the suite and keeps its database, to be started again over it (see
    /// [`StoppedSuite::start`]).
    pub async fn stop_keeping_database(self) -> StoppedSuite {
        let addr = self.suite.url().trim_start_matches("http://").to_owned();
        self.suite.stop().await;
        StoppedSuite {
            database_url: self.database_url,
            admin_key: self.admin_key,
            addr,
        }
    }

    /// Stops the suite and drops its database.
    pub async fn shutdown(self) {
        self.suite.stop().await;
        drop_database(&self.database_url).await;
    }
}

/// A suite stopped with its database kept: [`StoppedSuite::start`] starts it again over the same
/// database, on the same address, with the same admin key (so that its URL keeps working).
pub struct StoppedSuite {
    pub database_url: String,
    pub admin_key: String,
    /// The gateway's address (`127.0.0.1:0` for any free port).
    pub addr: String,
}

impl StoppedSuite {
    /// The suite started again.
    pub async fn start(self) -> TestSuite {
        let mut settings = Settings::local(&self.database_url);
        settings.tokens.admin_key = Some(self.admin_key.clone().into());
        let suite = Suite::start(settings, &self.addr)
            .await
            .expect("the suite starts again");
        let anonymous = ApiClient::new(&suite.url());
        let token = anonymous
            .token(&self.admin_key)
            .await
            .expect("admin token")
            .access_token;
        TestSuite {
            admin: anonymous.with_token(token.clone()),
            admin_token: token,
            anonymous,
            http_client: reqwest::Client::new(),
            suite,
            database_url: self.database_url,
            admin_key: self.admin_key,
        }
    }
}

/// Drops the test database at `database_url` (one [`fresh_database`] made).
pub async fn drop_database(database_url: &str) {
    let name = database_url
        .rsplit('/')
        .next()
        .and_then(|tail| tail.split('?').next())
        .unwrap_or_default()
        .to_string();
    let _ = tokio::task::spawn_blocking(move || {
        let mut conn = PgConnection::establish(&server_url())?;
        diesel::sql_query(format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
            .execute(&mut conn)?;
        anyhow::Ok(())
    })
    .await;
}

/// Starts the suite over a fresh database cloned from a migrated template.
pub async fn spawn_suite() -> TestSuite {
    spawn_suite_configured(|_| {}).await
}

/// Starts the suite as `spawn_suite` does, with one classic event of `players` new players
/// (see [`TestSuite::classic_event`]).
pub async fn spawn_suite_with_event(
    players: usize,
    qualifying_rounds: Option<i64>,
) -> (TestSuite, EventFixture) {
    let ts = spawn_suite().await;
    let fx = ts.classic_event(players, qualifying_rounds).await;
    (ts, fx)
}

/// Webhook settings for tests: receivers on this machine allowed, retries within a second.
pub fn fast_webhooks() -> catan_kit::webhooks::WebhookSettings {
    catan_kit::webhooks::WebhookSettings {
        allow_private: true,
        max_attempts: 4,
        first_retry: std::time::Duration::from_millis(300),
        timeout: std::time::Duration::from_secs(2),
        poll_interval: std::time::Duration::from_millis(100),
        ..catan_kit::webhooks::WebhookSettings::default()
    }
}

/// Starts the suite as `spawn_suite` does, with these webhook settings.
pub async fn spawn_suite_with(webhooks: catan_kit::webhooks::WebhookSettings) -> TestSuite {
    spawn_suite_configured(|settings| settings.webhooks = webhooks).await
}

/// Starts the suite as `spawn_suite` does, with the settings `configure` makes of the defaults.
pub async fn spawn_suite_configured(configure: impl FnOnce(&mut Settings)) -> TestSuite {
    let database_url = tokio::task::spawn_blocking(fresh_database)
        .await
        .expect("database task")
        .expect("a fresh test database");
    let admin_key = format!("ck_test_admin_{}", Uuid::new_v4().simple());
    let mut settings = Settings::local(&database_url);
    settings.tokens.admin_key = Some(admin_key.clone().into());
    configure(&mut settings);
    let suite = Suite::start(settings, "127.0.0.1:0")
        .await
        .expect("the suite starts");
    let anonymous = ApiClient::new(&suite.url());
    let token = anonymous
        .token(&admin_key)
        .await
        .expect("admin token")
        .access_token;
    TestSuite {
        admin: anonymous.with_token(token.clone()),
        admin_token: token,
        anonymous,
        http_client: reqwest::Client::new(),
        suite,
        database_url,
        admin_key,
    }
}

/// The migrations' fingerprint: a changed migration gets a new template.
fn migrations_fingerprint() -> u64 {
    fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("migrations folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, files);
            } else {
                files.push(path);
            }
        }
    }
    // The services' migrations and the kit's, which every schema gets too.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    walk(&root.join("migrations"), &mut files);
    walk(&root.join("shared/kit/migrations"), &mut files);
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in files {
        file.strip_prefix(&root).expect("inside").hash(&mut hasher);
        std::fs::read(&file)
            .expect("migration file")
            .hash(&mut hasher);
    }
    hasher.finish()
}

/// A fresh database of its own for a test, cloned from a migrated template: its URL.
pub fn fresh_database() -> anyhow::Result<String> {
    let server = server_url();
    let template = format!("catan_template_{:016x}", migrations_fingerprint());
    {
        // Test processes run in parallel: one migrates the template while the others wait.
        let mut lock = PgConnection::establish(&server)?;
        diesel::sql_query("SELECT pg_advisory_lock(74110)").execute(&mut lock)?;
        if !db::database_exists(&server, &template)? {
            let url = db::create_database(&server, &template, None)?;
            if let Err(e) = catan_suite::migrate_all(&url) {
                diesel::sql_query(format!("DROP DATABASE \"{template}\" WITH (FORCE)"))
                    .execute(&mut lock)?;
                return Err(e);
            }
        }
        diesel::sql_query("SELECT pg_advisory_unlock(74110)").execute(&mut lock)?;
    }
    let name = format!("catan_test_{}", Uuid::new_v4().simple());
    let mut last_error = None;
    for _ in 0..20 {
        match db::create_database(&server, &name, Some(&template)) {
            Ok(url) => return Ok(url),
            // Another process may still hold a connection to the template for a moment.
            Err(e) => {
                last_error = Some(e);
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
    }
    Err(last_error.expect("an error").into())
}

/// Waits until `done` gives a value, for at most `seconds`, trying every 100 ms.
pub async fn eventually<T>(
    seconds: u64,
    what: &str,
    mut done: impl AsyncFnMut() -> Option<T>,
) -> T {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    loop {
        if let Some(value) = done().await {
            return value;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
