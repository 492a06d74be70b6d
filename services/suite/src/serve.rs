//! `serve <service>` (a hidden subcommand of `catan-suite` and `catan-bench`): one service as an
//! OS process of its own, configured from the environment as the service's own binary is
//! (`catan_kit::service::run_alone`). The replica launcher and the chaos harness re-execute their
//! binary with it, so that each service runs as processes that can be killed and started again.
//!
//! The process also ends when its stdin does: its launcher holds the other end, so a launcher
//! that dies, however it dies, takes its services with it.

use crate::Owner;
use std::io::Read;

#[derive(clap::Args)]
pub struct ServeArgs {
    #[arg(value_enum)]
    pub service: ServiceName,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServiceName {
    Registration,
    Pairing,
    Results,
    Ranking,
}

impl ServiceName {
    pub fn of(owner: Owner) -> ServiceName {
        match owner {
            Owner::Registration => ServiceName::Registration,
            Owner::Pairing => ServiceName::Pairing,
            Owner::Results => ServiceName::Results,
            Owner::Ranking => ServiceName::Ranking,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ServiceName::Registration => "registration",
            ServiceName::Pairing => "pairing",
            ServiceName::Results => "results",
            ServiceName::Ranking => "ranking",
        }
    }
}

/// Runs the service until a signal stops it or stdin ends; the process's exit code. It makes its
/// own runtime: call it from a plain `main`.
pub fn main(args: &ServeArgs) -> i32 {
    std::thread::spawn(|| {
        let mut stdin = std::io::stdin();
        let mut buffer = [0u8; 64];
        while matches!(stdin.read(&mut buffer), Ok(n) if n > 0) {}
        std::process::exit(0);
    });
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("serve: no runtime: {e}");
            return 1;
        }
    };
    use catan_kit::service::run_alone;
    // As quiet as the launcher: request logs only when RUST_LOG asks.
    catan_kit::telemetry::init_with_default(crate::cli::QUIET_LOGS);
    let served = runtime.block_on(async {
        match args.service {
            ServiceName::Registration => run_alone(8081, catan_registration::start).await,
            ServiceName::Pairing => run_alone(8082, catan_pairing::start).await,
            ServiceName::Results => run_alone(8083, catan_results::start).await,
            ServiceName::Ranking => run_alone(8084, catan_ranking::start).await,
        }
    });
    match served {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("serve {}: {e:#}", args.service.as_str());
            1
        }
    }
}
