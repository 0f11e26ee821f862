//! The index's manifest: what each session's log was indexed through, what a search filters
//! it by (directory, last activity, dropped) and its folded spans, plus the segment files. One JSON
//! file, replaced atomically; a manifest that does not parse or is of another format means the
//! index is rebuilt.

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::persist::write_atomic;
use crate::types::Thread;

/// The manifest's format; another one is rebuilt.
pub(crate) const FORMAT: u32 = 1;
/// Its file name in the index directory.
pub(crate) const FILE: &str = "manifest.json";

/// Everything the index knows besides its segments' contents.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub format: u32,
    /// Per source number (a document's `source`), the session it stands for.
    pub sources: Vec<Source>,
    /// Segment file names, oldest first.
    pub segments: Vec<String>,
}

/// One session's log as indexed.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Source {
    pub id: String,
    /// Log bytes indexed (the end of its last complete line).
    pub size: u64,
    /// The log's size when last looked at (logs only grow: the same size, nothing to read).
    pub seen_size: u64,
    /// The log's pin hash at `size`: while it holds, the indexed prefix is the one on disk.
    pub hash: String,
    pub last_seq: u64,
    /// Documents and tokens it holds (for BM25's collection statistics).
    pub docs: u64,
    pub tokens: u64,
    pub cwd: String,
    /// The newest record's time (RFC 3339 UTC).
    pub updated: String,
    /// Dropped by the user: kept, not shown.
    pub dropped: bool,
    /// Its documents no longer count (the log is gone or was replaced); merges and `gc`
    /// remove them.
    pub dead: bool,
    /// Folded and compacted spans, for the thread a hit is in and its staleness.
    pub spans: Vec<Thread>,
}

impl Source {
    /// Whether a search shows it.
    pub(crate) fn shown(&self) -> bool {
        !self.dead && !self.dropped
    }

    /// The innermost span holding `seq`, if any.
    pub(crate) fn span_of(&self, seq: u64) -> Option<&Thread> {
        self.spans
            .iter()
            .filter(|t| t.since <= seq && seq <= t.until)
            .min_by_key(|t| t.until - t.since)
    }
}

/// Whether `dir` holds a manifest.
pub(crate) fn exists(dir: &Path) -> bool {
    dir.join(FILE).is_file()
}

impl Manifest {
    /// The manifest in `dir`, or `None` when it is missing, unreadable or of another format.
    pub(crate) fn load(dir: &Path) -> Option<Manifest> {
        let bytes = fs::read(dir.join(FILE)).ok()?;
        let manifest: Manifest = serde_json::from_slice(&bytes).ok()?;
        (manifest.format == FORMAT).then_some(manifest)
    }

    /// Replaces the manifest in `dir`.
    pub(crate) fn save(&self, dir: &Path) -> std::io::Result<()> {
        let json = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        write_atomic(&dir.join(FILE), |w| std::io::Write::write_all(w, &json)).map(|_| ())
    }
}
