//! Runs the registration service alone: `PORT` (default 8081), `DATABASE_URL`, `CATAN_ADMIN_KEY`,
//! `TOKEN_TTL_SECONDS` and the webhook settings (see `catan_kit::Settings`).

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    catan_kit::service::run_alone(8081, catan_registration::start).await
}
