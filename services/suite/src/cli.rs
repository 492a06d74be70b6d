//! The `catan-suite` command. `catan-suite up` (the default) runs the whole suite on one base URL,
//! in one process, or with `--replicas N` as N processes of every service; `catan-suite demo`
//! plays a complete event through the API and prints its standings and placements.

use crate::replicated::ReplicatedSuite;
use crate::{Suite, demo, postgres};
use anyhow::Context;
use catan_kit::Settings;
use catan_kit::pin_key::{MIN_PIN_KEY_LENGTH, PinKey};
use catan_kit::settings::{ExposeSecret, PublicUrl, SecretString};
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "catan-suite", about = "Catan tournament services, all in one")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Where a private PostgreSQL cluster is kept when no server is found.
    #[arg(long, env = "CATAN_DATA_DIR", default_value = ".pgdata", global = true)]
    data_dir: PathBuf,
    /// Where the PIN key is kept when `CATAN_PIN_KEY` is not set (made on the first start).
    #[arg(
        long,
        env = "CATAN_PIN_KEY_FILE",
        default_value = ".catan-pin-key",
        global = true
    )]
    pin_key_file: PathBuf,
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
        /// Run this many OS processes of every service (the gateway balancing over them), instead
        /// of the whole suite in this one process.
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64))]
        replicas: Option<u16>,
    },
    /// Serve one service in this process, configured from the environment (what `--replicas`
    /// runs in each replica's process).
    #[command(hide = true)]
    Serve(crate::serve::ServeArgs),
    /// Print the merged OpenAPI document of the v1 API (what openapi/openapi.json holds).
    Openapi,
    /// Play a complete event through the API with random but legal results, saying each step.
    /// It plays in a suite of its own over a database of its own, or with `--into` in the suite
    /// you already run, whose dashboard then shows the event.
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
        /// The base URL of a running suite to play in (e.g. http://127.0.0.1:8080), with its
        /// admin key (`--admin-key` or `CATAN_ADMIN_KEY`).
        #[arg(long)]
        into: Option<String>,
        /// The admin key of the suite `--into` names.
        #[arg(long, env = "CATAN_ADMIN_KEY", hide_env_values = true)]
        admin_key: Option<String>,
        /// The database the demo's own suite plays in, made anew each time (without `--into`).
        #[arg(long, env = "CATAN_DEMO_DATABASE", default_value = postgres::DEMO_DATABASE)]
        database: String,
    },
    /// Run an event at a venue without the internet: `venue pull` checks it out of the
    /// federation into this machine's suite.
    Venue {
        #[command(subcommand)]
        command: crate::venue::VenueCommand,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum DemoFormat {
    Classic,
    Partner,
}

/// Runs the command line's command; the process's exit code.
pub fn main() -> ExitCode {
    catan_kit::no_transparent_huge_pages();
    // OpenSSL is started here, first, without its clean-up at exit. Otherwise libpq starts it
    // (every database connection is TLS when the server offers it), which registers OpenSSL's
    // clean-up to run at exit; a server's worker thread still closing its pool's connections
    // then used freed memory: SIGSEGV after the work was done, 3 pulls in 100 (issue 43).
    openssl::init();
    let cli = Cli::parse();
    if let Some(Command::Serve(args)) = &cli.command {
        // The service makes its own runtime and reads its own settings.
        return ExitCode::from(u8::try_from(crate::serve::main(args)).unwrap_or(1));
    }
    // `up` prints a short report and then only warnings and errors; the demo and the venue's
    // commands their own report only. Request logs (info) when RUST_LOG asks.
    let quiet = matches!(
        cli.command,
        Some(Command::Demo { .. } | Command::Venue { .. })
    );
    catan_kit::telemetry::init_with_default(if quiet { "error" } else { QUIET_LOGS });
    let ran = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|runtime| {
            let ran = runtime.block_on(run(cli));
            // Every task of the runtime and every blocking call it made ends here.
            drop(runtime);
            ran
        });
    servers_finished(std::time::Duration::from_secs(5));
    match ran {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e:?}");
            ExitCode::FAILURE
        }
    }
}

