//! Rate limits per API key (not per IP address: table apps of one venue share an address).
//!
//! A token bucket per key and service replica: `RATE_LIMIT_PER_SECOND` requests a second on
//! average (default 50), bursts up to `RATE_LIMIT_BURST` (default 100). Over the limit a request
//! gets 429 with `Retry-After`. Reads that need no token are not limited here (they are cheap and
//! cacheable; put a CDN or ingress limit in front of them).

use crate::ApiError;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};
use uuid::Uuid;

pub struct RateLimiter {
    per_second: f64,
    burst: f64,
    buckets: Mutex<HashMap<Uuid, Bucket>>,
}

struct Bucket {
    tokens: f64,
    refilled_at: Instant,
}

/// Buckets idle this long are forgotten (a full bucket is the same as none).
const IDLE: Duration = Duration::from_secs(600);

impl RateLimiter {
    pub fn new(per_second: f64, burst: f64) -> Self {
        RateLimiter {
            per_second: per_second.max(0.001),
            burst: burst.max(1.0),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from `key`'s bucket, or says how long to wait.
    pub fn check(&self, key: Uuid) -> Result<(), ApiError> {
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
                "this API key made more than {} requests a second (bursts of {}); retry in {wait} s",
                self.per_second, self.burst
            ),
            retry_after_seconds: wait,
        })
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
}
