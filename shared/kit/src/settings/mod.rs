//! Typed settings: read from the environment once, in `main`, and passed down. Tests build them in
//! code ([`Settings::local`] and struct update syntax), so nothing else reads the environment.
//!
//! Every variable has a default that runs on a laptop; a value that does not parse is a
//! [`SettingsError`] naming the variable, never a panic. Secrets are [`SecretString`]s, which do
//! not print in `Debug`.

pub use secrecy::SecretString;
use std::time::Duration;

pub use secrecy::ExposeSecret;

pub mod public_url;
pub use public_url::{FORWARDED_HOST, FORWARDED_PROTO, PublicUrl};

/// The database every service uses when `DATABASE_URL` is not set: on loopback, without TLS,
/// which would only cost CPU on both ends.
pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/catan?sslmode=disable";

/// A variable that is set but does not parse.
#[derive(Debug, thiserror::Error)]
#[error("{name}={value:?} is not valid: {reason}")]
pub struct SettingsError {
    pub name: &'static str,
    pub value: String,
    pub reason: String,
}

/// Everything a service (or the whole suite) is configured with.
#[derive(Debug, Clone)]
pub struct Settings {
    pub database: DatabaseSettings,
    pub http: HttpSettings,
    /// `CATAN_PUBLIC_URL`: the address people reach the suite at (`https://catan.example.org`),
    /// which every link the suite writes starts with; unset, the address each request came to the
    /// edge at ([`PublicUrl::for_request`]).
    pub public_url: Option<PublicUrl>,
    pub peers: PeerUrls,
    pub rate_limit: RateLimitSettings,
    pub clients: ClientSettings,
    pub tokens: TokenSettings,
    pub webhooks: WebhookSettings,
    /// `CATAN_STANDINGS_POLL_MS`: how often a watched event's standings are checked (1000).
    pub standings_poll: Duration,
    /// `CATAN_FOLLOW_MS`: how often ranking reads the producers' change feeds (100).
    pub follow_interval: Duration,
    /// `CATAN_CONSISTENCY_WAIT_MS`: how long a ranking read that carries a `Catan-Position`
    /// waits for the read model to include it before answering 503 (2000).
    pub consistency_wait: Duration,
    /// `CATAN_ROUND_ENDING_MINUTES`: how long before a round's end its `round.ending` webhook
    /// goes out (5, at least 1).
    pub round_ending_notice: std::num::NonZeroU32,
}

#[derive(Debug, Clone)]
pub struct DatabaseSettings {
    /// `DATABASE_URL`, which may carry a password; unset, [`DEFAULT_DATABASE_URL`].
    pub configured_url: Option<SecretString>,
    /// `DATABASE_POOL_SIZE`: the most connections a pool opens (10).
    pub pool_size: u32,
}

impl DatabaseSettings {
    /// The database to use: the configured one, else the laptop's.
    pub fn url(&self) -> &str {
        self.configured_url
            .as_ref()
            .map_or(DEFAULT_DATABASE_URL, |url| url.expose_secret())
    }
}

#[derive(Debug, Clone)]
pub struct HttpSettings {
    /// `HOST` and `PORT`: where a service run alone listens (`0.0.0.0`, the service's own port).
    pub host: String,
    pub port: Option<u16>,
    /// `HTTP_WORKERS`: request workers per server (2).
    pub workers: usize,
    /// `CATAN_CORS_WRITE_ORIGINS`: the other sites (comma-separated origins, such as
    /// `https://club.example`) whose pages may write through the API from a browser; every site
    /// may read.
    pub cors_write_origins: Vec<String>,
}

/// Where the four services are, as each service needs to reach its peers.
#[derive(Debug, Clone)]
pub struct PeerUrls {
    pub registration: String,
    pub pairing: String,
    pub results: String,
    pub ranking: String,
}

/// Requests per API key: `RATE_LIMIT_PER_SECOND` on average (50), bursts of `RATE_LIMIT_BURST` (100).
#[derive(Debug, Clone, Copy)]
pub struct RateLimitSettings {
    pub per_second: f64,
    pub burst: f64,
}

