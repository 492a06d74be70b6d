//! Runs the registration service alone: `PORT` (default 8081), `DATABASE_URL`, `CATAN_ADMIN_KEY`.

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    catan_kit::telemetry::init();
    let config = catan_registration::Config::from_env().map_err(anyhow::Error::msg)?;
    let port = catan_kit::config::env_or("PORT", "8081");
    let listener = catan_kit::server::bind(&format!(
        "{}:{port}",
        catan_kit::config::env_or("HOST", "0.0.0.0")
    ))?;
    catan_registration::start(config, listener)
        .await?
        .wait()
        .await?;
    Ok(())
}
