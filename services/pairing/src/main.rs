//! Runs the pairing service alone: `PORT` (default 8082), `DATABASE_URL`, and its peers'
//! `REGISTRATION_URL`, `RESULTS_URL`, `RANKING_URL`.

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    catan_kit::telemetry::init();
    let config = catan_pairing::Config::from_env();
    let port = catan_kit::config::env_or("PORT", "8082");
    let listener = catan_kit::server::bind(&format!(
        "{}:{port}",
        catan_kit::config::env_or("HOST", "0.0.0.0")
    ))?;
    catan_pairing::start(config, listener).await?.wait().await?;
    Ok(())
}