/// Who the clients are and the limits that follow them ([`crate::client`]).
#[derive(Debug, Clone)]
pub struct ClientSettings {
    /// `CATAN_PROXY_SECRET`: with it the edge proxy (the gateway, an ingress) vouches for the
    /// client address it sends; unset, a service counts the connection's peer as the client (the
    /// suite makes one up for its gateway and services).
    pub proxy_secret: Option<SecretString>,
    /// `CATAN_ANONYMOUS_LIMIT_PER_SECOND` (50; 0 turns the limit off) and
    /// `CATAN_ANONYMOUS_LIMIT_BURST` (500): requests without a token, per client address.
    pub anonymous_per_second: f64,
    pub anonymous_burst: f64,
    /// `CATAN_SIGN_IN_LIMIT_PER_SECOND` (5) and `CATAN_SIGN_IN_LIMIT_BURST` (100): token requests
    /// (API key or PIN) per client address.
    pub sign_in_per_second: f64,
    pub sign_in_burst: f64,
    /// `CATAN_PIN_CEILING_PER_SECOND` (20) and `CATAN_PIN_CEILING_BURST` (200): PIN sign-ins of
    /// every client together, per replica.
    pub pin_ceiling_per_second: f64,
    pub pin_ceiling_burst: f64,
    /// `CATAN_STREAMS_PER_CLIENT` (10) and `CATAN_STREAMS_TOTAL` (2000): open standings streams
    /// per client address, and in all, per replica.
    pub streams_per_client: usize,
    pub streams_total: usize,
}

impl Default for ClientSettings {
    fn default() -> Self {
        ClientSettings {
            proxy_secret: None,
            anonymous_per_second: 50.0,
            anonymous_burst: 500.0,
            sign_in_per_second: 5.0,
            sign_in_burst: 100.0,
            pin_ceiling_per_second: 20.0,
            pin_ceiling_burst: 200.0,
            streams_per_client: 10,
            streams_total: 2000,
        }
    }
}

impl ClientSettings {
    /// No limit a client could reach: for benchmarks that drive the suite from one address.
    pub fn unlimited() -> Self {
        ClientSettings {
            anonymous_per_second: 0.0,
            sign_in_per_second: 1e9,
            sign_in_burst: 1e9,
            pin_ceiling_per_second: 1e9,
            pin_ceiling_burst: 1e9,
            streams_per_client: usize::MAX,
            streams_total: usize::MAX,
            ..ClientSettings::default()
        }
    }
}

#[derive(Debug, Clone)]
pub struct TokenSettings {
    /// `CATAN_ADMIN_KEY`: the admin key to start from; generated and printed once when unset.
    pub admin_key: Option<SecretString>,
    /// `CATAN_PIN_KEY`: the secret players' PIN digests are keyed with (HMAC-SHA256), at least 32
    /// characters, kept outside the database. Unset, registration keeps one in its database (the
    /// suite's launcher keeps one in a file instead). Changing it invalidates every PIN.
    pub pin_key: Option<SecretString>,
    /// `TOKEN_TTL_SECONDS`: how long an access token is valid (3600).
    pub ttl: Duration,
}

/// Webhook settings.
#[derive(Debug, Clone)]
pub struct WebhookSettings {
    /// `CATAN_WEBHOOKS_ALLOW_PRIVATE`: accept URLs on loopback and private networks (tests,
    /// on-premises receivers). Off by default: such URLs would reach our own network.
    pub allow_private: bool,
    /// `CATAN_INTERNAL_KEY`: authenticates the services' calls to registration's inbox. Without
    /// it, events wait in the outboxes.
    pub internal_key: Option<SecretString>,
    /// `CATAN_WEBHOOKS_MAX_ATTEMPTS`: tries per delivery (8).
    pub max_attempts: u32,
    /// `CATAN_WEBHOOKS_FIRST_RETRY_MS`: the wait after the first failed try, doubled after each
    /// (30 s: 8 tries span about an hour).
    pub first_retry: Duration,
    /// `CATAN_WEBHOOKS_TIMEOUT_MS`: how long a receiver may take to answer (10 s).
    pub timeout: Duration,
    /// `CATAN_WEBHOOKS_POLL_MS`: how often the outbox and the deliveries are checked (500 ms).
    pub poll_interval: Duration,
    /// `CATAN_WEBHOOKS_RELAY_MAX_ATTEMPTS`: tries to hand an outbox event to registration before
    /// it is a dead letter (60: about an hour, the wait between tries growing to a minute).
    pub relay_max_attempts: u32,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        WebhookSettings {
            allow_private: false,
            internal_key: None,
            max_attempts: 8,
            first_retry: Duration::from_secs(30),
            timeout: Duration::from_secs(10),
            poll_interval: Duration::from_millis(500),
            relay_max_attempts: 60,
        }
    }
}

