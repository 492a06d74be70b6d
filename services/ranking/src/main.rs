//! Runs the ranking service alone: `PORT` (default 8084), `DATABASE_URL`, and its peers'
//! `REGISTRATION_URL` and `RESULTS_URL`.

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    catan_kit::telemetry::init();
    let config = catan_ranking::Config::from_env();
    let port = catan_kit::config::env_or("PORT", "8084");
    let listener = catan_kit::server::bind(&format!(
        "{}:{port}",
        catan_kit::config::env_or("HOST", "0.0.0.0")
    ))?;
    catan_ranking::start(config, listener).await?.wait().await?;
    Ok(())
}
