//! `catan-web` alone: serves the dashboard on `HOST` (127.0.0.1) and `PORT` (8085), reading the
//! v1 API at `API_URL` (the suite's base URL, `http://127.0.0.1:8080` by default), telling it each
//! visitor's address with `CATAN_PROXY_SECRET` when that is set, sealing sessions with
//! `CATAN_WEB_SESSION_KEY` (a random key when unset: sessions then end with the process), and
//! writing links at `CATAN_PUBLIC_URL` (else the address each visitor reached the suite at).

use catan_kit::client::ProxyTrust;
use catan_kit::settings::{PublicUrl, SecretString};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    catan_kit::no_transparent_huge_pages();
    catan_kit::telemetry::init();
    let port = std::env::var("PORT").unwrap_or_else(|_| "8085".into());
    let api = std::env::var("API_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".into());
    let host = std::env::var("HOST").unwrap_or_else(|_| "127.0.0.1".into());
    let listener = catan_kit::server::bind(&format!("{host}:{port}"))?;
    // CATAN_PROXY_SECRET: the gateway's, with which the web app passes on each visitor's address.
    let secret = std::env::var("CATAN_PROXY_SECRET")
        .ok()
        .filter(|secret| !secret.trim().is_empty());
    let trust = ProxyTrust::new(secret.map(SecretString::from));
    // CATAN_PUBLIC_URL: the address people reach the suite at, which the links start with.
    let public_url = std::env::var("CATAN_PUBLIC_URL")
        .ok()
        .filter(|url| !url.trim().is_empty())
        .map(|url| url.parse::<PublicUrl>())
        .transpose()
        .map_err(|reason| anyhow::anyhow!("CATAN_PUBLIC_URL is not valid: {reason}"))?;
    // CATAN_WEB_SESSION_KEY: what signed-in sessions are sealed with; every replica needs the same.
    let sessions = catan_web::SessionKey::from_env();
    let server = catan_web::start(listener, &api, trust, sessions, public_url)?;
    server.wait().await?;
    Ok(())
}
