//! Small filesystem recipes: private permissions and atomic replacement of derived files.

use std::fs::{self, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;

use crate::atomic::{Atomic, Perms};
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

/// Writes `bytes` to `path` atomically and privately: a temp file in the same directory,
/// synced, then renamed.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    Atomic::PRIVATE.write(path, bytes).at(path)
}

/// Replaces a derived file (a cache): atomic and private, but not synced, since losing it
/// costs a rebuild.
pub(crate) fn write_derived(path: &Path, bytes: &[u8]) -> Result<()> {
    Atomic {
        perms: Perms::Private,
        sync: false,
    }
    .write(path, bytes)
    .at(path)
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
