//! The `catan-suite` command, built with the end-to-end tests so that they can run it as a
//! process (`CARGO_BIN_EXE_catan-e2e-suite`): `tests/replicas.rs` runs `up --replicas 2`.

fn main() -> std::process::ExitCode {
    catan_suite::cli::main()
}
