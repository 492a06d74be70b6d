//! `catan-web` alone: serves the dashboard on `HOST` (127.0.0.1) and `PORT` (8085), reading the
//! v1 API at `API_URL` (the suite's base URL, `http://127.0.0.1:8080` by default).

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    catan_kit::telemetry::init();
    let port = std::env::var("PORT").unwrap_or_else(|_| "8085".into());
    let api = std::env::var("API_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".into());
    let host = std::env::var("HOST").unwrap_or_else(|_| "127.0.0.1".into());
    let listener = catan_kit::server::bind(&format!("{host}:{port}"))?;
    let server = catan_web::start(listener, &api)?;
    server.wait().await?;
    Ok(())
}
