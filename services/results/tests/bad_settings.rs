//! A service started with a setting that does not parse stops with an error naming it, and
//! without a panic, before it touches the database or the network.

use std::process::Command;

#[test]
fn a_setting_that_does_not_parse_stops_the_service_with_a_clear_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_catan-results"))
        .env("HTTP_WORKERS", "many")
        .env("PORT", "0")
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("HTTP_WORKERS=\"many\" is not valid"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}