impl WebhookSettings {
    /// The wait after the `attempts`-th failed try: the first retry doubled each time.
    pub fn backoff(&self, attempts: u32) -> Duration {
        self.first_retry
            .saturating_mul(1u32 << attempts.saturating_sub(1).min(20))
    }
}

impl Settings {
    /// The defaults, over `database_url`: what a laptop runs with.
    pub fn local(database_url: &str) -> Settings {
        Settings {
            database: DatabaseSettings {
                configured_url: Some(SecretString::from(database_url)),
                pool_size: 10,
            },
            http: HttpSettings {
                host: "0.0.0.0".into(),
                port: None,
                workers: 2,
                cors_write_origins: Vec::new(),
            },
            public_url: None,
            peers: PeerUrls {
                registration: "http://127.0.0.1:8081".into(),
                pairing: "http://127.0.0.1:8082".into(),
                results: "http://127.0.0.1:8083".into(),
                ranking: "http://127.0.0.1:8084".into(),
            },
            rate_limit: RateLimitSettings {
                per_second: 50.0,
                burst: 100.0,
            },
            clients: ClientSettings::default(),
            tokens: TokenSettings {
                admin_key: None,
                pin_key: None,
                ttl: Duration::from_secs(3600),
            },
            webhooks: WebhookSettings::default(),
            standings_poll: Duration::from_millis(1000),
            follow_interval: Duration::from_millis(100),
            consistency_wait: Duration::from_millis(2000),
            round_ending_notice: catan_domain::clock::DEFAULT_ENDING_NOTICE_MINUTES,
        }
    }

    /// The settings the environment gives, over [`Settings::local`]'s defaults.
    pub fn from_env() -> Result<Settings, SettingsError> {
        Settings::from_vars(|name| std::env::var(name).ok())
    }

