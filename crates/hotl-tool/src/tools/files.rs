//! File helpers the tools share: blocking work off the runtime, atomic writes, binary checks.

use std::fs;
use std::io::{self};
use std::path::{Path, PathBuf};

use crate::args::Fail;
use crate::tool::ToolOutput;

/// How many leading bytes are checked for a NUL byte.
pub(crate) const SNIFF_BYTES: usize = 8 * 1024;

/// Runs `work` on the blocking pool (tools do file system walks and reads); a failure becomes
/// an error result, and so does a panic, so a tool never takes the agent down.
pub(crate) async fn blocking<F>(work: F) -> ToolOutput
where
    F: FnOnce() -> Result<ToolOutput, Fail> + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(out)) => out,
        Ok(Err(message)) => ToolOutput::error(message),
        Err(e) => ToolOutput::error(format!("the tool failed unexpectedly: {e}")),
    }
}

/// The paths under `root` the sandbox keeps from commands, as a walk from `root` meets them: a
/// walk skips them, as a confined `grep -r` would find them unreadable.
pub(crate) fn denied_under(ctx: &crate::tool::ToolCtx, root: &Path) -> Vec<PathBuf> {
    let Some(rules) = &ctx.sandbox else {
        return Vec::new();
    };
    let real = hotl_sandbox::resolve(root);
    rules
        .deny_read
        .iter()
        .filter_map(|denied| denied.path.strip_prefix(&real).ok())
        .filter(|rel| !rel.as_os_str().is_empty())
        .map(|rel| root.join(rel))
        .collect()
}

/// The note a walk's result ends with when it skipped what the sandbox denies.
pub(crate) fn skipped_note(skipped: &[PathBuf], cwd: &Path) -> Option<String> {
    (!skipped.is_empty()).then(|| {
        let names: Vec<String> = skipped.iter().map(|p| shown(p, cwd)).collect();
        format!(
            "[skipped what the sandbox keeps from commands: {}]",
            names.join(", ")
        )
    })
}

/// Whether `bytes` look binary: a NUL byte in the first 8 KiB.
pub(crate) fn has_nul(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(SNIFF_BYTES)].contains(&0)
}

/// `bytes` as text, or `None` when they are binary (a NUL in the first 8 KiB, or not UTF-8).
pub(crate) fn as_text(bytes: &[u8]) -> Option<&str> {
    if has_nul(bytes) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

/// `path` as shown to the model: relative to `cwd` when inside it, else as is.
pub(crate) fn shown(path: &Path, cwd: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

/// A message for an I/O error on `path` while doing `what` ("read", "write", ...).
pub(crate) fn io_fail(what: &str, path: &Path, e: &io::Error) -> Fail {
    match e.kind() {
        io::ErrorKind::NotFound => format!("{} does not exist", path.display()),
        io::ErrorKind::PermissionDenied => {
            format!("cannot {what} {}: permission denied", path.display())
        }
        _ => format!("cannot {what} {}: {e}", path.display()),
    }
}

/// The file a write to `path` should replace: the target when `path` is a symlink (so the
/// link survives), else `path`.
pub(crate) fn write_target(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
        }
        _ => path.to_owned(),
    }
}

/// Writes `bytes` to `path` atomically, an existing file's permissions kept (the one recipe:
/// [`hotl_log::write_file_atomic`]).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    hotl_log::write_file_atomic(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_sniffing() {
        assert_eq!(as_text(b"plain\n"), Some("plain\n"));
        assert_eq!(as_text(b"a\0b"), None);
        assert_eq!(as_text(&[0xff, 0xfe, b'a']), None);
        let mut late_nul = vec![b'a'; SNIFF_BYTES];
        late_nul.push(0);
        assert!(!has_nul(&late_nul));
    }

    #[test]
    fn atomic_write_keeps_permissions_and_leaves_no_temp() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.sh");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn paths_inside_cwd_are_shown_relative() {
        let cwd = Path::new("/p/q");
        assert_eq!(shown(Path::new("/p/q/a/b.rs"), cwd), "a/b.rs");
        assert_eq!(shown(Path::new("/p/q"), cwd), "/p/q");
        assert_eq!(shown(Path::new("/x/y"), cwd), "/x/y");
    }
}
