//! `catan-web` alone: serves the dashboard on `HOST` (127.0.0.1) and `PORT` (8085), reading the
//! v1 API at `API_URL` (the suite's base URL, `http://127.0.0.1:8080` by default), telling it each
//! visitor's address with `CATAN_PROXY_SECRET` when that is set, sealing sessions with
//! `CATAN_WEB_SESSION_KEY` (a random key when unset: sessions then end with the process).

use catan_kit::client::ProxyTrust;
use catan_kit::settings::SecretString;

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
    // CATAN_WEB_SESSION_KEY: what signed-in sessions are sealed with; every replica needs the same.
    let server = catan_web::start(listener, &api, trust, catan_web::SessionKey::from_env())?;
    server.wait().await?;
    Ok(())
}