/// Waits up to `limit` for the HTTP servers' worker threads (and their runtimes' blocking
/// threads) to end. A server stopped answers when its workers have stopped serving, but each
/// worker's thread then still drops the service's state: its pool, closing every database
/// connection. The process ends after them, not during.
fn servers_finished(limit: std::time::Duration) {
    const SERVING: [&str; 3] = ["actix-server wo", "actix-rt", "tokio-rt-worker"];
    let serving = || {
        let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
            return false;
        };
        tasks.filter_map(Result::ok).any(|task| {
            std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|name| SERVING.iter().any(|s| name.trim_end().starts_with(s)))
        })
    };
    let until = std::time::Instant::now() + limit;
    while serving() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let settings = Settings::from_env()?;
    let data_dir = cli.data_dir.clone();
    let configured = settings
        .database
        .configured_url
        .as_ref()
        .map(|url| url.expose_secret().to_owned());
    let database = |name: String, fresh: bool| {
        let data_dir = data_dir.clone();
        let configured = configured.clone();
        tokio::task::spawn_blocking(move || {
            postgres::resolve(&data_dir, configured.as_deref(), &name, fresh)
        })
    };
    let command = match cli.command {
        Some(command) => command,
        // The default is `up`, with its options read from the environment as clap would.
        None => match Cli::parse_from(["catan-suite", "up"]).command {
            Some(command) => command,
            None => anyhow::bail!("clap parsed no command"),
        },
    };
    match command {
        Command::Serve(_) => anyhow::bail!("`serve` runs before any runtime is made"),
        Command::Openapi => {
            println!("{}", crate::openapi::openapi_json()?);
            Ok(())
        }
        Command::Up {
            port,
            host,
            replicas,
        } => {
            let database_url = database(postgres::DATABASE.to_owned(), false).await??;
            let mut settings = Settings {
                database: with_url(&settings, &database_url),
                ..settings
            };
            if settings.tokens.pin_key.is_none() {
                settings.tokens.pin_key = Some(pin_key_in(&cli.pin_key_file)?);
            }
            let gateway_addr = format!("{host}:{port}");
            let public_url = settings.public_url.clone();
            if let Some(replicas) = replicas {
                let exe = std::env::current_exe().context("the launcher's own binary")?;
                let suite =
                    ReplicatedSuite::start(settings, usize::from(replicas), exe, &gateway_addr)
                        .await
                        .with_context(|| {
                            format!("starting the replicas, the gateway on {gateway_addr}")
                        })?;
                print!("{}", suite.banner());
                print_ready(&suite.url(), public_url.as_ref());
                return suite.wait().await;
            }
            let suite = Suite::start(settings, &gateway_addr)
                .await
                .with_context(|| format!("starting the suite on {gateway_addr}"))?;
            print_ready(&suite.url(), public_url.as_ref());
            suite.wait().await
        }
        Command::Demo {
            format,
            players,
            teams,
            seed,
            into,
            admin_key,
            database: demo_database,
        } => {
            let say = |line: String| println!("{line}");
            let play = async |url: &str, admin_key: &str| {
                let target = demo::DemoTarget {
                    base_url: url,
                    admin_key,
                    seed,
                    say: &say,
                };
                match format {
                    DemoFormat::Classic => demo::play_classic_event(target, players)
                        .await
                        .map(|played| (played.event_id, played.position, demo::report(&played))),
                    DemoFormat::Partner => {
                        demo::play_partner_event(target, teams).await.map(|played| {
                            let report = demo::partner_report(&played);
                            (played.event_id, played.position, report)
                        })
                    }
                }
            };
            if let Some(url) = into {
                let url = url.trim_end_matches('/');
                let admin_key = admin_key.context(
                    "--into needs the suite's admin key: --admin-key or CATAN_ADMIN_KEY",
                )?;
                say(format!("Playing in the suite on {url}"));
                let (event_id, position, report) = play(url, &admin_key).await?;
                print!("\n{report}");
                // The link carries the demo's writes: the page shows them, however soon it opens.
                say(format!(
                    "\nOn the dashboard: {url}/events/{event_id}?{}={position}",
                    catan_api::POSITION_QUERY
                ));
                return Ok(());
            }
            // The demo runs its own suite on a free port, over a database of its own made anew,
            // with an admin key only it knows.
            let database_url = database(demo_database, true).await??;
            let admin_key = format!("demo-{}", uuid::Uuid::new_v4());
            let mut settings = Settings {
                database: with_url(&settings, &database_url),
                ..settings
            };
            settings.tokens.admin_key = Some(admin_key.clone().into());
            // A fresh database each time: a PIN key of its own, kept nowhere.
            settings.tokens.pin_key = Some(PinKey::new_secret());
            let suite = Suite::start(settings, "127.0.0.1:0").await?;
            say(format!("A suite of its own started on {}", suite.url()));
            let played = play(&suite.url(), &admin_key).await;
            suite.stop().await;
            print!("\n{}", played?.2);
            Ok(())
        }
        Command::Venue {
            command: crate::venue::VenueCommand::Pull(args),
        } => {
            let database_url = database(postgres::DATABASE.to_owned(), false).await??;
            crate::venue::run_pull(args, settings, &database_url, &cli.pin_key_file).await
        }
        Command::Venue {
            command: crate::venue::VenueCommand::Serve(args),
        } => {
            let database_url = database(postgres::DATABASE.to_owned(), false).await??;
            crate::venue::serve::run_serve(args, settings, &database_url, &cli.pin_key_file).await
        }
        Command::Venue {
            command: crate::venue::VenueCommand::Status(args),
        } => {
            let database_url = database(postgres::DATABASE.to_owned(), false).await??;
            crate::venue::status::run_status(args, settings, &database_url, &cli.pin_key_file).await
        }
        Command::Venue {
            command: crate::venue::VenueCommand::Publish(args),
        } => {
            let database_url = database(postgres::DATABASE.to_owned(), false).await??;
            crate::venue::publish::run_publish(args, settings, &database_url, &cli.pin_key_file)
                .await
        }
    }
}

