//! `catan-suite`: see [`catan_suite::cli`].

fn main() -> std::process::ExitCode {
    catan_suite::cli::main()
}
