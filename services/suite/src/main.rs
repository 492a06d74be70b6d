//! `catan-suite up` (the default) runs the whole suite on one base URL; `catan-suite demo` plays a
//! complete event through the API and prints its standings and placements.

use anyhow::Context;
use catan_suite::{Suite, SuiteConfig, demo, postgres};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "catan-suite", about = "Catan tournament services, all in one")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Where a private PostgreSQL cluster is kept when no server is found.
    #[arg(long, env = "CATAN_DATA_DIR", default_value = ".pgdata", global = true)]
    data_dir: PathBuf,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the whole v1 API (the default).
    Up {
        /// The gateway's port.
        #[arg(long, env = "CATAN_PORT", default_value_t = 8080)]
        port: u16,
        #[arg(long, env = "CATAN_HOST", default_value = "127.0.0.1")]
        host: String,
    },
    /// Print the merged OpenAPI document of the v1 API (what openapi/openapi.json holds).
    Openapi,
    /// Play a complete event through the API with random but legal results.
    Demo {
        #[arg(long, value_enum, default_value_t = DemoFormat::Classic)]
        format: DemoFormat,
        /// Players of a classic event.
        #[arg(long, default_value_t = 37)]
        players: usize,
        /// Teams of a partner event.
        #[arg(long, default_value_t = 13)]
        teams: usize,
        #[arg(long, default_value_t = 2026)]
        seed: u64,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum DemoFormat {
    Classic,
    Partner,
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> anyhow::Result<()> {
    catan_kit::telemetry::init();
    let cli = Cli::parse();
    let data_dir = cli.data_dir.clone();
    let database = |name: &'static str, fresh: bool| {
        let data_dir = data_dir.clone();
        tokio::task::spawn_blocking(move || postgres::resolve(&data_dir, name, fresh))
    };
    match cli.command.unwrap_or(Command::Up {
        port: catan_kit::config::env_parse("CATAN_PORT", 8080).map_err(anyhow::Error::msg)?,
        host: catan_kit::config::env_or("CATAN_HOST", "127.0.0.1"),
    }) {
        Command::Openapi => {
            println!("{}", catan_suite::gateway::openapi_json());
            Ok(())
        }
        Command::Up { port, host } => {
            let database_url = database(postgres::DATABASE, false).await??;
            let suite = Suite::start(SuiteConfig {
                database_url,
                gateway_addr: format!("{host}:{port}"),
                admin_key: std::env::var("CATAN_ADMIN_KEY")
                    .ok()
                    .filter(|k| !k.is_empty()),
                webhooks: catan_kit::webhooks::WebhookSettings::from_env()
                    .map_err(anyhow::Error::msg)?,
            })
            .await
            .with_context(|| format!("starting the suite on {host}:{port}"))?;
            println!(
                "Catan tournament API on {} (OpenAPI at /openapi.json, docs at /docs/). Ctrl-C stops it.",
                suite.url()
            );
            suite.wait().await
        }
        Command::Demo {
            format,
            players,
            teams,
            seed,
        } => {
            // The demo runs its own suite on a free port, over a database of its own made anew,
            // with an admin key only it knows.
            let database_url = database(postgres::DEMO_DATABASE, true).await??;
            let admin_key = format!("demo-{}", uuid::Uuid::new_v4());
            let suite = Suite::start(SuiteConfig {
                database_url,
                gateway_addr: "127.0.0.1:0".into(),
                admin_key: Some(admin_key.clone()),
                webhooks: catan_kit::webhooks::WebhookSettings::from_env()
                    .map_err(anyhow::Error::msg)?,
            })
            .await?;
            let report = match format {
                DemoFormat::Classic => {
                    demo::play_classic_event(&suite.url(), &admin_key, players, seed)
                        .await
                        .map(|played| demo::report(&played))
                }
                DemoFormat::Partner => {
                    demo::play_partner_event(&suite.url(), &admin_key, teams, seed)
                        .await
                        .map(|played| demo::partner_report(&played))
                }
            };
            suite.stop().await;
            print!("{}", report?);
            Ok(())
        }
    }
}
