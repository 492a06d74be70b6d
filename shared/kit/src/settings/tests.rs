//! The settings read from variables: defaults, values, and refusals naming the variable.

use super::*;
use std::collections::HashMap;

fn settings(vars: &[(&str, &str)]) -> Result<Settings, SettingsError> {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Settings::from_vars(|name| vars.get(name).cloned())
}

#[test]
fn each_replica_is_given_its_share_of_every_limit() {
    let totals = settings(&[
        ("CATAN_PIN_CEILING_PER_SECOND", "20"),
        ("CATAN_PIN_CEILING_BURST", "200"),
        ("CATAN_STREAMS_TOTAL", "2001"),
        ("CATAN_ANONYMOUS_LIMIT_PER_SECOND", "0"),
        ("RATE_LIMIT_PER_SECOND", "5"),
    ])
    .unwrap();
    let vars: HashMap<&str, String> = totals.limit_vars_per_replica(2).into_iter().collect();
    let replica = Settings::from_vars(|name| vars.get(name).cloned()).unwrap();
    let c = &replica.clients;
    assert_eq!(
        (c.pin_ceiling_per_second, c.pin_ceiling_burst),
        (10.0, 100.0)
    );
    assert_eq!(c.streams_total, 1001, "a count is rounded up");
    assert_eq!(c.streams_per_client, 5);
    assert_eq!(c.anonymous_per_second, 0.0, "a limit turned off stays off");
    assert_eq!(c.anonymous_burst, 250.0);
    assert_eq!((c.sign_in_per_second, c.sign_in_burst), (2.5, 50.0));
    assert_eq!(replica.rate_limit.per_second, 2.5);
    assert_eq!(replica.rate_limit.burst, 50.0);
    // One replica keeps the totals.
    let one: HashMap<&str, String> = totals.limit_vars_per_replica(1).into_iter().collect();
    let alone = Settings::from_vars(|name| one.get(name).cloned()).unwrap();
    assert_eq!(alone.clients.streams_total, 2001);
    assert_eq!(alone.clients.pin_ceiling_burst, 200.0);
}

#[test]
fn unset_and_blank_variables_take_the_defaults() {
    let s = settings(&[("HTTP_WORKERS", "  ")]).unwrap();
    assert_eq!(s.database.url(), DEFAULT_DATABASE_URL);
    assert!(s.database.configured_url.is_none());
    assert_eq!(s.http.workers, 2);
    assert_eq!(s.tokens.ttl, Duration::from_secs(3600));
    assert_eq!(s.webhooks.max_attempts, 8);
    assert_eq!(s.webhooks.relay_max_attempts, 60);
    assert!(s.tokens.admin_key.is_none());
}

#[test]
fn set_variables_are_read_with_their_units() {
    let s = settings(&[
        ("CATAN_WEBHOOKS_FIRST_RETRY_MS", "250"),
        ("TOKEN_TTL_SECONDS", "60"),
        ("RATE_LIMIT_BURST", "4"),
        ("CATAN_WEBHOOKS_MAX_ATTEMPTS", "0"),
        ("CATAN_WEBHOOKS_RELAY_MAX_ATTEMPTS", "3"),
        ("PORT", "9000"),
    ])
    .unwrap();
    assert_eq!(s.webhooks.relay_max_attempts, 3);
    assert_eq!(s.webhooks.first_retry, Duration::from_millis(250));
    assert_eq!(s.tokens.ttl, Duration::from_secs(60));
    assert_eq!(s.rate_limit.burst, 4.0);
    assert_eq!(s.webhooks.max_attempts, 1, "at least one try");
    assert_eq!(s.http.port, Some(9000));
}

#[test]
fn a_value_that_does_not_parse_is_an_error_naming_the_variable() {
    let e = settings(&[("HTTP_WORKERS", "many")]).unwrap_err();
    assert_eq!(e.name, "HTTP_WORKERS");
    assert!(
        e.to_string()
            .starts_with("HTTP_WORKERS=\"many\" is not valid")
    );
}