/// What `up` and its replicas log when `RUST_LOG` is not set: warnings and errors, no requests.
pub const QUIET_LOGS: &str = "warn";

/// The report `up` ends its start with: where the suite is, where its links lead and where the
/// logs go. The admin key, on the first start, is printed above it, once.
fn print_ready(url: &str, public_url: Option<&PublicUrl>) {
    println!(
        "Catan tournament API on {url} (OpenAPI at /openapi.json, docs at /docs/). Ctrl-C stops it."
    );
    println!("  The dashboard: {url}/   the console: {url}/console");
    match public_url {
        Some(public) => println!(
            "  Links (PIN slips, QR codes, calendar feeds) lead to {public} (CATAN_PUBLIC_URL)"
        ),
        None => println!(
            "  Links (PIN slips, QR codes, calendar feeds) lead to the address each visitor came \
             to; set CATAN_PUBLIC_URL to name one"
        ),
    }
    let logs = match std::env::var("RUST_LOG") {
        Ok(filter) if !filter.trim().is_empty() => format!("as RUST_LOG={filter} asks"),
        _ => "warnings and errors only (RUST_LOG=info adds every request)".to_owned(),
    };
    println!("  Logs: on this terminal, {logs}");
}

/// The database settings with the URL the launcher found.
pub(crate) fn with_url(settings: &Settings, url: &str) -> catan_kit::settings::DatabaseSettings {
    catan_kit::settings::DatabaseSettings {
        configured_url: Some(url.into()),
        ..settings.database.clone()
    }
}

/// The PIN key kept in the file `path`, made there (readable by its owner only) on the first
/// start: outside the database, so that a copy of the database alone cannot be searched for PINs,
/// and the same at every start, so that the PINs handed out keep working. Without the file, every
/// PIN must be reissued.
pub(crate) fn pin_key_in(path: &Path) -> anyhow::Result<SecretString> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let key = text.trim();
            if key.chars().count() < MIN_PIN_KEY_LENGTH {
                anyhow::bail!(
                    "the PIN key in {} has fewer than {MIN_PIN_KEY_LENGTH} characters",
                    path.display()
                );
            }
            return Ok(SecretString::from(key.to_owned()));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(e).with_context(|| format!("reading the PIN key in {}", path.display()));
        }
    }
    let secret = PinKey::new_secret();
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path);
    match created {
        Ok(mut file) => {
            writeln!(file, "{}", secret.expose_secret())?;
            file.sync_all()?;
            println!(
                "\n  PIN key made and kept in {} (keep it with the database: PINs check against it)\n",
                path.display()
            );
            Ok(secret)
        }
        // Another launcher made it meanwhile.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => pin_key_in(path),
        Err(e) => Err(e).with_context(|| format!("keeping a PIN key in {}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pin_key_is_made_once_kept_private_and_read_again() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("catan-pin-key-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pin-key");
        let made = pin_key_in(&path).unwrap();
        assert!(made.expose_secret().len() >= MIN_PIN_KEY_LENGTH);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "only its owner reads it");
        let again = pin_key_in(&path).unwrap();
        assert_eq!(again.expose_secret(), made.expose_secret());
        std::fs::write(&path, "short\n").unwrap();
        assert!(pin_key_in(&path).is_err(), "a short key is refused");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
