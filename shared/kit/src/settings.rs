//! Typed settings: read from the environment once, in `main`, and passed down. Tests build them in
//! code ([`Settings::local`] and struct update syntax), so nothing else reads the environment.
//!
//! Every variable has a default that runs on a laptop; a value that does not parse is a
//! [`SettingsError`] naming the variable, never a panic. Secrets are [`SecretString`]s, which do
//! not print in `Debug`.

pub use secrecy::SecretString;
use std::time::Duration;

pub use secrecy::ExposeSecret;

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
    pub peers: PeerUrls,
    pub rate_limit: RateLimitSettings,
    pub clients: ClientSettings,
    pub tokens: TokenSettings,
    pub webhooks: WebhookSettings,
    /// `CATAN_STANDINGS_POLL_MS`: how often a watched event's standings are checked (1000).
    pub standings_poll: Duration,
    /// `CATAN_FOLLOW_MS`: how often ranking reads the producers' change feeds (100).
    pub follow_interval: Duration,
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
            },
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
            },
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
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn settings(vars: &[(&str, &str)]) -> Result<Settings, SettingsError> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_vars(|name| vars.get(name).cloned())
    }

    #[test]
    fn each_replica_is_given_its_share_of_every_limit() {
        let totals = settings(&[
            ("CATAN_PIN_CEILING_PER_SECOND", "20"),
            ("CATAN_PIN_CEILING_BURST", "200"),
            ("CATAN_STREAMS_TOTAL", "2001"),
            ("CATAN_ANONYMOUS_LIMIT_PER_SECOND", "0"),
            ("RATE_LIMIT_PER_SECOND", "5"),
        ])
        .unwrap();
        let vars: HashMap<&str, String> = totals.limit_vars_per_replica(2).into_iter().collect();
        let replica = Settings::from_vars(|name| vars.get(name).cloned()).unwrap();
        let c = &replica.clients;
        assert_eq!(
            (c.pin_ceiling_per_second, c.pin_ceiling_burst),
            (10.0, 100.0)
        );
        assert_eq!(c.streams_total, 1001, "a count is rounded up");
        assert_eq!(c.streams_per_client, 5);
        assert_eq!(c.anonymous_per_second, 0.0, "a limit turned off stays off");
        assert_eq!(c.anonymous_burst, 250.0);
        assert_eq!((c.sign_in_per_second, c.sign_in_burst), (2.5, 50.0));
        assert_eq!(replica.rate_limit.per_second, 2.5);
        assert_eq!(replica.rate_limit.burst, 50.0);
        // One replica keeps the totals.
        let one: HashMap<&str, String> = totals.limit_vars_per_replica(1).into_iter().collect();
        let alone = Settings::from_vars(|name| one.get(name).cloned()).unwrap();
        assert_eq!(alone.clients.streams_total, 2001);
        assert_eq!(alone.clients.pin_ceiling_burst, 200.0);
    }

    #[test]
    fn unset_and_blank_variables_take_the_defaults() {
        let s = settings(&[("HTTP_WORKERS", "  ")]).unwrap();
        assert_eq!(s.database.url(), DEFAULT_DATABASE_URL);
        assert!(s.database.configured_url.is_none());
        assert_eq!(s.http.workers, 2);
        assert_eq!(s.tokens.ttl, Duration::from_secs(3600));
        assert_eq!(s.webhooks.max_attempts, 8);
        assert_eq!(s.webhooks.relay_max_attempts, 60);
        assert!(s.tokens.admin_key.is_none());
    }

    #[test]
    fn set_variables_are_read_with_their_units() {
        let s = settings(&[
            ("CATAN_WEBHOOKS_FIRST_RETRY_MS", "250"),
            ("TOKEN_TTL_SECONDS", "60"),
            ("RATE_LIMIT_BURST", "4"),
            ("CATAN_WEBHOOKS_MAX_ATTEMPTS", "0"),
            ("CATAN_WEBHOOKS_RELAY_MAX_ATTEMPTS", "3"),
            ("PORT", "9000"),
        ])
        .unwrap();
        assert_eq!(s.webhooks.relay_max_attempts, 3);
        assert_eq!(s.webhooks.first_retry, Duration::from_millis(250));
        assert_eq!(s.tokens.ttl, Duration::from_secs(60));
        assert_eq!(s.rate_limit.burst, 4.0);
        assert_eq!(s.webhooks.max_attempts, 1, "at least one try");
        assert_eq!(s.http.port, Some(9000));
    }

    #[test]
    fn a_value_that_does_not_parse_is_an_error_naming_the_variable() {
        let e = settings(&[("HTTP_WORKERS", "many")]).unwrap_err();
        assert_eq!(e.name, "HTTP_WORKERS");
        assert!(
            e.to_string()
                .starts_with("HTTP_WORKERS=\"many\" is not valid")
        );
    }

    #[test]
    fn secrets_do_not_print() {
        let s = settings(&[
            ("CATAN_ADMIN_KEY", "admin-secret-0123456789abcdef"),
            ("DATABASE_URL", "postgres://u:hunter2@db/catan"),
            ("CATAN_INTERNAL_KEY", "cik_secret"),
            ("CATAN_PROXY_SECRET", "cps_secret"),
            ("CATAN_PIN_KEY", "cpk_a_pin_key_of_at_least_32_characters"),
        ])
        .unwrap();
        let printed = format!("{s:?}");
        for secret in [
            "admin-secret",
            "hunter2",
            "cik_secret",
            "cps_secret",
            "cpk_a_pin_key",
        ] {
            assert!(!printed.contains(secret), "{secret} printed in {printed}");
        }
        assert_eq!(
            s.tokens.admin_key.as_ref().map(|k| k.expose_secret()),
            Some("admin-secret-0123456789abcdef")
        );
    }

    #[test]
    fn a_short_pin_key_is_refused_without_showing_it() {
        let e = settings(&[("CATAN_PIN_KEY", "short-pin-key")]).unwrap_err();
        assert_eq!(e.name, "CATAN_PIN_KEY");
        assert!(!e.to_string().contains("short-pin-key"), "{e}");
        assert!(settings(&[]).unwrap().tokens.pin_key.is_none());
    }

    #[test]
    fn a_weak_admin_key_is_refused_naming_the_variable_and_never_printed() {
        for weak in [
            "admin-secret",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "abcabcabcabcabcabcabcabcabc",
        ] {
            let e = settings(&[("CATAN_ADMIN_KEY", weak)]).unwrap_err();
            assert_eq!(e.name, "CATAN_ADMIN_KEY");
            let message = e.to_string();
            assert!(message.contains("too weak"), "{message}");
            assert!(!message.contains(weak), "the key is not printed: {message}");
        }
        let strong = "ck_9f86d081884c7d659a2feaa0c55ad015";
        assert!(settings(&[("CATAN_ADMIN_KEY", strong)]).is_ok());
    }

    #[test]
    fn backoff_doubles_from_the_first_retry() {
        let s = WebhookSettings::default();
        assert_eq!(s.backoff(1), Duration::from_secs(30));
        assert_eq!(s.backoff(2), Duration::from_secs(60));
        let total: Duration = (1..s.max_attempts).map(|n| s.backoff(n)).sum();
        // 8 tries over about an hour.
        assert!(total > Duration::from_secs(55 * 60) && total < Duration::from_secs(70 * 60));
    }
}
