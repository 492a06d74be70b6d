//! The launcher reads the same settings as the services, and stops the same way when one does
//! not parse: an error naming it, no panic, nothing started.

use std::process::Command;

#[test]
fn a_setting_that_does_not_parse_stops_the_launcher_with_a_clear_error() {
    for (name, value) in [
        ("CATAN_WEBHOOKS_TIMEOUT_MS", "soon"),
        ("TOKEN_TTL_SECONDS", "-1"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_catan-suite"))
            .arg("openapi")
            .env(name, value)
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("{name}=\"{value}\" is not valid")),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
