//! The virtual clock: cache TTLs and `created` timestamps follow it, never the wall clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// 2026-01-01T00:00:00Z: what the virtual clock reads before any `advance`.
pub const VIRTUAL_EPOCH_SECS: u64 = 1_767_225_600;

/// A test-controlled clock. Clones share the same time; it only moves when a test calls
/// [`Clock::advance`], so TTL expiry is exact and tests never sleep.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    elapsed_ms: Arc<AtomicU64>,
}

impl Clock {
    /// A clock at [`VIRTUAL_EPOCH_SECS`].
    pub fn new() -> Clock {
        Clock::default()
    }

    /// Moves time forward (millisecond resolution).
    pub fn advance(&self, by: Duration) {
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.elapsed_ms.fetch_add(ms, Ordering::SeqCst);
    }

    /// Time since the virtual epoch.
    pub fn elapsed(&self) -> Duration {
        Duration::from_millis(self.elapsed_ms.load(Ordering::SeqCst))
    }

    /// Seconds since the Unix epoch, as the `created` fields report it.
    pub fn unix_secs(&self) -> u64 {
        VIRTUAL_EPOCH_SECS + self.elapsed().as_secs()
    }
}
