//! `catan-suite up` as a process of the test: with `--replicas 2` for the tests of replicas, or
//! in one process for what it prints.

#![allow(
    dead_code,
    reason = "each test binary that includes this module uses a part of it"
)]

use catan_e2e::eventually;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use uuid::Uuid;

/// The launcher as a process of its own, and every line it and its replicas printed.
pub struct Launcher {
    child: Child,
    output: Arc<Mutex<Vec<String>>>,
}

impl Launcher {
    /// `catan-suite up --replicas 2` over `database_url`, the gateway on a free port.
    pub fn start(database_url: &str, admin_key: &str, env: &[(&str, &str)]) -> Launcher {
        let mut with = vec![("CATAN_ADMIN_KEY", admin_key), ("RUST_LOG", "warn")];
        with.extend_from_slice(env);
        Launcher::run(
            &["up", "--replicas", "2", "--port", "0"],
            database_url,
            &with,
        )
    }

    /// `catan-suite` with `args` over `database_url` (a PIN key of its own), with `env` and no
    /// `RUST_LOG` unless `env` sets one.
    pub fn run(args: &[&str], database_url: &str, env: &[(&str, &str)]) -> Launcher {
        let mut child = Command::new(env!("CARGO_BIN_EXE_catan-e2e-suite"))
            .args(args)
            .env("DATABASE_URL", database_url)
            .env("CATAN_PIN_KEY", format!("test-pin-key-{}", Uuid::new_v4()))
            .env_remove("RUST_LOG")
            .env_remove("CATAN_ADMIN_KEY")
            .env_remove("CATAN_PUBLIC_URL")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the launcher starts");
        let output = Arc::new(Mutex::new(Vec::new()));
        let streams: [Box<dyn Read + Send>; 2] = [
            Box::new(child.stdout.take().expect("stdout")),
            Box::new(child.stderr.take().expect("stderr")),
        ];
        for stream in streams {
            let output = output.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    output.lock().unwrap().push(line);
                }
            });
        }
        Launcher { child, output }
    }

    /// The first value `find` gives of a printed line, waiting up to `seconds` for one.
    pub async fn printed<T>(
        &self,
        seconds: u64,
        what: &str,
        find: impl Fn(&str) -> Option<T>,
    ) -> T {
        eventually(seconds, what, async || {
            self.output.lock().unwrap().iter().find_map(|l| find(l))
        })
        .await
    }

    /// Every line printed so far.
    pub fn lines(&self) -> Vec<String> {
        self.output.lock().unwrap().clone()
    }

    /// Each replica's process id and base URL, as the launcher printed them:
    /// `  results 2: pid 123 on http://127.0.0.1:40123`.
    pub fn replicas(&self) -> HashMap<(String, usize), (u32, String)> {
        let line = regex::Regex::new(r"^  (\w+) (\d+): pid (\d+) on (http://\S+)$").unwrap();
        self.output
            .lock()
            .unwrap()
            .iter()
            .filter_map(|l| line.captures(l))
            .map(|c| {
                let id = (c[1].to_owned(), c[2].parse().unwrap());
                (id, (c[3].parse().unwrap(), c[4].to_owned()))
            })
            .collect()
    }

    /// Stops the launcher as Ctrl-C would (SIGTERM), which stops its replicas.
    pub fn stop(mut self) {
        signal("TERM", self.child.id());
        for _ in 0..100 {
            if self.child.try_wait().unwrap().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("the launcher did not stop within 10 s of SIGTERM");
    }
}

impl Drop for Launcher {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let output = self.output.lock().unwrap();
            eprintln!("--- what the launcher and its replicas printed (last 80 lines)");
            for line in &output[output.len().saturating_sub(80)..] {
                eprintln!("{line}");
            }
        }
        // Its replicas end with it (their stdin closes).
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn signal(name: &str, pid: u32) {
    let status = Command::new("kill")
        .args([format!("-{name}"), pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{name} {pid}");
}
