//! The one recipe for replacing a file whole: a temp file in the same directory (unique per
//! write, so two threads writing one file each rename their own), filled, synced when the
//! file is worth syncing, then renamed over the target. A reader sees the old file or the new
//! one, never part of either; a failed write leaves the target as it was and no temp file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Who may read the file written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perms {
    /// The user only (0600): everything in hotl's home.
    Private,
    /// An existing file's permissions, else what the umask gives a new file: the user's own
    /// files (a file a tool edits, an export in the project).
    Keep,
}

/// How a file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atomic {
    /// Who may read it.
    pub perms: Perms,
    /// Whether its bytes reach the disk before it is renamed into place (a derived cache
    /// need not be: losing it costs a rebuild).
    pub sync: bool,
}

impl Atomic {
    /// Private and synced: what hotl keeps.
    pub const PRIVATE: Atomic = Atomic {
        perms: Perms::Private,
        sync: true,
    };
    /// The user's file, its permissions kept, synced.
    pub const USER: Atomic = Atomic {
        perms: Perms::Keep,
        sync: true,
    };

    /// Writes `path` with what `fill` writes, as this says; the bytes written.
    pub fn write_with(
        self,
        path: &Path,
        fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
    ) -> io::Result<u64> {
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let tmp = dir.join(format!(
            ".{}.{}.{}.tmp",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
            std::process::id(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        let result = self.fill_and_rename(path, &tmp, fill);
        if result.is_err() {
            // Best effort: the temp may not exist.
            let _ = fs::remove_file(&tmp);
        }
        result
    }

    /// Writes `bytes` to `path` as this says.
    pub fn write(self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.write_with(path, |w| w.write_all(bytes)).map(drop)
    }

    fn fill_and_rename(
        self,
        path: &Path,
        tmp: &Path,
        fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
    ) -> io::Result<u64> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        if self.perms == Perms::Private {
            options.mode(0o600);
        }
        let file = options.open(tmp)?;
        if self.perms == Perms::Keep
            && let Ok(meta) = fs::metadata(path)
        {
            file.set_permissions(meta.permissions())?;
        }
        let mut w = BufWriter::with_capacity(1 << 16, file);
        fill(&mut w)?;
        let file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
        if self.sync {
            file.sync_data()?;
        }
        let size = file.metadata()?.len();
        fs::rename(tmp, path)?;
        Ok(size)
    }
}

/// Replaces the user's file `path` with `bytes` atomically, its permissions kept (what a
/// tool's edit and an export do).
pub fn write_file_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    Atomic::USER.write(path, bytes)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_file_is_replaced_whole_with_the_permissions_asked() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("f.txt");
        Atomic::PRIVATE.write(&path, b"one")?;
        assert_eq!(fs::read(&path)?, b"one");
        assert_eq!(fs::metadata(&path)?.permissions().mode() & 0o777, 0o600);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640))?;
        write_file_atomic(&path, b"two")?;
        assert_eq!(fs::read(&path)?, b"two");
        assert_eq!(fs::metadata(&path)?.permissions().mode() & 0o777, 0o640);
        // Nothing is left beside it, and a failed fill leaves the file as it was.
        let failed = Atomic::USER.write_with(&path, |_| Err(io::Error::other("no")));
        assert!(failed.is_err());
        assert_eq!(fs::read(&path)?, b"two");
        assert_eq!(fs::read_dir(dir.path())?.count(), 1);
        Ok(())
    }
}