    /// The settings `var` gives (a name to its value, if set): the environment, or a map in tests.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Settings, SettingsError> {
        let vars = Vars(&var);
        let defaults = Settings::local(DEFAULT_DATABASE_URL);
        let webhooks = defaults.webhooks;
        let clients = defaults.clients;
        Ok(Settings {
            database: DatabaseSettings {
                configured_url: vars.text("DATABASE_URL").map(SecretString::from),
                pool_size: vars.parse("DATABASE_POOL_SIZE", defaults.database.pool_size)?,
            },
            http: HttpSettings {
                host: vars.text("HOST").unwrap_or(defaults.http.host),
                port: vars.optional("PORT")?,
                workers: vars.parse("HTTP_WORKERS", defaults.http.workers)?,
                cors_write_origins: vars
                    .text("CATAN_CORS_WRITE_ORIGINS")
                    .map(|origins| {
                        origins
                            .split(',')
                            .map(|o| o.trim().trim_end_matches('/').to_owned())
                            .filter(|o| !o.is_empty())
                            .collect()
                    })
                    .unwrap_or_default(),
            },
            public_url: vars.optional("CATAN_PUBLIC_URL")?,
            peers: PeerUrls {
                registration: vars
                    .text("REGISTRATION_URL")
                    .unwrap_or(defaults.peers.registration),
                pairing: vars.text("PAIRING_URL").unwrap_or(defaults.peers.pairing),
                results: vars.text("RESULTS_URL").unwrap_or(defaults.peers.results),
                ranking: vars.text("RANKING_URL").unwrap_or(defaults.peers.ranking),
            },
            rate_limit: RateLimitSettings {
                per_second: vars.parse("RATE_LIMIT_PER_SECOND", defaults.rate_limit.per_second)?,
                burst: vars.parse("RATE_LIMIT_BURST", defaults.rate_limit.burst)?,
            },
            clients: ClientSettings {
                proxy_secret: vars.text("CATAN_PROXY_SECRET").map(SecretString::from),
                anonymous_per_second: vars.parse(
                    "CATAN_ANONYMOUS_LIMIT_PER_SECOND",
                    clients.anonymous_per_second,
                )?,
                anonymous_burst: vars
                    .parse("CATAN_ANONYMOUS_LIMIT_BURST", clients.anonymous_burst)?,
                sign_in_per_second: vars
                    .parse("CATAN_SIGN_IN_LIMIT_PER_SECOND", clients.sign_in_per_second)?,
                sign_in_burst: vars.parse("CATAN_SIGN_IN_LIMIT_BURST", clients.sign_in_burst)?,
                pin_ceiling_per_second: vars.parse(
                    "CATAN_PIN_CEILING_PER_SECOND",
                    clients.pin_ceiling_per_second,
                )?,
                pin_ceiling_burst: vars
                    .parse("CATAN_PIN_CEILING_BURST", clients.pin_ceiling_burst)?,
                streams_per_client: vars
                    .parse("CATAN_STREAMS_PER_CLIENT", clients.streams_per_client)?,
                streams_total: vars.parse("CATAN_STREAMS_TOTAL", clients.streams_total)?,
            },
            tokens: TokenSettings {
                admin_key: vars
                    .text("CATAN_ADMIN_KEY")
                    .map(|key| check_admin_key(&key).map(|()| SecretString::from(key)))
                    .transpose()?,
                pin_key: vars.pin_key()?,
                ttl: Duration::from_secs(
                    vars.parse("TOKEN_TTL_SECONDS", defaults.tokens.ttl.as_secs())?,
                ),
            },
            webhooks: WebhookSettings {
                allow_private: vars
                    .parse("CATAN_WEBHOOKS_ALLOW_PRIVATE", webhooks.allow_private)?,
                internal_key: vars.text("CATAN_INTERNAL_KEY").map(SecretString::from),
                max_attempts: vars
                    .parse("CATAN_WEBHOOKS_MAX_ATTEMPTS", webhooks.max_attempts)?
                    .max(1),
                first_retry: vars.millis("CATAN_WEBHOOKS_FIRST_RETRY_MS", webhooks.first_retry)?,
                timeout: vars.millis("CATAN_WEBHOOKS_TIMEOUT_MS", webhooks.timeout)?,
                poll_interval: vars.millis("CATAN_WEBHOOKS_POLL_MS", webhooks.poll_interval)?,
                relay_max_attempts: vars
                    .parse(
                        "CATAN_WEBHOOKS_RELAY_MAX_ATTEMPTS",
                        webhooks.relay_max_attempts,
                    )?
                    .max(1),
            },
            standings_poll: vars.millis("CATAN_STANDINGS_POLL_MS", defaults.standings_poll)?,
            follow_interval: vars.millis("CATAN_FOLLOW_MS", defaults.follow_interval)?,
            consistency_wait: vars
                .millis("CATAN_CONSISTENCY_WAIT_MS", defaults.consistency_wait)?,
            round_ending_notice: vars
                .parse("CATAN_ROUND_ENDING_MINUTES", defaults.round_ending_notice)?,
        })
    }
}

