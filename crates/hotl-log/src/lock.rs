//! The tree lock: one writer per session tree, held as an OS file lock.
//!
//! Correctness needs it: two writers appending to one log would interleave seqs. Readers never
//! take it. The lock dies with its process, so a lock left by a killed process blocks nobody; the
//! pid written inside is only there to name the owner in error messages.

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{IoResultExt, Result};
use crate::fsutil;

/// Exclusive ownership of a session tree, released on drop.
#[derive(Debug)]
pub struct TreeLock {
    file: File,
    path: PathBuf,
}

/// How long `try_acquire` keeps retrying: readers probe with a brief shared lock, and a writer
/// must not mistake such a probe for an owner.
const PROBE_GRACE: Duration = Duration::from_millis(100);

impl TreeLock {
    /// Takes the lock at `path` if nobody holds it; `None` when another process does.
    pub fn try_acquire(path: &Path) -> Result<Option<TreeLock>> {
        let mut file = fsutil::private_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .at(path)?;
        let deadline = std::time::Instant::now() + PROBE_GRACE;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(TryLockError::WouldBlock) => return Ok(None),
                Err(TryLockError::Error(e)) => return Err(e).at(path),
            }
        }
        file.set_len(0).at(path)?;
        file.rewind().at(path)?;
        writeln!(file, "{}", std::process::id()).at(path)?;
        Ok(Some(TreeLock {
            file,
            path: path.to_owned(),
        }))
    }

    /// The pid the current owner wrote, if it can be read.
    pub fn owner_pid(path: &Path) -> Option<u32> {
        let mut text = String::new();
        File::open(path).ok()?.read_to_string(&mut text).ok()?;
        text.trim().parse().ok()
    }

    /// Whether some process (this one included) holds the lock right now. Never blocks.
    pub fn is_held(path: &Path) -> bool {
        let Ok(file) = File::open(path) else {
            return false;
        };
        match file.try_lock_shared() {
            Ok(()) => false,
            Err(TryLockError::WouldBlock) => true,
            Err(TryLockError::Error(_)) => false,
        }
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TreeLock {
    fn drop(&mut self) {
        // The file stays: removing it would let a waiter lock an unlinked inode while a newcomer
        // locks a fresh one. gc removes lock files of deleted sessions.
        if let Err(e) = self.file.unlock() {
            // Closing the file below releases it anyway.
            tracing::debug!("unlocking a tree lock failed: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_acquire_in_process_sees_it_held() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let lock = TreeLock::try_acquire(&path).unwrap().unwrap();
        assert!(TreeLock::is_held(&path));
        assert!(TreeLock::try_acquire(&path).unwrap().is_none());
        assert_eq!(TreeLock::owner_pid(&path), Some(std::process::id()));
        drop(lock);
        assert!(!TreeLock::is_held(&path));
        assert!(TreeLock::try_acquire(&path).unwrap().is_some());
    }
}
