//! Runs the results service alone: `PORT` (default 8083), `DATABASE_URL`, and its peers'
//! `REGISTRATION_URL` and `PAIRING_URL` (see `catan_kit::Settings`).

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    catan_kit::service::run_alone(8083, catan_results::start).await
}