impl Settings {
    /// The limits each of `replicas` replicas is given so that together they keep the limits of
    /// these settings (the totals): every rate, burst and count divided by the replicas (a count
    /// rounded up, and at least 1). A rate of 0 stays off. Each replica keeps its own buckets and
    /// counts, and the gateway spreads the requests over the replicas in turn.
    pub fn limit_vars_per_replica(&self, replicas: usize) -> Vec<(&'static str, String)> {
        let n = replicas.max(1);
        let rate = |total: f64| (total / n as f64).to_string();
        let count = |total: usize| total.div_ceil(n).max(1).to_string();
        let c = &self.clients;
        vec![
            ("RATE_LIMIT_PER_SECOND", rate(self.rate_limit.per_second)),
            ("RATE_LIMIT_BURST", rate(self.rate_limit.burst)),
            (
                "CATAN_ANONYMOUS_LIMIT_PER_SECOND",
                rate(c.anonymous_per_second),
            ),
            ("CATAN_ANONYMOUS_LIMIT_BURST", rate(c.anonymous_burst)),
            ("CATAN_SIGN_IN_LIMIT_PER_SECOND", rate(c.sign_in_per_second)),
            ("CATAN_SIGN_IN_LIMIT_BURST", rate(c.sign_in_burst)),
            (
                "CATAN_PIN_CEILING_PER_SECOND",
                rate(c.pin_ceiling_per_second),
            ),
            ("CATAN_PIN_CEILING_BURST", rate(c.pin_ceiling_burst)),
            ("CATAN_STREAMS_PER_CLIENT", count(c.streams_per_client)),
            ("CATAN_STREAMS_TOTAL", count(c.streams_total)),
        ]
    }
}

/// The least a configured admin key must be: this many characters, this many of them different.
pub const ADMIN_KEY_MIN_LENGTH: usize = 24;
pub const ADMIN_KEY_MIN_DISTINCT: usize = 10;

/// Ok when `key` is strong enough for the admin key; else why not, naming `CATAN_ADMIN_KEY`.
pub fn check_admin_key(key: &str) -> Result<(), SettingsError> {
    let key = key.trim();
    let length = key.chars().count();
    let distinct = key.chars().collect::<std::collections::HashSet<_>>().len();
    if length >= ADMIN_KEY_MIN_LENGTH && distinct >= ADMIN_KEY_MIN_DISTINCT {
        return Ok(());
    }
    Err(SettingsError {
        name: "CATAN_ADMIN_KEY",
        value: "(hidden)".into(),
        reason: format!(
            "too weak for the admin key: it has {length} characters, {distinct} of them different; \
             it needs at least {ADMIN_KEY_MIN_LENGTH}, {ADMIN_KEY_MIN_DISTINCT} different (make one \
             with `openssl rand -base64 32`)"
        ),
    })
}

/// Reads variables: blank counts as unset.
struct Vars<'a>(&'a dyn Fn(&str) -> Option<String>);

impl Vars<'_> {
    fn text(&self, name: &str) -> Option<String> {
        (self.0)(name).filter(|v| !v.trim().is_empty())
    }

    fn optional<T: std::str::FromStr>(&self, name: &'static str) -> Result<Option<T>, SettingsError>
    where
        T::Err: std::fmt::Display,
    {
        self.text(name)
            .map(|value| {
                value.trim().parse().map_err(|e: T::Err| SettingsError {
                    name,
                    reason: e.to_string(),
                    value,
                })
            })
            .transpose()
    }

    fn parse<T: std::str::FromStr>(
        &self,
        name: &'static str,
        default: T,
    ) -> Result<T, SettingsError>
    where
        T::Err: std::fmt::Display,
    {
        Ok(self.optional(name)?.unwrap_or(default))
    }

    /// `CATAN_PIN_KEY`, if set: refused when shorter than
    /// [`crate::pin_key::MIN_PIN_KEY_LENGTH`] (the error never shows it).
    fn pin_key(&self) -> Result<Option<SecretString>, SettingsError> {
        let Some(key) = self.text("CATAN_PIN_KEY") else {
            return Ok(None);
        };
        let min = crate::pin_key::MIN_PIN_KEY_LENGTH;
        if key.chars().count() < min {
            return Err(SettingsError {
                name: "CATAN_PIN_KEY",
                value: "(not shown)".into(),
                reason: format!("a PIN key has at least {min} characters"),
            });
        }
        Ok(Some(SecretString::from(key)))
    }

    fn millis(&self, name: &'static str, default: Duration) -> Result<Duration, SettingsError> {
        let default = u64::try_from(default.as_millis()).unwrap_or(u64::MAX);
        self.parse(name, default).map(Duration::from_millis)
    }
}

#[cfg(test)]
mod tests;
