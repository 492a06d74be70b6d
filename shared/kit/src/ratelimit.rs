//! Rate limits: token buckets per API key, and per client address (see [`crate::client`]).
//!
//! Per key (not per address: table apps of one venue share an address) and service replica:
//! `RATE_LIMIT_PER_SECOND` requests a second on average (default 50), bursts up to
//! `RATE_LIMIT_BURST` (default 100). Over the limit a request gets 429 with `Retry-After`.
//! Requests without a token are limited per client address instead ([`crate::client`]).

use crate::ApiError;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// Token buckets, one per `K` (an API key's id unless said otherwise).
pub struct RateLimiter<K = Uuid> {
    per_second: f64,
    burst: f64,
    /// Who the limit is for, in the refusal: "this API key", "this address".
    whom: &'static str,
    buckets: Mutex<HashMap<K, Bucket>>,
}

struct Bucket {
    tokens: f64,
    refilled_at: Instant,
}

/// Buckets idle this long are forgotten (a full bucket is the same as none).
const IDLE: Duration = Duration::from_secs(600);

impl RateLimiter<Uuid> {
    /// Buckets per API key.
    pub fn new(per_second: f64, burst: f64) -> Self {
        RateLimiter::per("this API key", per_second, burst)
    }
}

impl<K: Hash + Eq> RateLimiter<K> {
    /// Buckets per `K`, which the refusal calls `whom`.
    pub fn per(whom: &'static str, per_second: f64, burst: f64) -> Self {
        RateLimiter {
            per_second: per_second.max(0.001),
            burst: burst.max(1.0),
            whom,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from `key`'s bucket, or says how long to wait.
    pub fn check(&self, key: K) -> Result<(), ApiError> {
        let now = Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if buckets.len() > 10_000 {
            buckets.retain(|_, b| now.duration_since(b.refilled_at) < IDLE);
        }
        let bucket = buckets.entry(key).or_insert(Bucket {
            tokens: self.burst,
            refilled_at: now,
        });
        let elapsed = now.duration_since(bucket.refilled_at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * self.per_second).min(self.burst);
        bucket.refilled_at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        let wait = Duration::from_secs_f64((1.0 - bucket.tokens) / self.per_second)
            .as_secs()
            .max(1);
        Err(ApiError::TooManyRequests {
            detail: format!(
                "{} made more than {} requests a second (bursts of {}); retry in {wait} s",
                self.whom, self.per_second, self.burst
            ),
            retry_after_seconds: wait,
            wrong_pins: false,
        })
    }
}

/// A wait of `seconds` in English words, as a refusal says it: "1 second", "4 seconds",
/// "2 minutes", "1 minute 4 seconds".
pub fn seconds_in_words(seconds: u64) -> String {
    let unit = |n: u64, one: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {one}s"),
    };
    match (seconds / 60, seconds % 60) {
        (0, s) => unit(s, "second"),
        (m, 0) => unit(m, "minute"),
        (m, s) => format!("{} {}", unit(m, "minute"), unit(s, "second")),
    }
}

/// A growing delay after failures, per `K` (a client address): the first `free` failures cost
/// nothing, each one after them makes `K` wait twice as long as the one before (1 s, 2 s, 4 s, ...
/// up to `max_delay`) before its next try, and one failure is forgiven every `forgive_every`.
///
/// A try counts as a failure when it starts ([`FailureDelay::attempt`]), so tries sent at once do
/// not all slip in before the first one fails; [`FailureDelay::succeeded`] takes it back.
pub struct FailureDelay<K> {
    free: u32,
    max_delay: Duration,
    forgive_every: Duration,
    entries: Mutex<HashMap<K, Failures>>,
}

struct Failures {
    count: u32,
    /// When the count was last lowered by forgiving (or first raised).
    forgiven_at: Instant,
    wait_until: Option<Instant>,
}

impl<K: Hash + Eq> FailureDelay<K> {
    pub fn new(free: u32, max_delay: Duration, forgive_every: Duration) -> Self {
        FailureDelay {
            free: free.max(1),
            max_delay: max_delay.max(Duration::from_secs(1)),
            forgive_every: forgive_every.max(Duration::from_millis(1)),
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// Starts a try for `key`, counted as a failure until [`FailureDelay::succeeded`]; or the
    /// whole seconds `key` must still wait (at least 1).
    pub fn attempt(&self, key: K) -> Result<(), u64> {
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() > 10_000 {
            let forget = self
                .forgive_every
                .saturating_mul(self.free.saturating_add(8));
            entries.retain(|_, f| {
                now.duration_since(f.forgiven_at) < forget
                    || f.wait_until.is_some_and(|until| until > now)
            });
        }
        let failures = entries.entry(key).or_insert(Failures {
            count: 0,
            forgiven_at: now,
            wait_until: None,
        });
        let elapsed = now.duration_since(failures.forgiven_at);
        let forgiven = elapsed.as_nanos() / self.forgive_every.as_nanos().max(1);
        if forgiven > 0 {
            failures.count = failures
                .count
                .saturating_sub(u32::try_from(forgiven).unwrap_or(u32::MAX));
            failures.forgiven_at = now;
        }
        if let Some(until) = failures.wait_until.filter(|until| *until > now) {
            let left = until.duration_since(now);
            return Err(left.as_secs() + u64::from(left.subsec_nanos() > 0));
        }
        failures.count = failures.count.saturating_add(1);
        failures.wait_until = (failures.count >= self.free).then(|| {
            let doublings = (failures.count - self.free).min(30);
            now + Duration::from_secs(1u64 << doublings).min(self.max_delay)
        });
        Ok(())
    }

    /// The try [`FailureDelay::attempt`] started succeeded: it is no failure.
    pub fn succeeded(&self, key: &K) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(failures) = entries.get_mut(key) {
            failures.count = failures.count.saturating_sub(1);
            if failures.count < self.free {
                failures.wait_until = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_gets_its_burst_then_waits_and_other_keys_are_not_affected() {
        let limiter = RateLimiter::new(1.0, 3.0);
        let (busy, quiet) = (Uuid::new_v4(), Uuid::new_v4());
        for _ in 0..3 {
            assert!(limiter.check(busy).is_ok());
        }
        match limiter.check(busy) {
            Err(ApiError::TooManyRequests {
                retry_after_seconds,
                ..
            }) => assert_eq!(retry_after_seconds, 1),
            other => panic!("expected 429, got {other:?}"),
        }
        assert!(limiter.check(quiet).is_ok());
    }

    #[test]
    fn a_wait_is_said_as_it_is() {
        assert_eq!(seconds_in_words(1), "1 second");
        assert_eq!(seconds_in_words(4), "4 seconds");
        assert_eq!(seconds_in_words(120), "2 minutes");
        assert_eq!(seconds_in_words(64), "1 minute 4 seconds");
    }

    #[test]
    fn failures_past_the_free_ones_make_a_client_wait_longer_each_time() {
        let delay = FailureDelay::new(3, Duration::from_secs(900), Duration::from_secs(60));
        let (attacker, player) = (1, 2);
        for _ in 0..3 {
            assert_eq!(delay.attempt(attacker), Ok(()));
        }
        // The third failure asks for a second's wait, and nobody else waits.
        assert_eq!(delay.attempt(attacker), Err(1));
        assert_eq!(delay.attempt(player), Ok(()));
        delay.succeeded(&player);
        std::thread::sleep(Duration::from_millis(1100));
        assert_eq!(delay.attempt(attacker), Ok(()));
        assert_eq!(delay.attempt(attacker), Err(2), "the wait doubles");
    }

    #[test]
    fn a_success_is_not_a_failure_and_failures_are_forgiven_with_time() {
        let delay = FailureDelay::new(2, Duration::from_secs(900), Duration::from_millis(100));
        for _ in 0..5 {
            assert_eq!(delay.attempt(7), Ok(()));
            delay.succeeded(&7);
        }
        assert_eq!(delay.attempt(7), Ok(()));
        assert_eq!(delay.attempt(7), Ok(()));
        assert!(delay.attempt(7).is_err());
        std::thread::sleep(Duration::from_millis(1250));
        assert_eq!(delay.attempt(7), Ok(()), "forgiven and waited out");
    }
}
