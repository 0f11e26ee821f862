//! `--no-session`: a home that lives in memory for one run. It is a private directory on a
//! memory-backed file system (`/dev/shm`, else the temporary directory), so the session works
//! exactly as a saved one (folds, recall, snapshots) while nothing reaches the user's home;
//! it is removed when hotl exits, and one left by a process that was killed is removed by the
//! next run that makes one.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::CliError;

/// The prefix of every such directory's name; the owner's pid follows it.
const PREFIX: &str = "hotl-memory-";

/// An in-memory home, removed on drop.
#[derive(Debug)]
pub struct MemoryHome {
    path: PathBuf,
}

impl MemoryHome {
    /// Makes one (0700), after removing any whose process is gone.
    pub fn new() -> Result<MemoryHome, CliError> {
        let parent = parent_dir();
        sweep(&parent);
        let path = parent.join(format!(
            "{PREFIX}{}-{}",
            std::process::id(),
            hotl_log::new_session_id()
        ));
        let made = {
            use std::os::unix::fs::DirBuilderExt;
            fs::DirBuilder::new().mode(0o700).create(&path)
        };
        made.map_err(|e| {
            CliError::user(format!(
                "--no-session needs a private directory in {}: {e}",
                parent.display()
            ))
        })?;
        Ok(MemoryHome { path })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for MemoryHome {
    fn drop(&mut self) {
        if let Err(e) = fs::remove_dir_all(&self.path) {
            tracing::warn!("cannot remove {}: {e}", self.path.display());
        }
    }
}

/// `/dev/shm` when it is a writable directory (memory, on Linux), else the temp directory.
fn parent_dir() -> PathBuf {
    let shm = Path::new("/dev/shm");
    let writable = fs::metadata(shm).is_ok_and(|m| m.is_dir() && !m.permissions().readonly());
    if writable {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// Removes the in-memory homes of processes that no longer run (this user's only: others'
/// are not ours to read or remove).
fn sweep(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let alive = Path::new(&format!("/proc/{pid}")).exists();
        if !alive {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_is_private_and_gone_when_dropped() {
        use std::os::unix::fs::PermissionsExt;
        let home = MemoryHome::new().unwrap();
        let path = home.path().to_path_buf();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        fs::write(path.join("x"), "y").unwrap();
        drop(home);
        assert!(!path.exists());
    }

    #[test]
    fn one_left_by_a_dead_process_is_swept() {
        let parent = parent_dir();
        // No process has pid 0x7fff_fff0 on Linux (pid_max is at most 2^22).
        let stale = parent.join(format!("{PREFIX}{}-x", 0x7fff_fff0_u32));
        fs::create_dir_all(stale.join("sessions")).unwrap();
        let home = MemoryHome::new().unwrap();
        assert!(!stale.exists());
        drop(home);
    }
}
