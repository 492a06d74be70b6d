//! Runs the pairing service alone: `PORT` (default 8082), `DATABASE_URL`, and its peers'
//! `REGISTRATION_URL`, `RESULTS_URL` and `RANKING_URL` (see `catan_kit::Settings`).

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    catan_kit::service::run_alone(8082, catan_pairing::start).await
}
