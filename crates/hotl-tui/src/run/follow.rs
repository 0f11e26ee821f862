//! A read-only view following the log another process writes, and noticing when it stops.

use std::time::{Duration, Instant};

use super::Host;
use crate::app::App;

/// How often a read-only view looks at the log.
pub(super) const FOLLOW: Duration = Duration::from_millis(500);

/// A read-only view following a log another process writes.
pub(super) struct Follow {
    /// The log's size at the last look.
    pub(super) size: u64,
    /// Transcript entries shown.
    pub(super) entries: usize,
    /// When to look again.
    pub(super) next: Instant,
}

impl Follow {
    /// Shows what the log gained since the last look; says whether it may be free now (it
    /// stopped growing, so the owner may have exited).
    pub(super) fn poll(&mut self, app: &mut App, host: &dyn Host) -> bool {
        let size = host.log_size(&app.session).unwrap_or(self.size);
        if size == self.size {
            return true;
        }
        self.size = size;
        let entries = host.entries(&app.session);
        for entry in entries.iter().skip(self.entries) {
            app.commit(entry.clone());
        }
        self.entries = entries.len();
        false
    }
}
