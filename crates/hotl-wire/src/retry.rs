//! When to ask again: which failures are retried, and how long to wait.
//!
//! 429, 529, 5xx, `overloaded_error` and a connection that fails before the first byte are
//! retried with exponential backoff and jitter; a `retry-after` (or `retry-after-ms`) from the
//! server is honoured; `x-should-retry` overrides the status. A stream that fails after output
//! began is never retried here: the caller gets an interrupted response.

use std::time::Duration;

/// Retry settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 4).
    pub max_retries: u32,
    /// The first backoff (default 500 ms); it doubles with each retry.
    pub base: Duration,
    /// The longest wait, server-requested waits included (default 60 s).
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            base: Duration::from_millis(500),
            max_wait: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// How long to wait before retry number `attempt` (0-based). `server` is what the server
    /// asked for; `jitter` in [0, 1) spreads clients apart (the wait is scaled into [50%, 100%]
    /// of the backoff, never below what the server asked).
    pub fn wait(&self, attempt: u32, server: Option<Duration>, jitter: f64) -> Duration {
        let exp = self
            .base
            .saturating_mul(2u32.saturating_pow(attempt.min(16)))
            .min(self.max_wait);
        let jittered = exp.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0));
        match server {
            Some(asked) => asked.min(self.max_wait),
            None => jittered,
        }
    }
}

/// Whether an HTTP status is worth retrying, before looking at `x-should-retry`.
pub fn retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429 | 529) || (500..600).contains(&status)
}

/// The wait a response asks for: `retry-after-ms` (milliseconds), else `retry-after`
/// (seconds; an HTTP date is not honoured and falls back to backoff).
pub fn server_wait(retry_after_ms: Option<&str>, retry_after: Option<&str>) -> Option<Duration> {
    if let Some(ms) = retry_after_ms.and_then(|v| v.trim().parse::<f64>().ok())
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    retry_after
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| *s >= 0.0)
        .map(Duration::from_secs_f64)
}

/// A cheap jitter source in [0, 1): clock nanoseconds mixed with a counter.
pub fn jitter() -> f64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() as u64);
    let mut x = nanos ^ COUNTER.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_and_caps() {
        let p = RetryPolicy::default();
        assert!(p.wait(0, None, 0.999) <= Duration::from_millis(500));
        assert_eq!(p.wait(0, None, 0.0), Duration::from_millis(250));
        assert_eq!(p.wait(3, None, 0.0), Duration::from_secs(2));
        assert_eq!(p.wait(30, None, 0.0), Duration::from_secs(30));
    }

    #[test]
    fn server_waits_are_honoured_and_capped() {
        let p = RetryPolicy::default();
        assert_eq!(
            p.wait(0, Some(Duration::from_secs(7)), 0.0),
            Duration::from_secs(7)
        );
        assert_eq!(p.wait(0, Some(Duration::from_secs(700)), 0.0), p.max_wait);
        assert_eq!(
            server_wait(Some("1500"), Some("9")),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(server_wait(None, Some("2")), Some(Duration::from_secs(2)));
        assert_eq!(
            server_wait(None, Some("Wed, 21 Oct 2015 07:28:00 GMT")),
            None
        );
    }

    #[test]
    fn which_statuses_retry() {
        for s in [429, 529, 500, 502, 503, 504] {
            assert!(retryable_status(s), "{s}");
        }
        for s in [400, 401, 403, 404, 413] {
            assert!(!retryable_status(s), "{s}");
        }
        let j = jitter();
        assert!((0.0..1.0).contains(&j));
    }
}
