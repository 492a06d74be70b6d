//! Configuration from environment variables, with defaults that run on a laptop.

/// The database every service uses when `DATABASE_URL` is not set.
pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/catan";

/// `name` from the environment, or `default`.
pub fn env_or(name: &str, default: &str) -> String {
    std::env::var(name)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| default.to_string())
}

/// `name` parsed from the environment, or `default`; a value that does not parse is a start-up error.
pub fn env_parse<T: std::str::FromStr>(name: &str, default: T) -> Result<T, String> {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse()
            .map_err(|_| format!("{name}={v} is not valid")),
        _ => Ok(default),
    }
}

/// Where the four services are, as each service needs to reach its peers.
#[derive(Debug, Clone)]
pub struct PeerUrls {
    pub registration: String,
    pub pairing: String,
    pub results: String,
    pub ranking: String,
}

impl PeerUrls {
    /// From `REGISTRATION_URL`, `PAIRING_URL`, `RESULTS_URL`, `RANKING_URL`; defaults are the
    /// ports the services listen on when run alone (8081 to 8084).
    pub fn from_env() -> Self {
        PeerUrls {
            registration: env_or("REGISTRATION_URL", "http://127.0.0.1:8081"),
            pairing: env_or("PAIRING_URL", "http://127.0.0.1:8082"),
            results: env_or("RESULTS_URL", "http://127.0.0.1:8083"),
            ranking: env_or("RANKING_URL", "http://127.0.0.1:8084"),
        }
    }
}
