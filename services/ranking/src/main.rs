//! Runs the ranking service alone: `PORT` (default 8084), `DATABASE_URL`, and its peers'
//! `REGISTRATION_URL`, `PAIRING_URL` and `RESULTS_URL` (see `catan_kit::Settings`).

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    catan_kit::service::run_alone(8084, catan_ranking::start).await
}
