//! Small filesystem recipes: private permissions and atomic replacement of derived files.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{IoResultExt, Result};

/// Open options that create files readable by the user only (0600).
pub(crate) fn private_options() -> OpenOptions {
    let mut opts = OpenOptions::new();
    opts.mode(0o600);
    opts
}

/// Creates a directory (and its parents) private to the user (0700).
pub(crate) fn create_private_dir(path: &Path) -> Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .at(path)
}

/// Writes `bytes` to `path` atomically: a temp file in the same directory, synced, then renamed.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_replace(path, bytes, true)
}

/// Replaces a derived file (a cache): atomic, but not synced, since losing it costs a rebuild.
pub(crate) fn write_derived(path: &Path, bytes: &[u8]) -> Result<()> {
    write_replace(path, bytes, false)
}

fn write_replace(path: &Path, bytes: &[u8], sync: bool) -> Result<()> {
    // Unique per write, not only per process: two threads may write the same file (the same
    // blob) at once, and each needs its own temp file to rename.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    let mut file = private_options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .at(&tmp)?;
    file.write_all(bytes).at(&tmp)?;
    if sync {
        file.sync_data().at(&tmp)?;
    }
    fs::rename(&tmp, path).at(path)
}

/// Removes a file, treating "already gone" as success.
pub(crate) fn remove_file_if_exists(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e).at(path),
        _ => Ok(()),
    }
}

/// The bytes a file, or a directory with everything under it, takes (what removing it frees,
/// to the byte of content); 0 when it is gone. Links are not followed.
pub(crate) fn bytes_on_disk(path: &Path) -> u64 {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| bytes_on_disk(&e.path()))
                .sum()
        })
        .unwrap_or(0)
}