#[test]
fn secrets_do_not_print() {
    let s = settings(&[
        ("CATAN_ADMIN_KEY", "admin-secret-0123456789abcdef"),
        ("DATABASE_URL", "postgres://u:hunter2@db/catan"),
        ("CATAN_INTERNAL_KEY", "cik_secret"),
        ("CATAN_PROXY_SECRET", "cps_secret"),
        ("CATAN_PIN_KEY", "cpk_a_pin_key_of_at_least_32_characters"),
    ])
    .unwrap();
    let printed = format!("{s:?}");
    for secret in [
        "admin-secret",
        "hunter2",
        "cik_secret",
        "cps_secret",
        "cpk_a_pin_key",
    ] {
        assert!(!printed.contains(secret), "{secret} printed in {printed}");
    }
    assert_eq!(
        s.tokens.admin_key.as_ref().map(|k| k.expose_secret()),
        Some("admin-secret-0123456789abcdef")
    );
}

#[test]
fn a_short_pin_key_is_refused_without_showing_it() {
    let e = settings(&[("CATAN_PIN_KEY", "short-pin-key")]).unwrap_err();
    assert_eq!(e.name, "CATAN_PIN_KEY");
    assert!(!e.to_string().contains("short-pin-key"), "{e}");
    assert!(settings(&[]).unwrap().tokens.pin_key.is_none());
}

#[test]
fn a_weak_admin_key_is_refused_naming_the_variable_and_never_printed() {
    for weak in [
        "admin-secret",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "abcabcabcabcabcabcabcabcabc",
    ] {
        let e = settings(&[("CATAN_ADMIN_KEY", weak)]).unwrap_err();
        assert_eq!(e.name, "CATAN_ADMIN_KEY");
        let message = e.to_string();
        assert!(message.contains("too weak"), "{message}");
        assert!(!message.contains(weak), "the key is not printed: {message}");
    }
    let strong = "ck_9f86d081884c7d659a2feaa0c55ad015";
    assert!(settings(&[("CATAN_ADMIN_KEY", strong)]).is_ok());
}

#[test]
fn backoff_doubles_from_the_first_retry() {
    let s = WebhookSettings::default();
    assert_eq!(s.backoff(1), Duration::from_secs(30));
    assert_eq!(s.backoff(2), Duration::from_secs(60));
    let total: Duration = (1..s.max_attempts).map(|n| s.backoff(n)).sum();
    // 8 tries over about an hour.
    assert!(total > Duration::from_secs(55 * 60) && total < Duration::from_secs(70 * 60));
}

#[test]
fn the_round_ending_notice_is_at_least_a_minute_and_five_by_default() {
    let default = settings(&[]).unwrap().round_ending_notice;
    assert_eq!(default, catan_domain::clock::DEFAULT_ENDING_NOTICE_MINUTES);
    let set = settings(&[("CATAN_ROUND_ENDING_MINUTES", "10")]).unwrap();
    assert_eq!(set.round_ending_notice.get(), 10);
    let e = settings(&[("CATAN_ROUND_ENDING_MINUTES", "0")]).unwrap_err();
    assert_eq!(e.name, "CATAN_ROUND_ENDING_MINUTES");
}

#[test]
fn the_public_address_is_read_and_one_with_a_path_is_refused_naming_the_variable() {
    assert!(settings(&[]).unwrap().public_url.is_none());
    let set = settings(&[("CATAN_PUBLIC_URL", "https://catan.example.org/")]).unwrap();
    assert_eq!(
        set.public_url.as_ref().map(PublicUrl::as_str),
        Some("https://catan.example.org")
    );
    let e = settings(&[("CATAN_PUBLIC_URL", "https://catan.example.org/v1")]).unwrap_err();
    assert_eq!(e.name, "CATAN_PUBLIC_URL");
    assert!(e.to_string().contains("without a path"), "{e}");
}
