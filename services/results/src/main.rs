//! Runs the results service alone: `PORT` (default 8083), `DATABASE_URL`, and its peers'
//! `REGISTRATION_URL` and `PAIRING_URL`.

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    catan_kit::telemetry::init();
    let config = catan_results::Config::from_env();
    let port = catan_kit::config::env_or("PORT", "8083");
    let listener = catan_kit::server::bind(&format!(
        "{}:{port}",
        catan_kit::config::env_or("HOST", "0.0.0.0")
    ))?;
    catan_results::start(config, listener).await?.wait().await?;
    Ok(())
}
